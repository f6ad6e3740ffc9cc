// mems-owner: a second, independent NRI plugin for the coexistence test, written on containerd/nri's
// own pkg/stub as the resource managers operators run are (topology-aware, balloons): it sets
// cpu.mems to one value on every CreateContainer and every UpdateContainer, and does not mark its
// updates ignore_failure, as they do not. With -cdi-for NAME it also gives the container of that
// name the CDI device nvidia.com/gpu=0, as a CDI-injecting plugin does: NRI shows that to no other
// plugin, and the runtime resolves it only after every plugin answered. Each decision is one line on stdout for the test.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/containerd/nri/pkg/api"
	"github.com/containerd/nri/pkg/stub"
)

type owner struct {
	mems      string
	cdiFor string
}

// Synchronize comes once the runtime has registered and configured the plugin: the test waits for it.
func (o *owner) Synchronize(_ context.Context, pods []*api.PodSandbox, ctrs []*api.Container) ([]*api.ContainerUpdate, error) {
	fmt.Printf("mems-owner: synchronized (%d pods, %d containers)\n", len(pods), len(ctrs))
	return nil, nil
}

func (o *owner) CreateContainer(_ context.Context, pod *api.PodSandbox, ctr *api.Container) (*api.ContainerAdjustment, []*api.ContainerUpdate, error) {
	adj := &api.ContainerAdjustment{}
	if o.mems != "" {
		adj.SetLinuxCPUSetMems(o.mems)
	}
	cdi := ""
	if o.cdiFor != "" && ctr.GetName() == o.cdiFor {
		adj.AddCDIDevice(&api.CDIDevice{Name: "nvidia.com/gpu=0"})
		cdi = " cdi=nvidia.com/gpu=0"
	}
	fmt.Printf("mems-owner: create %s (%s/%s) mems=%s%s\n", ctr.GetId(), pod.GetNamespace(), ctr.GetName(), o.mems, cdi)
	return adj, nil, nil
}

func (o *owner) UpdateContainer(_ context.Context, _ *api.PodSandbox, ctr *api.Container, res *api.LinuxResources) ([]*api.ContainerUpdate, error) {
	if o.mems == "" {
		return nil, nil
	}
	u := &api.ContainerUpdate{}
	u.SetContainerId(ctr.GetId())
	u.SetLinuxCPUSetMems(o.mems)
	fmt.Printf("mems-owner: update %s saw mems=%q set mems=%s\n", ctr.GetId(), res.GetCpu().GetMems(), o.mems)
	return []*api.ContainerUpdate{u}, nil
}

func main() {
	name := flag.String("name", "mems-owner", "plugin name")
	idx := flag.String("idx", "05", "plugin index (two digits)")
	socket := flag.String("socket", "/var/run/nri/nri.sock", "NRI socket")
	mems := flag.String("mems", "0", "the cpu.mems it sets on every create and update (\"\": none)")
	cdiFor := flag.String("cdi-for", "", "the name of containers it gives the CDI device nvidia.com/gpu=0")
	flag.Parse()
	o := &owner{mems: *mems, cdiFor: *cdiFor}
	s, err := stub.New(o, stub.WithPluginName(*name), stub.WithPluginIdx(*idx), stub.WithSocketPath(*socket),
		stub.WithOnClose(func() { fmt.Println("mems-owner: connection closed"); os.Exit(0) }))
	if err != nil {
		fmt.Fprintf(os.Stderr, "mems-owner: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("mems-owner: registering as %s-%s on %s, mems=%s\n", *idx, *name, *socket, *mems)
	if err := s.Run(context.Background()); err != nil {
		fmt.Fprintf(os.Stderr, "mems-owner: %v\n", err)
		os.Exit(1)
	}
}
