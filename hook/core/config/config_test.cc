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

TEST_CASE("errors name the file, the key and what is allowed") {
  CHECK(error_of("[policy]\nmissing-node = \"fix\"\n") ==
        "config /etc/gpu-numa-hook/config.toml: policy.missing-node: 'fix' is not one of patch, refuse, warn");
  CHECK(error_of("[policy]\nmisssing-node = \"patch\"\n").find("policy.misssing-node: unknown key (allowed here:") !=
        std::string::npos);
  CHECK(error_of("[loging]\n").find("loging: unknown key") != std::string::npos);
  CHECK(error_of("[policy]\ndeadline-ms = \"5\"\n").find("must be an integer") != std::string::npos);
  CHECK(error_of("[policy]\ndeadline-ms = 1\n").find("out of range") != std::string::npos);
  CHECK(error_of("[log]\nfile = \"relative.log\"\n").find("absolute") != std::string::npos);
  CHECK(error_of("[[topology.gpu]]\nmemory-node = 1\n").find("exactly one of minor, uuid, bus-id") != std::string::npos);
  CHECK(error_of("[[topology.gpu]]\nminor = 0\n").find("neither memory-node nor affinity-node") != std::string::npos);
  CHECK(error_of("[policy\n").find("line 1") != std::string::npos);
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
  CHECK(shipped.runtime.next == defaults.runtime.next);
  CHECK(shipped.runtime.hook == defaults.runtime.hook);
  CHECK(shipped.overrides.empty());
}

TEST_CASE("[policy] cuda-requirement: refuse by default, warn, off, bad values named") {
  CHECK(Config{}.policy.cuda_requirement == CudaRequirementPolicy::refuse);
  CHECK(parse_config("[policy]\ncuda-requirement = \"warn\"\n", "t.toml").policy.cuda_requirement == CudaRequirementPolicy::warn);
  CHECK(parse_config("[policy]\ncuda-requirement = \"off\"\n", "t.toml").policy.cuda_requirement == CudaRequirementPolicy::off);
  CHECK_THROWS_WITH_AS(parse_config("[policy]\ncuda-requirement = \"maybe\"\n", "t.toml"),
                       doctest::Contains("policy.cuda-requirement"), Error);
}

TEST_CASE("[runtime] next and hook: names or absolute paths, bad values named") {
  Config c = parse_config("[runtime]\nnext = [\"/usr/bin/nvidia-container-runtime\", \"runc\"]\nhook = \"/opt/h\"\n", "t.toml");
  CHECK(c.runtime.next == std::vector<std::string>{"/usr/bin/nvidia-container-runtime", "runc"});
  CHECK(c.runtime.hook == "/opt/h");
  CHECK_THROWS_WITH_AS(parse_config("[runtime]\nnext = []\n", "t.toml"), doctest::Contains("runtime.next"), Error);
  CHECK_THROWS_WITH_AS(parse_config("[runtime]\nnext = [\"bin/runc\"]\n", "t.toml"), doctest::Contains("runtime.next"), Error);
  CHECK_THROWS_WITH_AS(parse_config("[runtime]\nhook = \"gpu-numa-hook\"\n", "t.toml"), doctest::Contains("runtime.hook"), Error);
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
  CHECK(error_of("[nvml]\ncache = \"x.json\"\n") ==
        "config /etc/gpu-numa-hook/config.toml: nvml.cache: 'x.json' must be an absolute path");
  CHECK(error_of("[nvml]\nprobe = \"bin/p\"\n") ==
        "config /etc/gpu-numa-hook/config.toml: nvml.probe: 'bin/p' must be an absolute path or \"\"");
  CHECK(parse_config("[nvml]\nlibrary = \"/usr/local/nvidia/lib64/libnvidia-ml.so.1\"\n", "x").nvml.library ==
        "/usr/local/nvidia/lib64/libnvidia-ml.so.1");
  CHECK(error_of("[nvml]\nlibrary = \"libnvidia-ml.so.1\"\n") ==
        "config /etc/gpu-numa-hook/config.toml: nvml.library: 'libnvidia-ml.so.1' must be an absolute path or \"\"");
  CHECK(error_of("[nvml]\nlib = \"/x\"\n").find("nvml.lib: unknown key") != std::string::npos);
}
