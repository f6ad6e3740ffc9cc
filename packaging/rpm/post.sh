# What systemd_post does for gpu-numa-hook-check.timer, written out (the build machine need not have systemd's
# rpm macros): on first install the presets decide, and ours (90-gpu-numa-hook.preset) enables it.
if [ "$1" -eq 1 ]; then
    if [ -x /usr/lib/systemd/systemd-update-helper ]; then
        /usr/lib/systemd/systemd-update-helper install-system-units gpu-numa-hook-check.timer || :
    else
        systemctl --no-reload preset gpu-numa-hook-check.timer >/dev/null 2>&1 || :
    fi
fi
