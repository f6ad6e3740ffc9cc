# gnh_undo_engines: before the package's binaries go, undo what `gpu-numa-hook install` registered
# with each engine (install-state.json), so no engine is left with a default runtime whose binary
# no longer exists: that engine could start no container at all. Refuses (returns 1, one line)
# when that cannot be done. Shared, byte for byte, by the .deb's prerm and the .rpm's preun scriptlet, both
# of which call it on a real removal only (never on an upgrade).
gnh_undo_engines() {
    gnh_state=/etc/gpu-numa-hook/install-state.json
    [ -e "$gnh_state" ] || return 0
    echo "gpu-numa-hook: undoing the engine registrations recorded in $gnh_state before the binaries go"
    if [ -x /usr/bin/gpu-numa-hook ] && /usr/bin/gpu-numa-hook install --uninstall --all; then
        echo "gpu-numa-hook: restart each engine named above as its last line says, so none keeps the gpu-numa runtime"
        return 0
    fi
    echo "gpu-numa-hook: not removed: engines still name its runtime ($gnh_state): fix what is said above, run 'gpu-numa-hook install --uninstall --all', then remove the package again (or move that file away to remove it regardless)" >&2
    return 1
}
