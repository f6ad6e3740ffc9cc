#include "gpu/driver_files.h"

#include <doctest/doctest.h>

using namespace gnh;

// Byte-for-byte the shape of a real H200 file (tabs preserved).
static const char* kH200Information =
    "Model: \t\t NVIDIA H200\nIRQ:   \t\t 41\nGPU UUID: \t GPU-f0586c67-b718-ef40-6571-4caeff0ab99c\n"
    "Video BIOS: \t 96.00.a5.00.1a\nBus Type: \t PCIe\nDMA Size: \t 52 bits\nDMA Mask: \t 0xfffffffffffff\n"
    "Bus Location: \t 0000:00:06.0\nDevice Minor: \t 0\nGPU Firmware: \t 580.159.04\nGPU Excluded:\t No\n";

TEST_CASE("information: keys are read by name with the driver's spacing") {
  auto info = parse_gpu_information(kH200Information);
  REQUIRE(info);
  CHECK(info->model == "NVIDIA H200");
  CHECK(info->uuid == "GPU-f0586c67-b718-ef40-6571-4caeff0ab99c");
  CHECK(info->bus_location == "0000:00:06.0");
  CHECK(*info->minor == 0u);
  CHECK_FALSE(info->excluded);
}

TEST_CASE("information: a missing or bad minor is an error, unknown keys are not") {
  std::string why;
  CHECK_FALSE(parse_gpu_information("Model: x\n", &why));
  CHECK(why.find("Device Minor") != std::string::npos);
  CHECK_FALSE(parse_gpu_information("Device Minor: 255\n", &why));
  CHECK_FALSE(parse_gpu_information("Device Minor: -1\n", &why));
  CHECK_FALSE(parse_gpu_information("Device Minor: 4294967296\n", &why));
  auto ok = parse_gpu_information("Future Key: whatever\nDevice Minor:\t 3\n");
  REQUIRE(ok);
  CHECK(*ok->minor == 3u);
}

TEST_CASE("numa_status: node and status - -1 means no node") {
  auto st = parse_numa_status("Node:      252\nStatus:    online\nAddress:   2000000000\nSize:      400000000\n");
  REQUIRE(st);
  CHECK(*st->node == 252);
  CHECK(st->status == "online");
  auto none = parse_numa_status("Node:      -1\nStatus:    disabled\n");
  REQUIRE(none);
  CHECK_FALSE(none->node);
  CHECK(none->status == "disabled");
  std::string why;
  CHECK_FALSE(parse_numa_status("Status: online\n", &why));
  CHECK_FALSE(parse_numa_status("Node: 99999\nStatus: online\n", &why));
}

TEST_CASE("sysfs numa_node") {
  CHECK(*parse_sysfs_numa_node("1\n") == 1);
  CHECK_FALSE(parse_sysfs_numa_node("-1\n"));
  CHECK_FALSE(parse_sysfs_numa_node("junk"));
}

TEST_CASE("PCI addresses are canonicalised from every form tools write") {
  CHECK(*canonical_pci_address("0000:00:06.0") == "0000:00:06.0");
  CHECK(*canonical_pci_address("00000000:06:00.0") == "0000:06:00.0");
  CHECK(*canonical_pci_address("0004:05:00.0") == "0004:05:00.0");
  CHECK(*canonical_pci_address("05:00.0") == "0000:05:00.0");
  CHECK(*canonical_pci_address("0000:AB:1F.7") == "0000:ab:1f.7");
  CHECK(*canonical_pci_address("ffff:ff:1f.7") == "ffff:ff:1f.7");
  CHECK(*canonical_pci_address("a:0:1.2") == "000a:00:01.2");
  CHECK_FALSE(canonical_pci_address("GPU-123"));
  CHECK_FALSE(canonical_pci_address("0:1"));
  CHECK_FALSE(canonical_pci_address("0000:00:20.0"));
}

TEST_CASE("a MIG capability's access file: the minor of its device node") {
  CHECK(parse_capability_minor("DeviceFileMinor: 53\nDeviceFileMode: 292\nDeviceFileModify: 1\n") == 53u);
  CHECK(parse_capability_minor("DeviceFileMode: 256\nDeviceFileMinor:\t4323\r\n") == 4323u);
  CHECK_FALSE(parse_capability_minor("DeviceFileMode: 292\n").has_value());
  CHECK_FALSE(parse_capability_minor("DeviceFileMinor: -1\n").has_value());
  CHECK_FALSE(parse_capability_minor("DeviceFileMinor: 12345678\n").has_value());
  CHECK_FALSE(parse_capability_minor("DeviceFileMinor: \n").has_value());
  CHECK_FALSE(parse_capability_minor("").has_value());
}
