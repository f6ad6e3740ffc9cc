// hook_bench: whole-process wall time of programs run the way a runtime runs a hook, interleaved.
//
//   hook_bench [--rounds N] [--warmup N] [--seed N] [--raw FILE] [--title TEXT] PLAN
//
// PLAN is a text file of tab-separated lines (blank lines and lines starting with # are ignored):
//   variant NAME STDIN RESET ARGV0 [ARGS...]   a program to time; STDIN is a file fed as stdin
//                                             ("-" = /dev/null); RESET is a reset.tsv
//                                             ("PATH<TAB>CONTENT" lines, \n escaped) whose files
//                                             are rewritten before every run of this variant,
//                                             outside the timed region ("-" = none)
//   variant-other ...                          the same, started as SCHED_OTHER when the driver
//                                             runs real-time (container runtimes: a SCHED_FIFO task
//                                             cannot join a cpu cgroup without an RT budget)
//   cmp NAME BASELINE MAXRATIO TARGET-TEXT     a comparison: median(NAME) / median(BASELINE),
//                                             met when it is <= MAXRATIO (also shown: the p99
//                                             ratio and the median of the per-round ratios)
//   rss NAME MAX-KIB TARGET-TEXT               met when NAME's peak RSS is <= MAX-KIB
//   ms NAME MAX-MS TARGET-TEXT                 met when NAME's median is <= MAX-MS
//
// Each round runs every variant once, in an order shuffled per round (seeded), so drift and
// neighbours' load fall on all variants alike. A run is posix_spawn + wait4: the time is
// CLOCK_MONOTONIC from just before the spawn to just after wait4 returns (whole process: exec,
// dynamic linking, static initialisation, the work, exit). The peak RSS is VmHWM of the started
// process at its exit, from 3 untimed runs under ptrace after the timed rounds (the largest). stdout goes to /dev/null, stderr to a per-variant file
// (shown once when a run exits non-zero). Warm-up rounds are run and discarded.
// Output: a markdown table of the variants, one of the comparisons, and with --raw every sample.
#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace {

struct Variant {
  std::string name;
  std::string stdin_path;
  std::vector<std::pair<std::string, std::string>> reset;  // file, content
  std::vector<std::string> argv;
  std::string err_path;
  std::vector<double> ms;
  std::vector<long> rss_kib;       // VmHWM at exit, from the untimed traced runs
  bool sched_other = false;  // "variant-other": started as SCHED_OTHER even when the driver is RT
  int failures = 0;
  int first_failure_status = 0;
};

struct Target {
  std::string kind;  // cmp | rss | ms
  std::string name, baseline, text;
  double limit = 0;
};

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(line);
  while (std::getline(in, cur, '\t')) out.push_back(cur);
  return out;
}

std::string unescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      char c = s[++i];
      out += c == 'n' ? '\n' : c == 't' ? '\t' : c;
    } else {
      out += s[i];
    }
  }
  return out;
}

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "hook_bench: %s\n", what.c_str());
  std::exit(2);
}

std::vector<std::pair<std::string, std::string>> load_reset(const std::string& path) {
  std::vector<std::pair<std::string, std::string>> out;
  std::ifstream in(path);
  if (!in) die("cannot read reset file " + path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    auto tab = line.find('\t');
    if (tab == std::string::npos) die("bad reset line in " + path + ": " + line);
    out.emplace_back(line.substr(0, tab), unescape(line.substr(tab + 1)));
  }
  return out;
}

void apply_reset(const Variant& v) {
  for (const auto& [file, content] : v.reset) {
    int fd = ::open(file.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) die("reset: cannot open " + file + ": " + std::strerror(errno));
    if (::write(fd, content.data(), content.size()) != static_cast<ssize_t>(content.size()))
      die("reset: cannot write " + file);
    ::close(fd);
  }
}

double now_ms() {
  struct timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

// One run; returns false when the program did not exit 0.
bool run_once(Variant& v, bool record) {
  if (!v.reset.empty()) apply_reset(v);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, v.stdin_path.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, v.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  if (v.sched_other) {
    struct sched_param sp = {};
    posix_spawnattr_setschedpolicy(&attr, SCHED_OTHER);
    posix_spawnattr_setschedparam(&attr, &sp);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSCHEDULER);
  }
  std::vector<char*> argv;
  for (auto& a : v.argv) argv.push_back(a.data());
  argv.push_back(nullptr);

  double t0 = now_ms();
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0], &fa, &attr, argv.data(), environ);
  if (rc != 0) die("cannot start " + v.argv[0] + ": " + std::strerror(rc));
  int status = 0;
  struct rusage ru = {};
  while (::wait4(pid, &status, 0, &ru) < 0) {
    if (errno != EINTR) die("wait4 failed");
  }
  double t1 = now_ms();
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);

  bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!ok) {
    if (v.failures++ == 0) {
      v.first_failure_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      std::ifstream e(v.err_path);
      std::stringstream ss;
      ss << e.rdbuf();
      std::fprintf(stderr, "hook_bench: %s exited %d; stderr:\n%s\n", v.name.c_str(), v.first_failure_status,
                   ss.str().c_str());
    }
  }
  if (record) v.ms.push_back(t1 - t0);
  return ok;
}

long vm_hwm_kib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::atol(line.c_str() + 6);
  return -1;
}

// Peak RSS of the program itself: an untimed run under ptrace, stopped at its exit
// (PTRACE_EVENT_EXIT) to read VmHWM of its own memory. wait4's ru_maxrss cannot tell: exec records
// the pre-exec memory's high-water mark, which for a spawned child is this driver's. Only the
// started process is traced (not the children of a shell or a runtime).
long traced_peak_rss_kib(Variant& v) {
  if (!v.reset.empty()) apply_reset(v);
  std::vector<char*> argv;
  for (auto& a : v.argv) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) die("fork failed");
  if (pid == 0) {
    int in = ::open(v.stdin_path.c_str(), O_RDONLY);
    int out = ::open("/dev/null", O_WRONLY);
    int err = ::open(v.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in < 0 || out < 0 || err < 0) _exit(126);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    if (v.sched_other) {
      struct sched_param sp = {};
      ::sched_setscheduler(0, SCHED_OTHER, &sp);
    }
    ::ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
    ::execv(argv[0], argv.data());  // stops with SIGTRAP once the new program is loaded
    _exit(127);
  }
  int status = 0;
  if (::waitpid(pid, &status, 0) < 0 || !WIFSTOPPED(status)) return -1;
  ::ptrace(PTRACE_SETOPTIONS, pid, nullptr, reinterpret_cast<void*>(PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL));
  ::ptrace(PTRACE_CONT, pid, nullptr, nullptr);
  long hwm = -1;
  while (::waitpid(pid, &status, 0) == pid) {
    if (WIFEXITED(status) || WIFSIGNALED(status)) break;
    if (!WIFSTOPPED(status)) continue;
    int sig = WSTOPSIG(status);
    if (sig == SIGTRAP && (status >> 16) == PTRACE_EVENT_EXIT) {
      hwm = vm_hwm_kib(pid);
      sig = 0;
    } else if (sig == SIGTRAP) {
      sig = 0;  // the stop after a further execve of the traced process
    }
    ::ptrace(PTRACE_CONT, pid, nullptr, reinterpret_cast<void*>(static_cast<long>(sig)));
  }
  return hwm;
}

double quantile_nearest_rank(std::vector<double> xs, double q) {
  if (xs.empty()) return NAN;
  std::sort(xs.begin(), xs.end());
  size_t rank = static_cast<size_t>(std::ceil(q * xs.size()));
  if (rank < 1) rank = 1;
  return xs[rank - 1];
}

double median(std::vector<double> xs) {
  if (xs.empty()) return NAN;
  std::sort(xs.begin(), xs.end());
  size_t n = xs.size();
  return n % 2 ? xs[n / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2;
}

// How far the ratio of medians could move by chance: a 95% percentile bootstrap over rounds (both
// variants resampled by the same rounds, as they ran). A 5% target in the runtimes' spread of
// +-25% needs about 1,000 rounds before this interval is narrower than the target's margin.
std::pair<double, double> ratio_interval(const std::vector<double>& v, const std::vector<double>& b, unsigned seed) {
  const size_t n = std::min(v.size(), b.size());
  if (n == 0) return {NAN, NAN};
  std::mt19937 rng(seed ^ 0x9e3779b9u);
  std::uniform_int_distribution<size_t> pick(0, n - 1);
  std::vector<double> ratios, rv(n), rb(n);
  for (int k = 0; k < 1000; ++k) {
    for (size_t i = 0; i < n; ++i) {
      const size_t r = pick(rng);
      rv[i] = v[r];
      rb[i] = b[r];
    }
    ratios.push_back(median(rv) / median(rb));
  }
  std::sort(ratios.begin(), ratios.end());
  return {ratios[25], ratios[974]};
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 300, warmup = 10;
  unsigned seed = 1;
  std::string raw_path, plan_path, title;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) die(a + " needs a value");
      return argv[++i];
    };
    if (a == "--rounds") rounds = std::atoi(next().c_str());
    else if (a == "--warmup") warmup = std::atoi(next().c_str());
    else if (a == "--seed") seed = static_cast<unsigned>(std::atoi(next().c_str()));
    else if (a == "--raw") raw_path = next();
    else if (a == "--title") title = next();
    else if (!a.empty() && a[0] != '-' && plan_path.empty()) plan_path = a;
    else die("usage: hook_bench [--rounds N] [--warmup N] [--seed N] [--raw FILE] [--title TEXT] PLAN");
  }
  if (plan_path.empty() || rounds < 1) die("usage: hook_bench [--rounds N] [--warmup N] [--seed N] [--raw FILE] PLAN");

  std::vector<Variant> variants;
  std::vector<Target> targets;
  {
    std::ifstream in(plan_path);
    if (!in) die("cannot read plan " + plan_path);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      auto f = split_tabs(line);
      if (f[0] == "variant" || f[0] == "variant-other") {
        if (f.size() < 5) die("variant line needs NAME STDIN RESET ARGV0: " + line);
        Variant v;
        v.name = f[1];
        v.sched_other = f[0] == "variant-other";
        v.stdin_path = f[2] == "-" ? "/dev/null" : f[2];
        if (f[3] != "-") v.reset = load_reset(f[3]);
        v.argv.assign(f.begin() + 4, f.end());
        char tmpl[] = "/tmp/hook-bench-err-XXXXXX";
        int fd = ::mkstemp(tmpl);
        if (fd < 0) die("mkstemp failed");
        ::close(fd);
        v.err_path = tmpl;
        variants.push_back(std::move(v));
      } else if (f[0] == "cmp" && f.size() >= 5) {
        targets.push_back({"cmp", f[1], f[2], f[4], std::atof(f[3].c_str())});
      } else if ((f[0] == "rss" || f[0] == "ms") && f.size() >= 4) {
        targets.push_back({f[0], f[1], "", f[3], std::atof(f[2].c_str())});
      } else {
        die("bad plan line: " + line);
      }
    }
  }
  if (variants.empty()) die("the plan has no variants");
  auto find = [&](const std::string& n) -> Variant* {
    for (auto& v : variants)
      if (v.name == n) return &v;
    return nullptr;
  };
  for (const auto& t : targets)
    if (!find(t.name) || (t.kind == "cmp" && !find(t.baseline))) die("target names an unknown variant: " + t.name);

  std::mt19937 rng(seed);
  std::vector<size_t> order(variants.size());
  std::iota(order.begin(), order.end(), 0);
  double start = now_ms();
  for (int r = 0; r < warmup + rounds; ++r) {
    std::shuffle(order.begin(), order.end(), rng);
    for (size_t i : order) run_once(variants[i], r >= warmup);
    if ((r + 1) % 50 == 0)
      std::fprintf(stderr, "hook_bench: %s round %d/%d (%.0f s)\n", title.c_str(), r + 1, warmup + rounds,
                   (now_ms() - start) / 1e3);
  }

  // Peak RSS: a few untimed traced runs per variant, after the timed rounds.
  for (auto& v : variants)
    for (int i = 0; i < 3; ++i) v.rss_kib.push_back(traced_peak_rss_kib(v));

  if (!raw_path.empty()) {
    std::ofstream raw(raw_path);
    raw << "variant\tround\tms\trss_kib\n";
    for (const auto& v : variants)
      for (size_t i = 0; i < v.ms.size(); ++i)
        raw << v.name << '\t' << i << '\t' << v.ms[i] << '\t' << (i < v.rss_kib.size() ? v.rss_kib[i] : 0) << '\n';
  }

  std::printf("%s%s%d interleaved rounds (+%d warm-up, discarded), order shuffled per round (seed %u)\n\n",
              title.c_str(), title.empty() ? "" : ": ", rounds, warmup, seed);
  std::printf("| variant | runs | median ms | p99 ms | min ms | peak RSS KiB | non-zero exits |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|\n");
  for (const auto& v : variants) {
    long rss = v.rss_kib.empty() ? 0 : *std::max_element(v.rss_kib.begin(), v.rss_kib.end());
    double mn = v.ms.empty() ? NAN : *std::min_element(v.ms.begin(), v.ms.end());
    std::printf("| %s | %zu | %.3f | %.3f | %.3f | %ld | %d |\n", v.name.c_str(), v.ms.size(), median(v.ms),
                quantile_nearest_rank(v.ms, 0.99), mn, rss, v.failures);
  }
  int failed_targets = 0;
  if (!targets.empty()) {
    std::printf("\n| target | measured | median ratio | 95%% CI | p99 ratio | paired ratio | limit | met |\n");
    std::printf("|---|---|---:|---:|---:|---:|---:|---|\n");
    for (const auto& t : targets) {
      const Variant& v = *find(t.name);
      bool met = false;
      if (t.kind == "cmp") {
        const Variant& b = *find(t.baseline);
        double r = median(v.ms) / median(b.ms);
        double r99 = quantile_nearest_rank(v.ms, 0.99) / quantile_nearest_rank(b.ms, 0.99);
        // Both ran once in every round: the median of the per-round ratios.
        std::vector<double> paired;
        for (size_t i = 0; i < v.ms.size() && i < b.ms.size(); ++i) paired.push_back(v.ms[i] / b.ms[i]);
        met = r <= t.limit;
        auto [lo, hi] = ratio_interval(v.ms, b.ms, seed);
        std::printf("| %s | %s / %s | %.3fx | %.3f-%.3f | %.2fx | %.3fx | <= %.2fx | %s |\n", t.text.c_str(),
                    t.name.c_str(), t.baseline.c_str(), r, lo, hi, r99, median(paired), t.limit, met ? "yes" : "**no**");
      } else if (t.kind == "rss") {
        long rss = v.rss_kib.empty() ? 0 : *std::max_element(v.rss_kib.begin(), v.rss_kib.end());
        met = rss <= t.limit;
        std::printf("| %s | %s peak RSS %ld KiB | | | | | <= %.0f KiB | %s |\n", t.text.c_str(), t.name.c_str(), rss,
                    t.limit, met ? "yes" : "**no**");
      } else {
        double m = median(v.ms);
        met = m <= t.limit;
        std::printf("| %s | %s median %.1f ms | | | | | <= %.0f ms | %s |\n", t.text.c_str(), t.name.c_str(), m, t.limit,
                    met ? "yes" : "**no**");
      }
      if (!met) ++failed_targets;
    }
  }
  int failed_runs = 0;
  for (auto& v : variants) {
    failed_runs += v.failures;
    ::unlink(v.err_path.c_str());
  }
  std::printf("\n");
  std::fflush(stdout);
  // Exit status: 0 all runs exited 0; 1 some run failed (the numbers are then suspect). Missed
  // targets are reported in the table, not through the status: this is a measurement, not a test.
  return failed_runs ? 1 : 0;
}
