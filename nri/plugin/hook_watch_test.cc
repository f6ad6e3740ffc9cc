#include "plugin/hook_watch.h"

#include <doctest/doctest.h>

#include <vector>

using gnh::LogRecord;
using gnh::nri::HookBinary;
using gnh::nri::HookWatch;

namespace {

struct Watched {
  HookBinary kept;  // what the state file says
  std::vector<LogRecord> logged;
  HookWatch watch{[this](const HookBinary& h) {
                    bool changed = !(h.path == kept.path && h.usable == kept.usable && h.problem == kept.problem);
                    kept = h;
                    return changed;
                  },
                  [this](LogRecord r) { logged.push_back(std::move(r)); }};
};

HookBinary usable() { return {"/usr/bin/gpu-numa-hook", true, "", ""}; }
HookBinary missing() { return {"/usr/bin/gpu-numa-hook", false, "No such file or directory", ""}; }

}  // namespace

TEST_CASE("hook watch: a usable hook at start is silent, each change of verdict said once") {
  Watched w;
  w.watch.seen(usable());
  CHECK(w.logged.empty());
  w.watch.seen(usable());
  CHECK(w.logged.empty());
  w.watch.seen(missing());
  w.watch.seen(missing());
  REQUIRE(w.logged.size() == 1);
  CHECK(w.logged[0].level == "error");
  CHECK(w.logged[0].action == "missing");
  CHECK(w.logged[0].msg ==
        "the hook /usr/bin/gpu-numa-hook is not usable on this node (No such file or directory): GPU containers start "
        "WITHOUT it until it is back (the DaemonSet's init container copies it; or point --hook at it)");
  w.watch.seen(usable());
  REQUIRE(w.logged.size() == 2);
  CHECK(w.logged[1].action == "present");
}

TEST_CASE("hook watch: a hook missing at start is said at start") {
  Watched w;
  w.watch.seen(missing());
  REQUIRE(w.logged.size() == 1);
  CHECK(w.logged[0].action == "missing");
}

TEST_CASE("hook watch: a probe short of our own resources keeps the verdict, said when it starts and ends") {
  Watched w;
  w.watch.seen(usable());
  HookBinary short_of_fds = usable();
  short_of_fds.unchecked = "Too many open files";
  w.watch.seen(short_of_fds);
  w.watch.seen(short_of_fds);
  REQUIRE(w.logged.size() == 1);
  CHECK(w.logged[0].level == "warn");
  CHECK(w.logged[0].action == "unchecked");
  CHECK(w.logged[0].msg.find("Too many open files, a shortage of this plugin's own, not of the hook") != std::string::npos);
  CHECK(w.kept.usable);
  w.watch.seen(usable());
  REQUIRE(w.logged.size() == 2);
  CHECK(w.logged[1].action == "checked");
}
