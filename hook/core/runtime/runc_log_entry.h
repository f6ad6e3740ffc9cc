// One line in runc's own --log file. containerd's runc shim reports a failed `runc create` with the
// last error it finds in that file, so a shim that stops before runc must write its reason there
// too, or Docker shows only an exit status. Pure.
#pragma once

#include <string>

namespace gnh {

// format "json": {"level":"error","msg":"...","time":"..."}; anything else: logrus text,
// time="..." level=error msg="...". Ends with a newline.
std::string runc_log_error_line(const std::string& format, const std::string& msg, const std::string& timestamp);

}  // namespace gnh
