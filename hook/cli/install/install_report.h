// What install tells: a line per file and note for a person, or (install --json) one object at
// the run's end.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "cli/commands.h"

namespace gnh::install_cli {

// install --json: what the run did, printed as one object at its end instead of the lines a
// person reads. One install per process, so one report.
struct InstallReport {
  bool json = false;
  nlohmann::json files = nlohmann::json::array();
  nlohmann::json notes = nlohmann::json::array();
};
extern InstallReport g_report;

// A file's outcome: the person's line, or an entry in the JSON report.
void said_file(const std::string& path, const char* action, const std::string& backup, const std::string& line,
               const std::string& diff = "");
void said_note(const std::string& line);
// The run's last words: dry run, nothing to do, or what to restart; or the JSON object.
int finish_install(const InstallCommandOptions& o, bool changed, const std::string& restart);

}  // namespace gnh::install_cli
