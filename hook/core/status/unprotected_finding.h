// `status`: running GPU containers without our hook, judged from what runs (their real specs), not
// from how the node is configured. Each one makes the node not protected, one line per container
// (check/unprotected_containers.h). Pure.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "check/unprotected_containers.h"

namespace gnh {

struct StatusVerdict;

struct RunningContainersFact {
  bool read = false;
  std::string error;    // why the runtimes' records could not be read ("" when read)
  size_t running = 0;   // running containers whose spec was read
  UnprotectedScan scan;
};

// One not-protected line per unprotected GPU container; "cannot tell" when nothing could be read;
// a note per spec that does not parse.
void judge_running_containers(const RunningContainersFact& f, StatusVerdict* v);
// "containers: N running, all GPU containers with the hook" / "... M GPU container(s) without it".
std::string running_containers_text(const RunningContainersFact& f);
nlohmann::json running_containers_json(const RunningContainersFact& f);

}  // namespace gnh
