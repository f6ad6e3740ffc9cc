// Whether a node's GPU pods fail closed when the NRI plugin is absent: only containerd 2.2 and
// later (NRI 0.10) can refuse them, and only with NRI's default validator on and the pod annotated
// required-plugins.noderesource.dev: ["gpu-numa"] (the require-plugin component adds it).
#pragma once

#include <string>

#include "status/node_status.h"

namespace gnh {

// status's note on it, "" where it does not apply (no NRI plugin on this node, a runtime other than
// containerd, or a release the plugin's state does not name).
std::string nri_fail_closed_note(const StatusFacts& f);

}  // namespace gnh
