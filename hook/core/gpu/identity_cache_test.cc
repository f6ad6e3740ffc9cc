#include "gpu/identity_cache.h"

#include <doctest/doctest.h>

#include <string>

using namespace gnh;

namespace {

// As an AC922's driver writes a V100's file, and the H200 host's (../shared/captures/h200-x2).
const std::string kV100 =
    "Model: \t\t Tesla V100-SXM2-16GB\nIRQ:   \t\t 33\nGPU UUID: \t GPU-f0586c67-0000-0000-0000-000000000000\n"
    "Video BIOS: \t 88.00.4f.00.09\nBus Type: \t PCIe\nDMA Size: \t 47 bits\nDevice Minor: \t 0\n"
    "Bus Location: \t 0004:04:00.0\n";
const std::string kH200 =
    "Model: \t\t NVIDIA H200\nIRQ:   \t\t 41\nGPU UUID: \t GPU-a2348aed-8b16-f989-4a0e-e3b565598207\n"
    "Video BIOS: \t 96.00.a5.00.1a\nBus Type: \t PCIe\nBus Location: \t 0000:00:07.0\nDevice Minor: \t 1\n"
    "GPU Excluded:\t No";

CachedIdentity cached(const std::string& dir, uint64_t binding, const std::string& information) {
  auto id = gpu_identity(dir, information);
  REQUIRE(id);
  return {*id, binding};
}

// Two GPUs, written out of directory order.
IdentityCache two_gpus() {
  IdentityCache c;
  c.boot_id = "6f1e7a52-3c2b-4d8e-9a41-0c5e2b7d9f10";
  c.gpus.push_back(cached("0035:03:00.0", 18446744073709551615ull, kH200));
  c.gpus.push_back(cached("0004:04:00.0", 41234, kV100));
  return c;
}

std::string why_not(const std::string& text) {
  std::string why;
  CHECK_FALSE(parse_identity_cache(text, &why));
  return why;
}

}  // namespace

TEST_CASE("a GPU's identity is what its information file says, with the bus id made canonical") {
  auto v100 = gpu_identity("0004:04:00.0", kV100);
  REQUIRE(v100);
  CHECK(v100->dir == "0004:04:00.0");
  CHECK(v100->minor == 0);
  CHECK(v100->uuid == "GPU-f0586c67-0000-0000-0000-000000000000");
  CHECK(v100->bus_id == "0004:04:00.0");
  CHECK(v100->model == "Tesla V100-SXM2-16GB");
  // The directory stands for a file without Bus Location; an upper-case one is made lower case.
  auto bare = gpu_identity("0000:0A:00.0", "Device Minor: \t 7\n");
  REQUIRE(bare);
  CHECK(bare->bus_id == "0000:0a:00.0");
  CHECK(bare->uuid == "");
  CHECK(bare->model == "");
  // The model is for messages: bytes that cannot be written on one line become '?', cut to size.
  auto odd = gpu_identity("0000:00:07.0", "Model: NVIDIA \x01H200\xff" + std::string(200, 'x') + "\nDevice Minor: 1\n");
  REQUIRE(odd);
  CHECK(odd->model.size() == kMaxModelBytes);
  CHECK(odd->model.substr(0, 14) == "NVIDIA ?H200?x");
  std::string why;
  CHECK_FALSE(gpu_identity("0000:00:07.0", "Device Minor: \t -1\n", &why));
  CHECK(why == "'Device Minor' is '-1', not a GPU minor (0-254)");
}

TEST_CASE("the identity cache reads back what was written, one line per GPU") {
  const IdentityCache c = two_gpus();
  const std::string text = identity_cache_text(c);
  // In directory order, whatever the order given.
  CHECK(text ==
        "gpu-numa-hook gpu-identities 2\nboot-id 6f1e7a52-3c2b-4d8e-9a41-0c5e2b7d9f10\n"
        "gpu 0004:04:00.0 41234 0 GPU-f0586c67-0000-0000-0000-000000000000 0004:04:00.0 Tesla V100-SXM2-16GB\n"
        "gpu 0035:03:00.0 18446744073709551615 1 GPU-a2348aed-8b16-f989-4a0e-e3b565598207 0000:00:07.0 NVIDIA H200\n");
  std::string why;
  auto back = parse_identity_cache(text, &why);
  REQUIRE_MESSAGE(back, why);
  CHECK(back->boot_id == c.boot_id);
  REQUIRE(back->gpus.size() == 2);
  CHECK(back->gpus[0].identity.dir == "0004:04:00.0");
  CHECK(back->gpus[1].identity.dir == "0035:03:00.0");
  const CachedIdentity* h200 = back->find("0035:03:00.0");
  REQUIRE(h200);
  CHECK(h200->binding == 18446744073709551615ull);
  CHECK(h200->identity.minor == 1);
  CHECK(h200->identity.uuid == "GPU-a2348aed-8b16-f989-4a0e-e3b565598207");
  CHECK(h200->identity.bus_id == "0000:00:07.0");
  CHECK(h200->identity.model == "NVIDIA H200");
  CHECK(back->find("0004:04:00.0")->identity.model == "Tesla V100-SXM2-16GB");
  CHECK(back->find("0035:04:00.0") == nullptr);
  // A GPU without a model line: the line ends after the bus id's blank, and reads back so.
  IdentityCache bare;
  bare.boot_id = "1";
  bare.gpus.push_back(cached("0000:00:06.0", 7, "Device Minor: 3\nGPU UUID: GPU-a2348aed-8b16-f989-4a0e-e3b565598207\n"));
  auto back_bare = parse_identity_cache(identity_cache_text(bare));
  REQUIRE(back_bare);
  CHECK(back_bare->gpus[0].identity.model == "");
  CHECK(back_bare->gpus[0].identity.minor == 3);
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
  const std::string shape = "not \"gpu <dir> <binding> <minor> <uuid> <bus-id> <model>\"";
  CHECK(why_not("") == "not a gpu-identities file of format 2");
  // What an older version wrote (each file's text) is of another format: left aside whole.
  CHECK(why_not(replaced("identities 2", "identities 1")) == "not a gpu-identities file of format 2");
  CHECK(why_not(replaced("boot-id 6f1e", "boot-id 6f/e")) == "line 2: not \"boot-id <id>\"");
  CHECK(why_not(replaced("boot-id 6f1e7a52-3c2b-4d8e-9a41-0c5e2b7d9f10", "boot-id ")) == "line 2: not \"boot-id <id>\"");
  CHECK(why_not(replaced("gpu 0004:04:00.0 41234", "gpu ../../etc 41234")) ==
        "GPU record 1: directory '../../etc' is not a PCI address");
  CHECK(why_not(replaced("0000:00:07.0 NVIDIA", "/dev/x NVIDIA")) == "GPU record 2: bus id '/dev/x' is not a PCI address");
  CHECK(why_not(replaced("gpu 0004:04:00.0 41234", "gpu 0004:04:00.0 041234")) ==
        "GPU record 1: binding is not a positive decimal");
  CHECK(why_not(replaced("gpu 0004:04:00.0 41234", "gpu 0004:04:00.0 0")) == "GPU record 1: binding is not a positive decimal");
  CHECK(why_not(replaced("18446744073709551615", "18446744073709551616")) == "GPU record 2: binding is not a positive decimal");
  CHECK(why_not(replaced("41234 0 GPU", "41234 255 GPU")) == "GPU record 1: minor is not a decimal from 0 to 254");
  CHECK(why_not(replaced("41234 0 GPU", "41234 -1 GPU")) == "GPU record 1: minor is not a decimal from 0 to 254");
  CHECK(why_not(replaced("41234 0 GPU", "41234 00 GPU")) == "GPU record 1: minor is not a decimal from 0 to 254");
  CHECK(why_not(replaced("GPU-f0586c67-0000-0000-0000-000000000000", "GPU-f0586c67")) ==
        "GPU record 1: 'GPU-f0586c67' is not a GPU UUID");
  CHECK(why_not(replaced("gpu 0004:04:00.0 41234", "gpu 0004:04:00.0  41234")) == "GPU record 1: " + shape);
  CHECK(why_not(replaced(" Tesla V100-SXM2-16GB", "")) == "GPU record 1: " + shape);
  CHECK(why_not(replaced("Tesla V100", "Tesla\tV100")) ==
        "GPU record 1: the model is not printable ASCII of at most 96 bytes");
  CHECK(why_not(replaced("Tesla V100", std::string(97, 'x'))) ==
        "GPU record 1: the model is not printable ASCII of at most 96 bytes");
  const std::string order = " (the records are in directory order, each GPU once)";
  CHECK(why_not(replaced("gpu 0035:03:00.0", "gpu 0004:04:00.0")) ==
        "GPU record 2: directory 0004:04:00.0 is not after 0004:04:00.0" + order);
  CHECK(why_not(replaced("gpu 0035:03:00.0", "gpu 0003:04:00.0")) ==
        "GPU record 2: directory 0003:04:00.0 is not after 0004:04:00.0" + order);
  CHECK(why_not(good.substr(0, good.size() - 1)) == "GPU record 2: " + shape);
  CHECK(why_not(good + "x\n") == "GPU record 3: " + shape);
  CHECK(why_not(std::string(kMaxIdentityCacheBytes + 1, 'x')) == "larger than 65536 bytes");
  std::string many = "gpu-numa-hook gpu-identities 2\nboot-id 1\n";
  for (int i = 0; i < 65; ++i)
    many += "gpu 0000:" + std::to_string(10 + i) + ":00.0 1 0 GPU-a2348aed-8b16-f989-4a0e-e3b565598207 0000:" +
            std::to_string(10 + i) + ":00.0 " + std::string(kMaxModelBytes, 'm') + "\n";
  CHECK(many.size() < kMaxIdentityCacheBytes);  // the largest cache there can be fits the limit
  CHECK(why_not(many) == "more than 64 GPUs");
}

TEST_CASE("a GPU UUID is the form the driver prints once the GPU is initialised") {
  CHECK(is_gpu_uuid("GPU-a2348aed-8b16-f989-4a0e-e3b565598207"));
  CHECK(is_gpu_uuid("GPU-A2348AED-8B16-F989-4A0E-E3B565598207"));
  for (const char* bad : {"", "GPU-", "??", "N/A", "GPU-a2348aed-8b16-f989-4a0e-e3b56559820",
                          "GPU-a2348aed-8b16-f989-4a0e-e3b5655982070", "GPU-a2348aed-8b16-f989-4a0e-e3b56559820g",
                          "GPU-a2348aed08b16-f989-4a0e-e3b565598207", "MIG-a2348aed-8b16-f989-4a0e-e3b565598207"})
    CHECK_FALSE(is_gpu_uuid(bad));
}
