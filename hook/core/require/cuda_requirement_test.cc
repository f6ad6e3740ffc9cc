#include "require/cuda_requirement.h"

#include <doctest/doctest.h>

#include "require/cuda_driver_table.h"

using namespace gnh;

namespace {

// nvidia/cuda:12.4.1-base-ubuntu22.04's NVIDIA_REQUIRE_CUDA, as the image sets it.
const char* kCuda124 =
    "cuda>=12.4 brand=tesla,driver>=470,driver<471 brand=unknown,driver>=470,driver<471 "
    "brand=nvidia,driver>=470,driver<471 brand=nvidiartx,driver>=470,driver<471 brand=geforce,driver>=470,driver<471 "
    "brand=geforcertx,driver>=470,driver<471 brand=quadro,driver>=470,driver<471 brand=quadrortx,driver>=470,driver<471 "
    "brand=titan,driver>=470,driver<471 brand=titanrtx,driver>=470,driver<471 brand=tesla,driver>=525,driver<526 "
    "brand=unknown,driver>=525,driver<526 brand=nvidia,driver>=525,driver<526 brand=nvidiartx,driver>=525,driver<526 "
    "brand=geforce,driver>=525,driver<526 brand=geforcertx,driver>=525,driver<526 brand=quadro,driver>=525,driver<526 "
    "brand=quadrortx,driver>=525,driver<526 brand=titan,driver>=525,driver<526 brand=titanrtx,driver>=525,driver<526 "
    "brand=tesla,driver>=535,driver<536 brand=unknown,driver>=535,driver<536 brand=nvidia,driver>=535,driver<536 "
    "brand=nvidiartx,driver>=535,driver<536 brand=geforce,driver>=535,driver<536 brand=geforcertx,driver>=535,driver<536 "
    "brand=quadro,driver>=535,driver<536 brand=quadrortx,driver>=535,driver<536 brand=titan,driver>=535,driver<536 "
    "brand=titanrtx,driver>=535,driver<536";

Version v(const char* s) { return *parse_version(s); }

ImageRequirements image(std::vector<std::string> env) { return read_image_requirements(env); }

// A host known from the driver's version alone (no NVML cache).
HostFacts table_host(const char* driver) {
  HostFacts h;
  h.driver = v(driver);
  h.cuda = cuda_range_from_table(*h.driver);
  h.gpu_facts_missing = "unknown without the NVML cache (missing)";
  return h;
}

// A host with the NVML cache: exact CUDA version, one GPU of this brand and compute capability.
HostFacts nvml_host(const char* driver, const char* cuda, const char* brand, const char* arch) {
  HostFacts h;
  h.driver = v(driver);
  h.cuda = CudaRange{v(cuda), std::nullopt, true, "NVML"};
  h.gpus.push_back({"/dev/nvidia0", std::string(brand), v(arch)});
  return h;
}

RequirementState judge(const std::vector<std::string>& env, const HostFacts& h) {
  return check_requirements(image(env), h).state;
}

}  // namespace

TEST_CASE("versions: numbers compared one by one, trailing zeros ignored, strict syntax") {
  CHECK(compare(v("12"), v("12.0")) == 0);
  CHECK(compare(v("12.10"), v("12.9")) > 0);
  CHECK(compare(v("580.159.04"), v("580.159.4")) == 0);
  CHECK(v("580.159.04").to_string() == "580.159.04");  // printed as the driver and nvidia-smi print it
  CHECK(v("12.4").to_string() == "12.4");
  CHECK(Version{{13, 0}}.to_string() == "13.0");  // built from numbers: joined
  for (const char* bad : {"", ".", "12.", ".4", "12..4", "1.2.3.4.5", "12.4a", "-1", "1234567890", "12,4", " 12"})
    CHECK_MESSAGE(!parse_version(bad), bad);
}

TEST_CASE("the driver table: each release's minimum, the branch bound above it") {
  auto r = cuda_range_from_table(v("580.159.04"));  // the H200 host: nvidia-smi says CUDA 13.0
  CHECK(r.low == v("13.0"));
  REQUIRE(r.high);
  CHECK(*r.high == v("13.1"));
  CHECK(r.to_display() == "13.0");
  r = cuda_range_from_table(v("535.104.05"));
  CHECK(r.low == v("12.2"));
  CHECK(*r.high == v("12.3"));
  r = cuda_range_from_table(v("565.57.01"));  // reports 12.7, a CUDA with no toolkit release
  CHECK(r.low == v("12.6"));
  CHECK(*r.high == v("12.8"));
  CHECK(r.to_display() == "at least 12.6, below 12.8");
  r = cuda_range_from_table(v("580.50"));  // a beta of the 13.0 branch, below 13.0's minimum
  CHECK(r.low == v("12.9"));
  CHECK(*r.high == v("13.1"));
  r = cuda_range_from_table(v("610.1"));  // newer than the table: the upper end is unknown
  CHECK(r.low == v("13.2"));
  CHECK_FALSE(r.high);
  r = cuda_range_from_table(v("300.1"));
  CHECK(r.low == v("0"));
  // Every row parses and the table ascends in both columns.
  Version prev_cuda{{0}}, prev_driver{{0}};
  for (const auto& row : cuda_driver_table()) {
    REQUIRE(parse_version(row.cuda));
    REQUIRE(parse_version(row.min_driver));
    CHECK(prev_cuda < v(row.cuda));
    CHECK(prev_driver < v(row.min_driver));
    prev_cuda = v(row.cuda);
    prev_driver = v(row.min_driver);
  }
}

TEST_CASE("real nvidia/cuda 12.4 requirement: both sides of the boundary, with and without the cache") {
  std::vector<std::string> env = {"PATH=/usr/bin", std::string("NVIDIA_REQUIRE_CUDA=") + kCuda124, "CUDA_VERSION=12.4.1"};
  CHECK(judge(env, table_host("550.54.14")) == RequirementState::satisfied);
  CHECK(judge(env, table_host("580.159.04")) == RequirementState::satisfied);
  // 545 supports 12.3 only and no brand clause names it: certainly unsatisfied, cache or not.
  CHECK(judge(env, table_host("545.23.06")) == RequirementState::unsatisfied);
  CHECK(judge(env, nvml_host("545.23.06", "12.3", "tesla", "9.0")) == RequirementState::unsatisfied);
  // 535 supports 12.2, but data-center GPUs on 535 run it through forward compatibility: without
  // the cache the brand is unknown, so the start is never refused on it.
  CHECK(judge(env, table_host("535.104.05")) == RequirementState::unknown);
  CHECK(judge(env, nvml_host("535.104.05", "12.2", "tesla", "9.0")) == RequirementState::satisfied);
  CHECK(judge(env, nvml_host("535.104.05", "12.2", "nvidia", "9.0")) == RequirementState::satisfied);
  // nvidiavapps (a vGPU brand) is not among the image's forward-compatible brands.
  CHECK(judge(env, nvml_host("535.104.05", "12.2", "nvidiavapps", "9.0")) == RequirementState::unsatisfied);
}

TEST_CASE("the refusal line names the condition, the driver, its CUDA version and the fixes") {
  auto c = check_requirements(image({"NVIDIA_REQUIRE_CUDA=cuda>=13.1 brand=tesla,driver>=570,driver<571"}),
                              nvml_host("580.159.04", "13.0", "nvidia", "9.0"));
  REQUIRE(c.state == RequirementState::unsatisfied);
  CHECK(c.message ==
        "the image requires cuda>=13.1 (NVIDIA_REQUIRE_CUDA=\"cuda>=13.1 brand=tesla,driver>=570,driver<571\") but "
        "driver 580.159.04, CUDA 13.0 (from NVML): upgrade the driver, use an image built for CUDA <= 13.0, or set "
        "NVIDIA_DISABLE_REQUIRE=true if the image carries its own CUDA compatibility libraries");
  auto t = check_requirements(image({"NVIDIA_REQUIRE_CUDA=cuda>=13.1"}), table_host("580.159.04"));
  REQUIRE(t.state == RequirementState::unsatisfied);
  CHECK(t.message.find("CUDA 13.0 (from the driver table (CUDA Toolkit 13.2 Update 2 Release Notes") != std::string::npos);
}

TEST_CASE("unknown facts never refuse: brand and arch without the cache, a driver newer than the table") {
  auto c = check_requirements(image({"NVIDIA_REQUIRE_CUDA=cuda>=12.4 brand=tesla,driver>=535,driver<536"}),
                              table_host("535.104.05"));
  CHECK(c.state == RequirementState::unknown);
  CHECK(c.message.find("the driver does not meet cuda>=12.4") != std::string::npos);
  CHECK(c.message.find("brand=tesla: the GPU's brand is unknown without the NVML cache") != std::string::npos);
  CHECK(judge({"NVIDIA_REQUIRE_ARCH=arch>=9.0"}, table_host("580.159.04")) == RequirementState::unknown);
  CHECK(judge({"NVIDIA_REQUIRE_ARCH=arch>=9.0"}, nvml_host("580.159.04", "13.0", "nvidia", "9.0")) ==
        RequirementState::satisfied);
  CHECK(judge({"NVIDIA_REQUIRE_ARCH=arch>=10.0"}, nvml_host("580.159.04", "13.0", "nvidia", "9.0")) ==
        RequirementState::unsatisfied);
  CHECK(judge({"NVIDIA_REQUIRE_CUDA=cuda>=13.4"}, table_host("610.1")) == RequirementState::unknown);
  CHECK(judge({"NVIDIA_REQUIRE_CUDA=cuda>=13.0"}, table_host("580.50")) == RequirementState::unknown);
  CHECK(judge({"NVIDIA_REQUIRE_CUDA=cuda>=12.7"}, table_host("565.57.01")) == RequirementState::unknown);
  CHECK(judge({"NVIDIA_REQUIRE_CUDA=cuda>=12.8"}, table_host("565.57.01")) == RequirementState::unsatisfied);
  CHECK(judge({"NVIDIA_REQUIRE_CUDA=cuda>=13.0"}, HostFacts{}) == RequirementState::unknown);
  CHECK(judge({"NVIDIA_REQUIRE_FOO=color=blue"}, table_host("580.159.04")) == RequirementState::unknown);
}

TEST_CASE("operators against an exact version and a range") {
  const auto Y = RequirementState::satisfied, N = RequirementState::unsatisfied, U = RequirementState::unknown;
  struct Row {
    const char* req;
    RequirementState want;
  };
  // NVML's exact answer; the table's for a released driver is as exact (nothing between 13.0 and 13.1).
  for (const HostFacts& h : {nvml_host("580.159.04", "13.0", "nvidia", "9.0"), table_host("580.159.04")})
    for (const Row& r : std::vector<Row>{{"cuda>=13.0", Y}, {"cuda>13.0", N}, {"cuda<=13.0", Y}, {"cuda<13.1", Y},
                                         {"cuda<13.0", N}, {"cuda=13.0", Y}, {"cuda=12.9", N}, {"cuda!=12.9", Y},
                                         {"cuda!=13.0", N}, {"cuda=13", Y}, {"driver>=580.159.4", Y},
                                         {"driver=580.159.04", Y}, {"driver!=580", Y}, {"driver<580.159.5", Y},
                                         {"DRIVER>=600", N}})
      CHECK_MESSAGE(judge({std::string("NVIDIA_REQUIRE_X=") + r.req}, h) == r.want, r.req);
  CHECK(judge({"NVIDIA_REQUIRE_X=Brand=NVIDIA"}, nvml_host("580.159.04", "13.0", "nvidia", "9.0")) == Y);
  CHECK(judge({"NVIDIA_REQUIRE_X=brand!=nvidia"}, nvml_host("580.159.04", "13.0", "nvidia", "9.0")) == N);
  CHECK(judge({"NVIDIA_REQUIRE_X=brand!=nvidia"}, table_host("580.159.04")) == U);
  // A beta of the 13.0 branch below 13.0's minimum: 12.9 certainly, 13.0 perhaps, 13.1 never.
  HostFacts beta = table_host("580.50");
  for (const Row& r : std::vector<Row>{{"cuda>=12.9", Y}, {"cuda>=13.0", U}, {"cuda>=13.1", N}, {"cuda>13.0", U},
                                       {"cuda>12.8", Y}, {"cuda<=13.0", U}, {"cuda<13.1", Y}, {"cuda<=13.1", Y},
                                       {"cuda<12.9", N}, {"cuda=13.0", U}, {"cuda=12.8", N}, {"cuda=13.1", N},
                                       {"cuda!=13.1", Y}, {"cuda!=13.0", U}})
    CHECK_MESSAGE(judge({std::string("NVIDIA_REQUIRE_X=") + r.req}, beta) == r.want, r.req);
}

TEST_CASE("alternatives OR, conditions AND, every variable must hold, for every GPU") {
  HostFacts h = nvml_host("580.159.04", "13.0", "nvidia", "9.0");
  CHECK(judge({"NVIDIA_REQUIRE_CUDA=cuda>=14.0 cuda>=12.0"}, h) == RequirementState::satisfied);
  CHECK(judge({"NVIDIA_REQUIRE_CUDA=cuda>=12.0,driver<500"}, h) == RequirementState::unsatisfied);
  CHECK(judge({"NVIDIA_REQUIRE_CUDA=cuda>=12.0", "NVIDIA_REQUIRE_DRIVER=driver>=600"}, h) == RequirementState::unsatisfied);
  CHECK(judge({"NVIDIA_REQUIRE_CUDA=  cuda>=12.0 ,, "}, h) == RequirementState::satisfied);
  CHECK(judge({"NVIDIA_REQUIRE_CUDA="}, h) == RequirementState::satisfied);
  h.gpus.push_back({"/dev/nvidia1", std::string("nvidia"), v("8.0")});
  auto c = check_requirements(image({"NVIDIA_REQUIRE_ARCH=arch>=9.0"}), h);
  CHECK(c.state == RequirementState::unsatisfied);
  CHECK(c.message.find("arch>=9.0 on /dev/nvidia1") != std::string::npos);
}

TEST_CASE("NVIDIA_DISABLE_REQUIRE as Go's ParseBool reads it, the last entry of a key counts") {
  HostFacts h = table_host("535.104.05");
  for (const char* t : {"1", "t", "T", "TRUE", "true", "True"})
    CHECK(judge({"NVIDIA_REQUIRE_CUDA=cuda>=13.0", std::string("NVIDIA_DISABLE_REQUIRE=") + t}, h) ==
          RequirementState::disabled);
  for (const char* f : {"0", "false", "yes", "on", "", "tRue", "1 "})
    CHECK(judge({"NVIDIA_REQUIRE_CUDA=cuda>=13.0", std::string("NVIDIA_DISABLE_REQUIRE=") + f}, h) ==
          RequirementState::unsatisfied);
  CHECK(judge({"NVIDIA_DISABLE_REQUIRE=true", "NVIDIA_REQUIRE_CUDA=cuda>=13.0", "NVIDIA_DISABLE_REQUIRE=false"}, h) ==
        RequirementState::unsatisfied);
  CHECK(judge({"NVIDIA_REQUIRE_CUDA=cuda>=13.0", "NVIDIA_REQUIRE_CUDA=cuda>=12.0"}, h) == RequirementState::satisfied);
  CHECK(judge({"NVIDIA_REQUIRE_JETPACK=cuda>=99"}, h) == RequirementState::none);
  CHECK(judge({"NVIDIA_VISIBLE_DEVICES=all"}, h) == RequirementState::none);
}

TEST_CASE("CUDA_VERSION of old images stands for cuda>=major.minor when NVIDIA_REQUIRE_CUDA is absent") {
  HostFacts h = table_host("418.39");  // CUDA 10.1
  CHECK(judge({"CUDA_VERSION=10.0.130"}, h) == RequirementState::satisfied);
  CHECK(judge({"CUDA_VERSION=v10.1"}, h) == RequirementState::satisfied);
  CHECK(judge({"CUDA_VERSION=10.2.89"}, h) == RequirementState::unsatisfied);
  CHECK(judge({"CUDA_VERSION=11"}, h) == RequirementState::unsatisfied);
  CHECK(judge({"CUDA_VERSION=10.2.89", "NVIDIA_REQUIRE_CUDA=cuda>=10.0"}, h) == RequirementState::satisfied);
  CHECK(judge({"CUDA_VERSION=10.2.89", "NVIDIA_REQUIRE_CUDA="}, h) == RequirementState::unsatisfied);
  CHECK(judge({"CUDA_VERSION=ten"}, h) == RequirementState::unparseable);
}

TEST_CASE("hostile requirements: a warning, never a crash, never a refusal") {
  HostFacts h = table_host("535.104.05");
  for (std::string bad : {"cuda==12.0", "cuda=>12.0", "cuda>=", ">=12.0", "cuda", "cuda>=twelve", "cuda>=12.0.0.0.0",
                          "brand>=tesla", "brand=tes la,", "cu da>=1", "cuda>=1>=2", "driver>=535\t", "cuda>=\x01",
                          "foo>=1<2", "cuda>=99999999999"}) {
    auto c = check_requirements(image({"NVIDIA_REQUIRE_CUDA=" + bad}), h);
    CHECK_MESSAGE(c.state != RequirementState::unsatisfied, bad);
    CHECK_MESSAGE(c.state != RequirementState::satisfied, bad);
  }
  CHECK(judge({"NVIDIA_REQUIRE_CUDA=cuda==12.0"}, h) == RequirementState::unparseable);
  // 10,000 characters of a valid requirement parse and are judged; longer than the bound is refused
  // parsing, and reported.
  std::string many;
  while (many.size() < 10000) many += "brand=tesla,driver>=535,driver<536 ";
  CHECK(judge({"NVIDIA_REQUIRE_CUDA=cuda>=13.0 " + many}, h) == RequirementState::unknown);
  CHECK(judge({"NVIDIA_REQUIRE_CUDA=" + std::string(20000, 'x')}, h) == RequirementState::unparseable);
  CHECK(judge({"NVIDIA_REQUIRE_CUDA=" + std::string(10000, ',')}, h) == RequirementState::satisfied);
  std::string alts;
  for (int i = 0; i < 600; ++i) alts += "cuda>=1 ";
  CHECK(judge({"NVIDIA_REQUIRE_CUDA=" + alts}, h) == RequirementState::unparseable);
  std::string conds = "cuda>=1";
  for (int i = 0; i < 20; ++i) conds += ",cuda>=1";
  CHECK(judge({"NVIDIA_REQUIRE_CUDA=" + conds}, h) == RequirementState::unparseable);
  // More than 16 variables: the first 16 are judged, the rest reported.
  std::vector<std::string> env;
  for (int i = 0; i < 40; ++i) env.push_back("NVIDIA_REQUIRE_V" + std::to_string(i) + "=cuda>=1");
  CHECK(judge(env, h) == RequirementState::unparseable);
  env.push_back("NVIDIA_REQUIRE_A=cuda>=99");
  CHECK(judge(env, h) == RequirementState::unparseable);  // beyond the bound: reported, not judged
  // An unparseable requirement does not hide a certain failure of another one.
  CHECK(judge({"NVIDIA_REQUIRE_A=cuda==1", "NVIDIA_REQUIRE_B=cuda>=99"}, h) == RequirementState::unsatisfied);
  auto c = check_requirements(image({"NVIDIA_REQUIRE_CUDA=cuda==12.0"}), h);
  CHECK(c.message.find("'==' is not one of = != < <= > >=") != std::string::npos);
}
