#!/usr/bin/python3
"""Builds an OCI image archive offline for `ctr images import`: one uncompressed layer holding
ROOTFS_DIR, a config whose Cmd is CMD, a manifest, index.json naming the image REF, oci-layout.
Usage: make_image.py OUT.tar REF ROOTFS_DIR CMD...   (REF like docker.io/gnh/busybox:cri)"""
import hashlib
import io
import json
import platform
import sys
import tarfile


ARCH = {"x86_64": "amd64", "aarch64": "arm64", "ppc64le": "ppc64le"}.get(platform.machine(), platform.machine())


def blob(tar, data):
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    info = tarfile.TarInfo("blobs/sha256/" + digest[7:])
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))
    return digest


def main(out, ref, rootfs, cmd):
    layer_buf = io.BytesIO()
    with tarfile.open(fileobj=layer_buf, mode="w", format=tarfile.PAX_FORMAT) as layer:
        layer.add(rootfs, arcname=".", filter=lambda ti: (setattr(ti, "mtime", 0) or setattr(ti, "uid", 0) or
                                                         setattr(ti, "gid", 0) or setattr(ti, "uname", "") or
                                                         setattr(ti, "gname", "") or ti))
    layer_data = layer_buf.getvalue()
    with tarfile.open(out, "w") as tar:
        layer_digest = blob(tar, layer_data)
        config = json.dumps({
            "architecture": ARCH, "os": "linux",
            "config": {"Cmd": cmd, "Env": ["PATH=/bin"]},
            "rootfs": {"type": "layers", "diff_ids": [layer_digest]},
        }).encode()
        config_digest = blob(tar, config)
        manifest = json.dumps({
            "schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": config_digest, "size": len(config)},
            "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar", "digest": layer_digest, "size": len(layer_data)}],
        }).encode()
        manifest_digest = blob(tar, manifest)
        index = json.dumps({
            "schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json",
            "manifests": [{"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": manifest_digest,
                           "size": len(manifest), "platform": {"architecture": ARCH, "os": "linux"},
                           "annotations": {"io.containerd.image.name": ref,
                                           "org.opencontainers.image.ref.name": ref.rsplit(":", 1)[1]}}],
        }).encode()
        for name, data in (("index.json", index), ("oci-layout", b'{"imageLayoutVersion":"1.0.0"}')):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


if __name__ == "__main__":
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:])
