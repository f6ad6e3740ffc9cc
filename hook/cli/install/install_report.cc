#include "cli/install/install_report.h"

#include <cstdio>

#include "base/exit_code.h"
#include "report/json_schema.h"

namespace gnh::install_cli {

InstallReport g_report;

void said_file(const std::string& path, const char* action, const std::string& backup, const std::string& line,
               const std::string& diff) {
  if (!g_report.json) {
    std::fputs(line.c_str(), stdout);
    return;
  }
  nlohmann::json f = {{"path", path}, {"action", action}, {"backup", backup.empty() ? nlohmann::json(nullptr) : nlohmann::json(backup)}};
  if (!diff.empty()) f["diff"] = diff;
  g_report.files.push_back(f);
}

void said_note(const std::string& line) {
  if (g_report.json) g_report.notes.push_back(line);
  else std::printf("%s\n", line.c_str());
}

int finish_install(const InstallCommandOptions& o, bool changed, const std::string& restart) {
  if (g_report.json) {
    nlohmann::json j = {{"schema_version", kJsonSchemaVersion}, {"runtime", o.runtime}, {"uninstall", o.uninstall},
                        {"dry_run", o.dry_run}, {"changed", changed}, {"files", g_report.files},
                        {"notes", g_report.notes},
                        {"restart", changed && !o.dry_run ? nlohmann::json(restart) : nlohmann::json(nullptr)}};
    std::printf("%s\n", j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return as_int(ExitCode::ok);
  }
  if (o.dry_run) std::printf("dry run: nothing written\n");
  if (!changed) std::printf("nothing to do: %s\n", o.uninstall ? "not installed" : "already installed");
  else if (!o.dry_run) std::printf("%s\n", restart.c_str());
  return as_int(ExitCode::ok);
}
}  // namespace gnh::install_cli
