# As systemd_postun: systemd rereads its units once ours are gone or replaced.
if [ -d /run/systemd/system ]; then
    systemctl daemon-reload >/dev/null 2>&1 || :
fi
