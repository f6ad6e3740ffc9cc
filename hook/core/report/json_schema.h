// The version every JSON object the tools print carries as "schema_version" (explain, topology,
// check, install, wait): a consumer can tell a changed meaning from added keys. Added keys keep
// it; a key whose meaning changes, or that goes away, bumps it.
#pragma once

namespace gnh {

constexpr int kJsonSchemaVersion = 1;

}  // namespace gnh
