// The hook's pipeline from a container's config.json (and pid) to a Decision: request -> driver
// -> cgroup -> decision. Shared by hook mode (which then acts) and `explain` (which only prints).
#pragma once

#include "config/config.h"
#include "decide/evaluation.h"
#include "host/fs/host_fs.h"
#include "spec.h"

namespace gnh {

// What the caller shows besides the decision. The hook logs the decision alone, so it reads no more
// of the host than the decision needs; explain prints every fact of the container's GPUs.
enum class EvaluationDetail { decision, report };

// pid > 0: the container's cgroup from /proc/<pid>/cgroup. pid == 0: predicted from
// linux.cgroupsPath (the nearest existing ancestor's mems are what a runtime would copy).
// Throws Failure with context for anything the hook cannot read.
Evaluation evaluate(const HostFs& fs, const Config& config, const oci::Spec& spec, int pid,
                    EvaluationDetail detail = EvaluationDetail::report);

}  // namespace gnh
