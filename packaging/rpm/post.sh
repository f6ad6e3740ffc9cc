# The config as the hook will read it: problems it ignores are listed (never fatal here: the
# operator's conffile must not fail the package's configuration).
if [ -x /usr/bin/gpu-numa-hook ] && ! /usr/bin/gpu-numa-hook config check >/dev/null 2>&1; then
    /usr/bin/gpu-numa-hook config check >&2 || true
    echo "gpu-numa-hook: the hook ignores what is listed above; fix /etc/gpu-numa-hook/config.toml, then run: gpu-numa-hook config check" >&2
fi
# What systemd_post does for gpu-numa-hook-check.timer, written out (the build machine need not have systemd's
# rpm macros): on first install the presets decide, and ours (90-gpu-numa-hook.preset) enables it.
if [ "$1" -eq 1 ]; then
    if [ -x /usr/lib/systemd/systemd-update-helper ]; then
        /usr/lib/systemd/systemd-update-helper install-system-units gpu-numa-hook-check.timer || :
    else
        systemctl --no-reload preset gpu-numa-hook-check.timer >/dev/null 2>&1 || :
    fi
fi
