#include "prometheus_textfile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>

#include "failure.h"

namespace gnh {

namespace {

// Whole numbers without a fraction ("3", "1763700000"), anything else with full precision.
std::string format_value(double v) {
  char buf[64];
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// HELP text escapes backslash and newline (exposition format).
std::string escape_help(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

}  // namespace

std::string render_metrics(const std::vector<Metric>& metrics) {
  std::string s;
  for (const auto& m : metrics) {
    s += "# HELP " + m.name + " " + escape_help(m.help) + "\n";
    s += "# TYPE " + m.name + " " + m.type + "\n";
    s += m.name + " " + format_value(m.value) + "\n";
  }
  return s;
}

void write_file_atomically(const std::string& path, const std::string& text) {
  auto slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  // node_exporter reads only *.prom: a temp name not ending in .prom is never collected half-written.
  std::string tmp = dir + "/." + base + ".XXXXXX";
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) fail("cannot create a temporary file in " + dir + " for " + path + ": " + errno_text(errno));
  auto give_up = [&](const std::string& what) {
    int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    fail("cannot " + what + " " + tmp + " (for " + path + "): " + errno_text(err));
  };
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      give_up("write");
    }
    done += static_cast<size_t>(n);
  }
  if (::fchmod(fd, 0644) != 0) give_up("chmod");
  if (::fsync(fd) != 0) give_up("fsync");
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    fail("cannot close " + tmp + " (for " + path + "): " + errno_text(err));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    fail("cannot rename " + tmp + " to " + path + ": " + errno_text(err));
  }
}

}  // namespace gnh
