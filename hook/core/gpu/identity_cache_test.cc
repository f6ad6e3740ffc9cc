#include "gpu/identity_cache.h"

#include <doctest/doctest.h>

#include <string>

using namespace gnh;

namespace {

// Two GPUs as an AC922's driver writes them (the second file without a trailing newline).
IdentityCache two_gpus() {
  IdentityCache c;
  c.boot_id = "6f1e7a52-3c2b-4d8e-9a41-0c5e2b7d9f10";
  c.gpus.push_back({"0004:04:00.0", 41234,
                    "Model: \t\t Tesla V100-SXM2-16GB\nIRQ:   \t\t 33\nGPU UUID: \t GPU-f0586c67-0000-0000-0000-000000000000\n"
                    "Video BIOS: \t 88.00.4f.00.09\nBus Type: \t PCIe\nDMA Size: \t 47 bits\nDevice Minor: \t 0\n"
                    "Bus Location: \t 0004:04:00.0\n"});
  c.gpus.push_back({"0035:03:00.0", 18446744073709551615ull, "Device Minor: \t 4"});
  return c;
}

std::string why_not(const std::string& text) {
  std::string why;
  CHECK_FALSE(parse_identity_cache(text, &why));
  return why;
}

}  // namespace

TEST_CASE("the identity cache reads back what was written, byte for byte") {
  const IdentityCache c = two_gpus();
  const std::string text = identity_cache_text(c);
  const std::string head = "gpu-numa-hook gpu-identities 1\nboot-id 6f1e7a52-3c2b-4d8e-9a41-0c5e2b7d9f10\n";
  CHECK(text.substr(0, head.size()) == head);
  const std::string record = "gpu 0004:04:00.0 41234 " + std::to_string(c.gpus[0].information.size()) + "\n";
  CHECK(text.substr(head.size(), record.size() + 7) == record + "Model: ");
  std::string why;
  auto back = parse_identity_cache(text, &why);
  REQUIRE_MESSAGE(back, why);
  CHECK(back->boot_id == c.boot_id);
  REQUIRE(back->gpus.size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    CHECK(back->gpus[i].dir == c.gpus[i].dir);
    CHECK(back->gpus[i].binding == c.gpus[i].binding);
    CHECK(back->gpus[i].information == c.gpus[i].information);
  }
  REQUIRE(back->find("0035:03:00.0"));
  CHECK(back->find("0035:03:00.0")->information == "Device Minor: \t 4");
  CHECK(back->find("0035:04:00.0") == nullptr);
  // A host without GPUs: the cache says so and nothing more.
  IdentityCache none;
  none.boot_id = c.boot_id;
  auto empty = parse_identity_cache(identity_cache_text(none));
  REQUIRE(empty);
  CHECK(empty->gpus.empty());
}

TEST_CASE("an identity cache that is not exactly of this format is refused, with the reason") {
  const std::string good = identity_cache_text(two_gpus());
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string t = good;
    const size_t at = t.find(from);
    REQUIRE(at != std::string::npos);
    return t.replace(at, from.size(), to);
  };
  CHECK(why_not("") == "not a gpu-identities file of format 1");
  CHECK(why_not(replaced("identities 1", "identities 2")) == "not a gpu-identities file of format 1");
  CHECK(why_not(replaced("boot-id 6f1e", "boot-id 6f/e")) == "line 2: not \"boot-id <id>\"");
  CHECK(why_not(replaced("boot-id 6f1e7a52-3c2b-4d8e-9a41-0c5e2b7d9f10", "boot-id ")) == "line 2: not \"boot-id <id>\"");
  CHECK(why_not(replaced("gpu 0004:04:00.0 41234", "gpu ../../etc 41234")) ==
        "GPU record 1: directory '../../etc' is not a PCI address");
  CHECK(why_not(replaced("gpu 0004:04:00.0 41234", "gpu 0004:04:00.0 041234")) ==
        "GPU record 1: binding is not a positive decimal");
  CHECK(why_not(replaced("gpu 0004:04:00.0 41234", "gpu 0004:04:00.0 0")) == "GPU record 1: binding is not a positive decimal");
  CHECK(why_not(replaced("18446744073709551615", "18446744073709551616")) == "GPU record 2: binding is not a positive decimal");
  CHECK(why_not(replaced("gpu 0004:04:00.0 41234", "gpu 0004:04:00.0  41234")) ==
        "GPU record 1: not \"gpu <dir> <binding> <bytes>\"");
  CHECK(why_not(replaced("gpu 0035:03:00.0", "gpu 0004:04:00.0")) == "GPU record 2: directory 0004:04:00.0 twice");
  // A byte count that does not end at the record's newline: cut short, or longer than it says.
  CHECK(why_not(good.substr(0, good.size() - 1)) == "GPU record 2: the text is cut short");
  CHECK(why_not(good + "x\n") == "GPU record 3: not \"gpu <dir> <binding> <bytes>\"");
  CHECK(why_not(replaced("615 17\n", "615 18\n")) == "GPU record 2: the text is cut short");
  CHECK(why_not(replaced("615 17\n", "615 16\n")) == "GPU record 2: the text is cut short");
  CHECK(why_not(replaced("615 17\n", "615 99999\n")) == "GPU record 2: byte count is not a decimal up to 16384");
  CHECK(why_not(std::string(kMaxIdentityCacheBytes + 1, 'x')) == "larger than 262144 bytes");
  std::string many = "gpu-numa-hook gpu-identities 1\nboot-id 1\n";
  for (int i = 0; i < 65; ++i) many += "gpu 0000:" + std::to_string(10 + i) + ":00.0 1 0\n\n";
  CHECK(why_not(many) == "more than 64 GPUs");
}

TEST_CASE("only an information file that names the GPU's UUID may be cached") {
  // As the H200 host's driver writes it (tests/fixture: ../shared/captures/h200-x2), and as it
  // writes it before the GPU is initialised: no "GPU UUID" line.
  const std::string initialised =
      "Model: \t\t NVIDIA H200\nIRQ:   \t\t 41\nGPU UUID: \t GPU-a2348aed-8b16-f989-4a0e-e3b565598207\n"
      "Video BIOS: \t 96.00.a5.00.1a\nBus Type: \t PCIe\nBus Location: \t 0000:00:07.0\nDevice Minor: \t 1\n"
      "GPU Excluded:\t No\n";
  CHECK(cacheable_information(initialised));
  std::string early = initialised;
  early.erase(early.find("GPU UUID"), early.find("Video BIOS") - early.find("GPU UUID"));
  CHECK_FALSE(cacheable_information(early));
  CHECK_FALSE(cacheable_information("GPU UUID: \t GPU-a2348aed-8b16-f989-4a0e-e3b565598207\n"));  // no minor
  CHECK(is_gpu_uuid("GPU-A2348AED-8B16-F989-4A0E-E3B565598207"));
  for (const char* bad : {"", "GPU-", "??", "N/A", "GPU-a2348aed-8b16-f989-4a0e-e3b56559820",
                          "GPU-a2348aed-8b16-f989-4a0e-e3b5655982070", "GPU-a2348aed-8b16-f989-4a0e-e3b56559820g",
                          "GPU-a2348aed08b16-f989-4a0e-e3b565598207", "MIG-a2348aed-8b16-f989-4a0e-e3b565598207"})
    CHECK_FALSE(is_gpu_uuid(bad));
}
