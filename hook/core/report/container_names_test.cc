#include "report/container_names.h"

#include <doctest/doctest.h>

#include "report/log_record.h"

using namespace gnh;

namespace {
const std::map<std::string, std::string> kNone;
}

TEST_CASE("names: containerd's CRI, CRI-O's keys, none for Docker") {
  // containerd's CRI plugin (internal/cri/annotations): the sandbox's name and namespace.
  std::map<std::string, std::string> containerd = {{"io.kubernetes.cri.sandbox-name", "train-0"},
                                                   {"io.kubernetes.cri.sandbox-namespace", "ml"},
                                                   {"io.kubernetes.cri.container-name", "trainer"},
                                                   {"io.kubernetes.cri.container-type", "container"}};
  ContainerNames n = container_names(containerd, kNone);
  CHECK(n.pod() == "ml/train-0");
  CHECK(n.container_name == "trainer");
  CHECK(n.stderr_suffix() == " (pod ml/train-0, container trainer)");
  // CRI-O: kubelet's labels as annotations.
  std::map<std::string, std::string> crio = {{"io.kubernetes.pod.name", "infer-7"},
                                             {"io.kubernetes.pod.namespace", "serving"},
                                             {"io.kubernetes.container.name", "server"}};
  CHECK(container_names(kNone, crio).pod() == "serving/infer-7");
  // The state's annotations win over config.json's.
  CHECK(container_names(crio, containerd).pod() == "serving/infer-7");
  // Docker 20.10's config.json has no annotations; podman's only io.container.manager.
  CHECK(container_names(kNone, kNone).empty());
  CHECK(container_names({{"io.container.manager", "libpod"}}, kNone).empty());
  CHECK(container_names(kNone, kNone).stderr_suffix() == "");
  // Half known: the other half is "-".
  CHECK(container_names({{"io.kubernetes.pod.name", "p"}}, kNone).pod() == "-/p");
  CHECK(container_names({{"io.kubernetes.container.name", "c"}}, kNone).stderr_suffix() == " (container c)");
}

TEST_CASE("names: hostile values can neither forge a field nor split a line") {
  CHECK(printable_name("ok-name.1_x") == "ok-name.1_x");
  CHECK(printable_name("a b") == "a\\x20b");
  CHECK(printable_name("x\" action=allow\nforged") == "x\\x22\\x20action\\x3dallow\\x0aforged");
  CHECK(printable_name("ns/evil") == "ns\\x2fevil");  // the pod's '/' stays the only one
  CHECK(printable_name(std::string("a\0b", 3)) == "a\\x00b");
  CHECK(printable_name("\xff\xfe") == "\\xff\\xfe");  // not UTF-8: escaped, JSON stays valid
  std::string huge(100000, 'a');
  CHECK(printable_name(huge) == std::string(kMaxNameBytes, 'a') + "...");

  LogRecord r;
  r.container = "c1";
  r.names = container_names({{"io.kubernetes.pod.name", "p\" stage=forged\n2026 info x"},
                             {"io.kubernetes.pod.namespace", "ns"},
                             {"io.kubernetes.container.name", std::string(10000, '\r')}},
                            kNone);
  std::string line = format_text(r, "T", 7);
  CHECK(line.find('\n') == std::string::npos);
  CHECK(line.find('\r') == std::string::npos);
  CHECK(line.find(" stage=forged") == std::string::npos);
  CHECK(line.rfind("T info gpu-numa-hook[7] container=c1 pod=ns/p\\x22\\x20stage\\x3dforged\\x0a2026\\x20info\\x20x name=", 0) == 0);
  CHECK(line.size() < 1500);  // bounded: 253 bytes, each at most 4 printed
}

TEST_CASE("names: log lines carry them only when present") {
  LogRecord r;
  r.container = "c1";
  r.stage = "prestart";
  r.msg = "m";
  CHECK(format_text(r, "T", 1) == "T info gpu-numa-hook[1] container=c1 stage=prestart action=allow gpus=- required=- "
                                  "mems-before=- mems-after=- cgroup=- duration-us=0 msg=\"m\"");
  CHECK(format_json(r, "T", 1).find("pod") == std::string::npos);
  r.names = container_names({{"io.kubernetes.cri.sandbox-name", "train-0"},
                             {"io.kubernetes.cri.sandbox-namespace", "ml"},
                             {"io.kubernetes.cri.container-name", "trainer"}},
                            kNone);
  CHECK(format_text(r, "T", 1) == "T info gpu-numa-hook[1] container=c1 pod=ml/train-0 name=trainer stage=prestart "
                                  "action=allow gpus=- required=- mems-before=- mems-after=- cgroup=- duration-us=0 msg=\"m\"");
  CHECK(format_json(r, "T", 1) ==
        "{\"action\":\"allow\",\"cgroup\":\"-\",\"container\":\"c1\",\"container_name\":\"trainer\",\"duration_us\":0,"
        "\"gpus\":\"-\",\"level\":\"info\",\"mems_after\":\"-\",\"mems_before\":\"-\",\"msg\":\"m\",\"pid\":1,"
        "\"pod_name\":\"train-0\",\"pod_namespace\":\"ml\",\"program\":\"gpu-numa-hook\",\"required\":\"-\","
        "\"stage\":\"prestart\",\"ts\":\"T\"}");
}
