#!/usr/bin/env bash
# Install ligretto-vision on Raspberry Pi OS 64-bit (bookworm or trixie) as a service that
# starts at boot and restarts on failure. Run it from a clone of the repository:
#
#     sudo deploy/install.sh            # install, or update after `git pull`
#     sudo deploy/install.sh --help     # options
#
# What it does, each step safe to repeat:
#   1. apt: Python, venv, and the camera stack (python3-picamera2 and libcamera's bindings
#      exist only as apt packages, built against apt's numpy)
#   2. a system user `ligretto` (group video, for the camera) and /var/lib/ligretto-vision
#   3. a venv at /opt/ligretto-vision/venv made with --system-site-packages, so it sees
#      apt's picamera2; the package goes in with a constraints file that keeps apt's numpy
#   4. /etc/ligretto-vision/ligretto-vision.toml (only if absent: your edits survive updates)
#   5. the systemd unit ligretto-vision.service, enabled and (re)started
set -euo pipefail

PREFIX=/opt/ligretto-vision
VENV=$PREFIX/venv
CONF_DIR=/etc/ligretto-vision
CONF=$CONF_DIR/ligretto-vision.toml
DATA_DIR=/var/lib/ligretto-vision
UNIT=/etc/systemd/system/ligretto-vision.service
SERVICE_USER=ligretto
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SRC="$(dirname "$HERE")"

with_camera=1
start=1

usage() {
    cat <<USAGE
usage: sudo $0 [--no-camera] [--no-start]
  --no-camera  skip the Pi camera packages (USB camera or simulated table only; any Debian)
  --no-start   install and enable the service but do not (re)start it now
USAGE
}

say() { printf '\n== %s\n' "$*"; }
die() { printf 'install.sh: %s\n' "$*" >&2; exit 1; }

for arg in "$@"; do
    case "$arg" in
        --no-camera) with_camera=0 ;;
        --no-start) start=0 ;;
        -h | --help) usage; exit 0 ;;
        *) usage >&2; die "unknown option: $arg" ;;
    esac
done

[[ $EUID -eq 0 ]] || die "run as root: sudo $0 $*"
[[ -f "$SRC/pyproject.toml" ]] || die "run from a clone of ligretto-vision (no pyproject.toml in $SRC)"
[[ -r /etc/os-release ]] || die "cannot tell which system this is (no /etc/os-release)"
# shellcheck source=/dev/null
. /etc/os-release
codename="${VERSION_CODENAME:-unknown}"
case "$codename" in
    bookworm | trixie) ;;
    *) die "needs Raspberry Pi OS bookworm or trixie (64-bit); this is ${PRETTY_NAME:-$codename}" ;;
esac
arch="$(dpkg --print-architecture)"
[[ $arch == arm64 ]] || echo "note: made for 64-bit Raspberry Pi OS (arm64); this is $arch"

say "1/5 apt packages"
export DEBIAN_FRONTEND=noninteractive
apt-get update
packages=(python3 python3-venv python3-pip python3-numpy ca-certificates)
if ((with_camera)); then
    packages+=(python3-picamera2 python3-libcamera python3-simplejpeg)
fi
# --no-install-recommends: picamera2 otherwise brings the Qt/OpenGL preview stack a headless Pi never uses
apt-get install -y --no-install-recommends "${packages[@]}"

say "2/5 service user and data folder"
if ! id -u "$SERVICE_USER" >/dev/null 2>&1; then
    useradd --system --home-dir "$DATA_DIR" --shell /usr/sbin/nologin --user-group "$SERVICE_USER"
fi
usermod -a -G video "$SERVICE_USER"
install -d -o "$SERVICE_USER" -g "$SERVICE_USER" -m 0755 "$DATA_DIR" "$DATA_DIR/clips"

say "3/5 venv and package"
# a venv made without --system-site-packages cannot see apt's picamera2: make it anew
if [[ ! -x $VENV/bin/python ]] || ! grep -q '^include-system-site-packages = true' "$VENV/pyvenv.cfg"; then
    rm -rf "$VENV"
    install -d "$PREFIX"
    python3 -m venv --system-site-packages "$VENV"
fi
constraints="$(mktemp)"
trap 'rm -f "$constraints"' EXIT
cat "$HERE/constraints-$codename.txt" >"$constraints"
# pip must never replace apt's numpy: picamera2 and simplejpeg are built against exactly it
system_numpy="$(/usr/bin/python3 -c 'import numpy; print(numpy.__version__)')"
echo "numpy==$system_numpy" >>"$constraints"
"$VENV/bin/pip" install --disable-pip-version-check --constraint "$constraints" "$SRC"
install -m 0644 "$SRC/README.md" "$PREFIX/README.md"
echo "$SRC" >"$PREFIX/installed-from"
selftest=("$VENV/bin/python" -m ligretto_vision.capture.selftest)
if ((with_camera)); then
    selftest+=(--camera)
fi
"${selftest[@]}"

say "4/5 configuration"
install -d -m 0755 "$CONF_DIR"
if [[ -f $CONF ]]; then
    echo "keeping $CONF (compare with $HERE/ligretto-vision.toml for new settings)"
else
    install -m 0644 "$HERE/ligretto-vision.toml" "$CONF"
    echo "wrote $CONF"
fi
"$VENV/bin/ligretto-vision" config --config "$CONF" >/dev/null || die "$CONF does not load: fix it, then run again"

say "5/5 systemd service"
install -m 0644 "$HERE/ligretto-vision.service" "$UNIT"
if [[ -d /run/systemd/system ]]; then
    systemctl daemon-reload
    systemctl enable ligretto-vision.service
    if ((start)); then
        systemctl restart ligretto-vision.service
        echo "started; status: systemctl status ligretto-vision   log: journalctl -u ligretto-vision -f"
    fi
else
    # no running systemd (a chroot, a container): enable for the next boot only
    systemctl enable ligretto-vision.service || ln -sf "$UNIT" /etc/systemd/system/multi-user.target.wants/
    echo "systemd is not running here: the service starts at the next boot"
fi

port="$("$VENV/bin/python" - "$CONF" <<'PY'
import sys
from ligretto_vision.config import load_config
print(load_config(sys.argv[1]).panel.port)
PY
)"
say "done: open http://${HOSTNAME:-raspberrypi}.local:$port on a phone on the same network"
