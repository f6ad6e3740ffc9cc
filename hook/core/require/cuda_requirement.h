// What a container's image says it needs from the driver, as NVIDIA's legacy hook
// (libnvidia-container, nvidia-container-cli --require) reads it from the container's env:
//   NVIDIA_REQUIRE_<anything> (not NVIDIA_REQUIRE_JETPACK*): one requirement each, all must hold;
//   within one: blank-separated alternatives, one of which must hold; within an alternative,
//   comma-separated conditions <key><op><value>, all of which must hold. Keys (any case): cuda,
//   driver, arch (compute capability) compare as versions; brand compares as a name (= and !=).
//   Operators: = != < <= > >= (no ==, as libnvidia-container).
//   NVIDIA_DISABLE_REQUIRE=<true> (Go's ParseBool: 1 t T TRUE true True) turns the check off.
//   CUDA_VERSION=<x.y[.z]> without NVIDIA_REQUIRE_CUDA (old images): cuda>=x.y.
// The env is the container creator's: parsing is strict and bounded, and a requirement that does
// not parse is reported, never evaluated. Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "require/cuda_range.h"
#include "require/version.h"

namespace gnh {

enum class CompareOp { eq, ne, lt, le, gt, ge };
const char* to_string(CompareOp op);

struct Condition {
  std::string key;                 // lower case: cuda, driver, arch, brand, or another word
  CompareOp op = CompareOp::eq;
  std::string value;               // as written
  std::optional<Version> version;  // for cuda, driver, arch
  std::string text() const;        // "cuda>=12.4"
};

struct Requirement {
  std::string name;                             // "NVIDIA_REQUIRE_CUDA", or "CUDA_VERSION" (legacy)
  std::string text;                             // the value, cut to kShownRequirementChars
  std::vector<std::vector<Condition>> any_of;   // alternatives, each a list of conditions; empty: none
  std::string error;                            // non-empty: did not parse, not evaluated
};

struct ImageRequirements {
  std::vector<Requirement> requirements;  // in env order
  bool disabled = false;                  // NVIDIA_DISABLE_REQUIRE true
  bool empty() const { return requirements.empty(); }
};

// Bounds: a real nvidia/cuda NVIDIA_REQUIRE_CUDA is about 1,500 characters and 40 alternatives.
constexpr size_t kMaxRequirementChars = 16384;
constexpr size_t kMaxAlternatives = 512;
constexpr size_t kMaxConditions = 16;       // per alternative
constexpr size_t kMaxRequirementVars = 16;  // NVIDIA_REQUIRE_* variables checked
constexpr size_t kShownRequirementChars = 300;

// process.env ("KEY=VALUE" entries; for a key given twice the last counts, as for the process).
ImageRequirements read_image_requirements(const std::vector<std::string>& env);

// What the host offers. A fact left unset is unknown; a condition on it is unknown, never false.
struct GpuFacts {
  std::string label;                 // "/dev/nvidia0" for messages
  std::optional<std::string> brand;  // lower case, as the NVML cache names it ("tesla", "nvidia")
  std::optional<Version> arch;       // compute capability, "9.0"
};
struct HostFacts {
  std::optional<Version> driver;     // /proc/driver/nvidia/version
  std::optional<CudaRange> cuda;
  std::vector<GpuFacts> gpus;        // the container's GPUs; empty: brand and arch unknown
  std::string gpu_facts_missing;     // why brand and arch are unknown ("no NVML cache: ...")
};

enum class Truth { no, yes, unknown };

// One requirement, for one GPU (nullptr: brand and arch unknown). *why gets the first condition
// that could not be judged (for the log) when the answer is unknown.
Truth evaluate(const Requirement& r, const HostFacts& host, const GpuFacts* gpu, std::string* why = nullptr);

// The verdict on all of a container's requirements.
enum class RequirementState { none, disabled, satisfied, unknown, unsatisfied, unparseable };
const char* to_string(RequirementState s);

struct RequirementCheck {
  RequirementState state = RequirementState::none;
  std::string requirement;  // the requirement concerned ("NVIDIA_REQUIRE_CUDA=cuda>=13.1 ..."), or ""
  std::string host;         // "driver 580.159.04, CUDA 13.0 (NVML)"
  std::string message;      // one line: what, why, and for unsatisfied the fix
};

RequirementCheck check_requirements(const ImageRequirements& image, const HostFacts& host);

// "580.159.04 supports CUDA 13.0 (from NVML)"-style host summary.
std::string describe_host(const HostFacts& host);

}  // namespace gnh
