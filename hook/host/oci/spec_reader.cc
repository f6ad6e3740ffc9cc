#include "host/oci/spec_reader.h"

#include <cerrno>

#include "base/error.h"

namespace gnh {

oci::Spec read_bundle_spec(const HostFs& fs, const std::string& bundle) {
  auto text = fs.read(bundle + "/config.json", kMaxSpecBytes);
  if (!text) fail("bundle " + bundle.substr(0, 200) + " has no config.json", ENOENT);
  return oci::parse_spec(*text);
}

}  // namespace gnh
