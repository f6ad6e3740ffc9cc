#include "config/config.h"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "base/error.h"

using namespace gnh;

static std::string error_of(const std::string& toml) {
  try {
    parse_config(toml, "/etc/gpu-numa-hook/config.toml");
  } catch (const Failure& f) {
    return f.what();
  }
  return "";
}

TEST_CASE("defaults when the file is empty") {
  Config c = parse_config("", "x.toml");
  CHECK(c.policy.missing_node == MissingNodePolicy::patch);
  CHECK(c.policy.gpu_affinity == AffinityPolicy::ignore);
  CHECK(c.policy.explicit_mems == ExplicitMemsPolicy::widen);
  CHECK(c.policy.on_error == OnErrorPolicy::allow);
  CHECK(c.log.file == "/var/log/gpu-numa-hook.log");
  CHECK(c.lock_path == "/run/gpu-numa-hook.lock");
  CHECK(c.deadline_ms == 5000);
}

TEST_CASE("every section read") {
  Config c = parse_config(R"(
[policy]
missing-node = "refuse"
gpu-affinity = "warn"
explicit-mems = "widen"
on-error = "refuse"
deadline-ms = 2000
[log]
file = "/tmp/h.log"
level = "debug"
format = "json"
syslog = true
[lock]
path = "/run/x.lock"
[chain]
next-hook = "/usr/bin/nvidia-container-runtime-hook"
timeout-ms = 10000
[check]
fix = true
[[topology.gpu]]
minor = 3
memory-node = 252
[[topology.gpu]]
uuid = "GPU-abc"
affinity-node = 1
)",
                          "x.toml");
  CHECK(c.policy.missing_node == MissingNodePolicy::refuse);
  CHECK(c.policy.gpu_affinity == AffinityPolicy::warn);
  CHECK(c.policy.explicit_mems == ExplicitMemsPolicy::widen);
  CHECK(c.policy.on_error == OnErrorPolicy::refuse);
  CHECK(c.deadline_ms == 2000);
  CHECK(c.log.format == LogFormat::json);
  CHECK(c.log.syslog);
  CHECK(c.next_hook == "/usr/bin/nvidia-container-runtime-hook");
  CHECK(c.check_fix);
  REQUIRE(c.overrides.size() == 2);
  CHECK(*c.overrides[0].minor == 3u);
  CHECK(*c.overrides[0].memory_node == 252);
  CHECK(c.overrides[1].uuid == "GPU-abc");
}

// Every problem of a parse, as `config check` prints them.
static std::vector<std::string> problems_of(const std::string& toml) {
  std::vector<std::string> out;
  for (const auto& p : parse_config(toml, "/etc/gpu-numa-hook/config.toml").problems) out.push_back(describe(p));
  return out;
}
using Lines = std::vector<std::string>;
const std::string kF = "config /etc/gpu-numa-hook/config.toml: ";

TEST_CASE("not TOML at all: the whole file fails, with its line and column") {
  CHECK(error_of("[policy\n").find("config /etc/gpu-numa-hook/config.toml: line 1, column 8") == 0);
  CHECK(error_of("{\"runtimes\": {}}\n").find("line 1") != std::string::npos);
}

TEST_CASE("a typo never switches the file off: unknown keys ignored, every valid key honoured") {
  Config c = parse_config("[policy]\non-error = \"refuse\"\nbogus = 1\nmissing-node = \"warn\"\n", "f.toml");
  CHECK(c.policy.on_error == OnErrorPolicy::refuse);
  CHECK(c.policy.missing_node == MissingNodePolicy::warn);
  REQUIRE(c.problems.size() == 1);
  CHECK(c.problems[0].file == "f.toml");
  CHECK(c.problems[0].line == 3);
  CHECK(c.problems[0].key == "policy.bogus");
  CHECK(describe(c.problems[0]) ==
        "config f.toml: line 3: policy.bogus: unknown key, ignored (allowed here: missing-node, gpu-affinity, "
        "explicit-mems, on-error, deadline-ms, cuda-requirement)");
  CHECK(problems_of("[loging]\nfile = \"\"\n[lock]\npath = \"/run/l\"\n") ==
        Lines{kF + "line 1: loging: unknown key, ignored (allowed here: policy, log, lock, chain, topology, check, "
                   "runtime, nvml, systemd)"});
  CHECK(parse_config("[loging]\n[lock]\npath = \"/run/l\"\n", "f").lock_path == "/run/l");
  CHECK(problems_of("[nvml]\nlib = \"/x\"\n") ==
        Lines{kF + "line 2: nvml.lib: unknown key, ignored (allowed here: cache, probe, library, driver-root, timeout-ms, refresh-wait-ms)"});
}

TEST_CASE("a typo never switches off a file the plain reader honours: non-ASCII comments, triple quotes in a comment") {
  // Clean, these files take the plain reader's path; a mistyped key sends them to toml++ for its
  // line number. Both paths must honour them alike, or one typo drops the operator's policy.
  for (const std::string head : {std::string("[policy]\non-error = \"refuse\" # refus\xc3\xa9 si le n\xc5\x93ud manque\n"),
                                 std::string("# multi-line strings (\"\"\") are not used here \xe2\x80\x94 none\n"
                                             "[policy]\non-error = \"refuse\"\n")}) {
    CAPTURE(head);
    CHECK(parse_config(head, "f.toml").policy.on_error == OnErrorPolicy::refuse);
    Config c = parse_config(head + "misssing-node = \"warn\"\n", "f.toml");
    CHECK(c.policy.on_error == OnErrorPolicy::refuse);
    REQUIRE(c.problems.size() == 1);
    CHECK(describe(c.problems[0]).find("policy.misssing-node: unknown key, ignored") != std::string::npos);
    CHECK(c.problems[0].line == (head[0] == '#' ? 4 : 3));
  }
}

TEST_CASE("a bad value leaves that one key at its default, named with line, key and what is allowed") {
  Config c = parse_config("[policy]\non-error = \"refsue\"\nmissing-node = \"refuse\"\n", "f");
  CHECK(c.policy.on_error == OnErrorPolicy::allow);
  CHECK(c.policy.missing_node == MissingNodePolicy::refuse);
  CHECK(problems_of("[policy]\nmissing-node = \"fix\"\n") ==
        Lines{kF + "line 2: policy.missing-node: 'fix' is not one of patch, refuse, warn: the default (patch) is used"});
  CHECK(problems_of("[policy]\nmissing-node = \"refuse\"\ndeadline-ms = \"5\"\n") ==
        Lines{kF + "line 3: policy.deadline-ms: must be an integer: the default is used"});
  Config d = parse_config("[policy]\ndeadline-ms = 1\n[chain]\ntimeout-ms = 200\n", "f");
  CHECK(d.deadline_ms == 5000);
  CHECK(d.chain_timeout_ms == 200);
  CHECK(problems_of("[policy]\ndeadline-ms = 1\n") ==
        Lines{kF + "line 2: policy.deadline-ms: 1 is out of range 100-600000: the default is used"});
  CHECK(problems_of("[log]\nfile = \"relative.log\"\nlevel = \"loud\"\nformat = \"xml\"\nsyslog = \"yes\"\n") ==
        Lines{kF + "line 2: log.file: 'relative.log' must be an absolute path or \"\": the default is used",
              kF + "line 3: log.level: 'loud' is not one of trace, debug, info, warn, error, off: the default (info) is used",
              kF + "line 4: log.format: 'xml' is not one of text, json: the default (text) is used",
              kF + "line 5: log.syslog: must be true or false: the default is used"});
  Config l = parse_config("[log]\nfile = \"relative.log\"\nlevel = \"debug\"\n", "f");
  CHECK(l.log.file == "/var/log/gpu-numa-hook.log");
  CHECK(l.log.level == "debug");
  CHECK(problems_of("policy = 3\n") == Lines{kF + "line 1: policy: must be a table ([policy]), ignored"});
  CHECK(problems_of("[check]\nfix = 1\n") == Lines{kF + "line 2: check.fix: must be true or false: the default is used"});
}

TEST_CASE("[[topology.gpu]]: an entry with a problem is left out whole, the others kept") {
  Config c = parse_config("[[topology.gpu]]\nmemory-node = 1\n[[topology.gpu]]\nminor = 0\n"
                          "[[topology.gpu]]\nminor = 999\nmemory-node = 1\n[[topology.gpu]]\nminor = 2\nmemory-node = 3\nnote = \"x\"\n",
                          "/etc/gpu-numa-hook/config.toml");
  REQUIRE(c.overrides.size() == 1);
  CHECK(*c.overrides[0].minor == 2u);
  CHECK(*c.overrides[0].memory_node == 3);
  Lines got;
  for (const auto& p : c.problems) got.push_back(describe(p));
  CHECK(got == Lines{kF + "line 1: topology.gpu[0]: needs exactly one of minor, uuid, bus-id: this [[topology.gpu]] entry is ignored",
                     kF + "line 3: topology.gpu[1]: sets neither memory-node nor affinity-node: this [[topology.gpu]] entry is ignored",
                     kF + "line 6: topology.gpu[2].minor: 999 is out of range 0-254: this [[topology.gpu]] entry is ignored",
                     kF + "line 11: topology.gpu[3].note: unknown key, ignored (allowed here: minor, uuid, bus-id, memory-node, affinity-node)"});
}

TEST_CASE("no problems: an empty list, nothing recorded") {
  CHECK(parse_config("[policy]\non-error = \"refuse\"\n", "f").problems.empty());
}

TEST_CASE("the shipped config/config.toml parses and documents exactly the defaults") {
  std::string path = std::string(GNH_SOURCE_DIR) + "/config/config.toml";
  std::ifstream file(path);
  REQUIRE(file);
  std::stringstream text;
  text << file.rdbuf();
  Config shipped = parse_config(text.str(), path);
  Config defaults;
  CHECK(shipped.policy.missing_node == defaults.policy.missing_node);
  CHECK(shipped.policy.gpu_affinity == defaults.policy.gpu_affinity);
  CHECK(shipped.policy.explicit_mems == defaults.policy.explicit_mems);
  CHECK(shipped.policy.on_error == defaults.policy.on_error);
  CHECK(shipped.policy.cuda_requirement == defaults.policy.cuda_requirement);
  CHECK(shipped.deadline_ms == defaults.deadline_ms);
  CHECK(shipped.log.file == defaults.log.file);
  CHECK(shipped.log.level == defaults.log.level);
  CHECK(shipped.log.format == defaults.log.format);
  CHECK(shipped.log.syslog == defaults.log.syslog);
  CHECK(shipped.lock_path == defaults.lock_path);
  CHECK(shipped.next_hook == defaults.next_hook);
  CHECK(shipped.chain_timeout_ms == defaults.chain_timeout_ms);
  CHECK(shipped.check_fix == defaults.check_fix);
  CHECK(shipped.systemd_allowed_memory_nodes == defaults.systemd_allowed_memory_nodes);
  CHECK(shipped.runtime.next == defaults.runtime.next);
  CHECK(shipped.runtime.hook == defaults.runtime.hook);
  CHECK(shipped.overrides.empty());
  CHECK(shipped.problems.empty());
}

TEST_CASE("[policy] cuda-requirement: refuse by default, warn, off, bad values named") {
  CHECK(Config{}.policy.cuda_requirement == CudaRequirementPolicy::refuse);
  CHECK(parse_config("[policy]\ncuda-requirement = \"warn\"\n", "t.toml").policy.cuda_requirement == CudaRequirementPolicy::warn);
  CHECK(parse_config("[policy]\ncuda-requirement = \"off\"\n", "t.toml").policy.cuda_requirement == CudaRequirementPolicy::off);
  Config bad = parse_config("[policy]\ncuda-requirement = \"maybe\"\n", "t.toml");
  CHECK(bad.policy.cuda_requirement == CudaRequirementPolicy::refuse);  // a bad value keeps the default
  REQUIRE(bad.problems.size() == 1);
  CHECK(describe(bad.problems[0]).find("policy.cuda-requirement: 'maybe' is not one of refuse, warn, off") !=
        std::string::npos);
}

TEST_CASE("[systemd] allowed-memory-nodes: on by default, a boolean, anything else a problem with the default kept") {
  CHECK(parse_config("", "t.toml").systemd_allowed_memory_nodes);
  CHECK_FALSE(parse_config("[systemd]\nallowed-memory-nodes = false\n", "t.toml").systemd_allowed_memory_nodes);
  Config c = parse_config("[systemd]\nallowed-memory-nodes = \"no\"\n", "t.toml");
  CHECK(c.systemd_allowed_memory_nodes);
  REQUIRE(c.problems.size() == 1);
  CHECK(c.problems[0].key == "systemd.allowed-memory-nodes");
  REQUIRE(problems_of("[systemd]\nallowed-memory-node = false\n").size() == 1);
  CHECK(problems_of("[systemd]\nallowed-memory-node = false\n")[0].find("systemd.allowed-memory-node: unknown key") !=
        std::string::npos);
}

TEST_CASE("[runtime] next and hook: names or absolute paths, bad values named") {
  Config c = parse_config("[runtime]\nnext = [\"/usr/bin/nvidia-container-runtime\", \"runc\"]\nhook = \"/opt/h\"\n", "t.toml");
  CHECK(c.runtime.next == std::vector<std::string>{"/usr/bin/nvidia-container-runtime", "runc"});
  CHECK(c.runtime.hook == "/opt/h");
  CHECK(problems_of("[runtime]\nnext = []\n") ==
        Lines{kF + "line 2: runtime.next: must be a non-empty array of runtime names or absolute paths: the default (runc, crun) is used"});
  Config rel = parse_config("[runtime]\nnext = [\"runc\", \"bin/runc\"]\n", "t.toml");
  CHECK(rel.runtime.next == std::vector<std::string>{"runc", "crun"});
  CHECK(describe(rel.problems.at(0)) ==
        "config t.toml: line 2: runtime.next: 'bin/runc' must be a plain name or an absolute path: the default (runc, crun) is used");
  CHECK(problems_of("[runtime]\nhook = \"gpu-numa-hook\"\n") ==
        Lines{kF + "line 2: runtime.hook: 'gpu-numa-hook' must be an absolute path: the default is used"});
}

TEST_CASE("comment-only lines are blanked before toml++, keeping line numbers") {
  CHECK(gnh::blank_comment_lines("a = 1\n").has_value() == false);
  CHECK(gnh::blank_comment_lines("# x\n  # y\r\n[policy]\nmissing-node = \"refuse\" # z\n").value() ==
        "\n\n[policy]\nmissing-node = \"refuse\" # z\n");
  CHECK(gnh::blank_comment_lines("# x\ns = \"\"\"\n# in a string\n\"\"\"\n").has_value() == false);
  CHECK(gnh::blank_comment_lines("# bad \x01 byte\n").has_value() == false);
  // an error after a blanked comment still names its own line
  CHECK_THROWS_WITH_AS(gnh::parse_config("# one\n# two\n[policy]\nmissing-node = maybe\n", "c.toml"),
                       doctest::Contains("line 4"), gnh::Failure);
  CHECK(describe(gnh::parse_config("# one\n# two\n[policy]\nmissing-node = \"maybe\"\n", "c.toml").problems.at(0))
            .find("config c.toml: line 4: policy.missing-node") == 0);
  // the shipped config reads the same either way
  std::ifstream file(std::string(GNH_SOURCE_DIR) + "/config/config.toml");
  std::stringstream shipped;
  shipped << file.rdbuf();
  CHECK(gnh::blank_comment_lines(shipped.str()).has_value());
}

TEST_CASE("[nvml]: the NVML cache, the probe and its timeout (issue 20)") {
  Config d = parse_config("", "x");
  CHECK(d.nvml.cache_path() == "/run/gpu-numa-hook/nvml-cache.json");
  CHECK(d.nvml.probe == "");
  CHECK(d.nvml.probe_timeout_ms == 30000);
  Config c = parse_config("[nvml]\ncache = \"/var/run/x.json\"\nprobe = \"/opt/p\"\ntimeout-ms = 500\n", "x");
  CHECK(c.nvml.cache_path() == "/var/run/x.json");
  CHECK(c.nvml.probe == "/opt/p");
  CHECK(c.nvml.probe_timeout_ms == 500);
  CHECK(d.nvml.driver_root == "");
  // how long a MIG start waits for topology --follow: 2 s by default, 0 never asks
  CHECK(d.nvml.refresh_wait_ms == 2000);
  CHECK(parse_config("[nvml]\nrefresh-wait-ms = 0\n", "x").nvml.refresh_wait_ms == 0);
  CHECK(problems_of("[nvml]\nrefresh-wait-ms = 90000\n").size() == 1);
  CHECK(parse_config("[nvml]\nrefresh-wait-ms = 90000\n", "x").nvml.refresh_wait_ms == 2000);
  CHECK(parse_config("[nvml]\ndriver-root = \"/run/nvidia/driver\"\n", "x").nvml.driver_root == "/run/nvidia/driver");
  CHECK(problems_of("[nvml]\ncache = \"x.json\"\n") ==
        Lines{kF + "line 2: nvml.cache: 'x.json' must be an absolute path: the default is used"});
  CHECK(problems_of("[nvml]\nprobe = \"bin/p\"\n") ==
        Lines{kF + "line 2: nvml.probe: 'bin/p' must be an absolute path or \"\": the default is used"});
  CHECK(parse_config("[nvml]\nlibrary = \"/usr/local/nvidia/lib64/libnvidia-ml.so.1\"\n", "x").nvml.library ==
        "/usr/local/nvidia/lib64/libnvidia-ml.so.1");
  CHECK(problems_of("[nvml]\nlibrary = \"libnvidia-ml.so.1\"\n") ==
        Lines{kF + "line 2: nvml.library: 'libnvidia-ml.so.1' must be an absolute path or \"\": the default is used"});
}

TEST_CASE("describe_all: every problem on one line, the file named once") {
  CHECK(describe_all({}) == "");
  Config c = parse_config("bogus = 1\n[policy]\non-error = \"no\"\n", "f.toml");
  CHECK(describe_all(c.problems) ==
        "config f.toml: line 1: bogus: unknown key, ignored (allowed here: policy, log, lock, chain, topology, check, "
        "runtime, nvml, systemd); line 3: policy.on-error: 'no' is not one of allow, refuse: the default (allow) is used");
}
