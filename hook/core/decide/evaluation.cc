#include "decide/evaluation.h"

namespace gnh {

std::string Evaluation::gpu_list() const {
  if (gpus.empty()) return "-";
  std::string s;
  for (const auto& g : gpus) s += (s.empty() ? "" : ",") + g.device_path() + "(" + g.bus_id + ")";
  return s;
}

}  // namespace gnh
