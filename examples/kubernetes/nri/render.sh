#!/bin/sh
# render.sh KUSTOMIZE [OUT]: writes the base, rendered, to OUT (default ../nri-daemonset.yaml), the
# file for `kubectl apply -f`. Run it after every change to base/; the manifest test fails while
# the two differ.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
kustomize=${1:?usage: render.sh KUSTOMIZE [OUT]}
out=${2:-$here/../nri-daemonset.yaml}
{
	cat <<'HEAD'
# gpu-numa-hook on every GPU node through NRI (containerd 2.x, containerd 1.7 with NRI enabled,
# CRI-O 1.30+): the recommended Kubernetes install, `kubectl apply -f` this file. It is
# examples/kubernetes/nri/base rendered by examples/kubernetes/nri/render.sh: edit the base (its
# comments say why each line is there), or `kubectl apply -k` an overlay of it to choose the
# namespace, the image and the GPU node selector (examples/kubernetes/nri/overlays/example).
# containerd 1.7 only: run `gpu-numa-hook install --runtime nri` on the node once and restart
# containerd once. See docs/nri.md.
#
# NRI fails open: while the plugin is not connected, containers start without the hook. Alert on
# gpu_numa_hook_nri_plugin_connected 0 and gpu_numa_hook_nri_hook_present 0.
HEAD
	"$kustomize" build "$here/base"
} >"$out.tmp"
mv -f "$out.tmp" "$out"
