#!/usr/bin/env bash
# Remove ligretto-vision installed by deploy/install.sh.
#
#     sudo deploy/uninstall.sh           # service and program; keeps settings and match history
#     sudo deploy/uninstall.sh --purge   # also /etc/ligretto-vision, /var/lib/ligretto-vision, user ligretto
#
# apt packages (python3-picamera2 and friends) stay: other programs use them too.
set -euo pipefail

purge=0
for arg in "$@"; do
    case "$arg" in
        --purge) purge=1 ;;
        -h | --help) sed -n '2,7p' "$0"; exit 0 ;;
        *) echo "uninstall.sh: unknown option: $arg" >&2; exit 1 ;;
    esac
done
[[ $EUID -eq 0 ]] || { echo "uninstall.sh: run as root: sudo $0 $*" >&2; exit 1; }

UNIT=/etc/systemd/system/ligretto-vision.service
if [[ -d /run/systemd/system ]]; then
    systemctl disable --now ligretto-vision.service 2>/dev/null || true
fi
rm -f "$UNIT" /etc/systemd/system/multi-user.target.wants/ligretto-vision.service
if [[ -d /run/systemd/system ]]; then
    systemctl daemon-reload
fi
rm -rf /opt/ligretto-vision
echo "removed the service and /opt/ligretto-vision"

if ((purge)); then
    rm -rf /etc/ligretto-vision /var/lib/ligretto-vision
    if id -u ligretto >/dev/null 2>&1; then
        userdel ligretto
    fi
    echo "removed /etc/ligretto-vision, /var/lib/ligretto-vision and user ligretto"
else
    echo "kept /etc/ligretto-vision (settings) and /var/lib/ligretto-vision (match history); --purge removes them"
fi
