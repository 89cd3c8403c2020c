#!/usr/bin/env bash
# Run deploy/install.sh in a fresh Debian arm64 root (bookworm by default), emulated with
# qemu-user, to check the installer on the Pi's architecture without a Pi.
#
#     sudo deploy/test-in-chroot.sh [bookworm|trixie] [ROOT_DIR]
#
# Needs: root, debootstrap, qemu-user-static, binfmt_misc (mounted, or mountable), ~1.5 GB
# of disk, and 20-40 minutes: every arm64 program runs under emulation. Not part of
# `make test` or CI for that reason. Debian's archive has no python3-picamera2 (it comes
# from Raspberry Pi's own archive), so the installer runs with --no-camera; set
# RPI_APT_SOURCE to a full "deb ..." line for that archive to test the camera packages too.
# MIRROR overrides debootstrap's default Debian mirror.
set -euo pipefail

SUITE="${1:-bookworm}"
ROOT="${2:-/var/tmp/ligretto-chroot-$SUITE}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SRC="$(dirname "$HERE")"

die() { printf 'test-in-chroot.sh: %s\n' "$*" >&2; exit 1; }
[[ $EUID -eq 0 ]] || die "run as root"
case "$SUITE" in bookworm | trixie) ;; *) die "suite must be bookworm or trixie, not $SUITE" ;; esac
command -v debootstrap >/dev/null || apt-get install -y debootstrap
command -v qemu-aarch64-static >/dev/null || apt-get install -y qemu-user-static binfmt-support
if [[ ! -e /proc/sys/fs/binfmt_misc/register ]]; then
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
fi
if [[ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]]; then
    update-binfmts --enable qemu-aarch64 || die "cannot register qemu-aarch64 with binfmt_misc"
fi

if [[ ! -x $ROOT/usr/bin/python3 ]]; then
    mirror=()
    if [[ -n ${MIRROR:-} ]]; then
        mirror=("$MIRROR")
    fi
    debootstrap --arch=arm64 --variant=minbase --include=python3,ca-certificates,systemd,passwd \
        "$SUITE" "$ROOT" "${mirror[@]}"
fi
if [[ -n ${RPI_APT_SOURCE:-} ]]; then
    echo "$RPI_APT_SOURCE" >"$ROOT/etc/apt/sources.list.d/raspi.list"
fi
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"

mounts=(proc sys dev)
cleanup() {
    for m in "${mounts[@]}"; do
        umount -l "$ROOT/$m" 2>/dev/null || true
    done
}
trap cleanup EXIT
mount -t proc proc "$ROOT/proc"
mount --rbind /sys "$ROOT/sys"
mount --rbind /dev "$ROOT/dev"

rm -rf "$ROOT/opt/src"
mkdir -p "$ROOT/opt/src"
# the working tree as committed plus local changes, without venvs and caches
tar -C "$SRC" --exclude=.venv --exclude=build --exclude=.git --exclude=__pycache__ -cf - . |
    tar -C "$ROOT/opt/src" -xf -

camera_flag=--no-camera
if [[ -n ${RPI_APT_SOURCE:-} ]]; then
    camera_flag=""
fi
# shellcheck disable=SC2086  # camera_flag is empty or one word
chroot "$ROOT" /bin/bash -c "cd /opt/src && deploy/install.sh $camera_flag --no-start"
chroot "$ROOT" /opt/ligretto-vision/venv/bin/python -c \
    'import numpy, cv2; print("in the chroot: numpy", numpy.__version__, "opencv", cv2.__version__)'
chroot "$ROOT" /opt/ligretto-vision/venv/bin/ligretto-vision config --config /etc/ligretto-vision/ligretto-vision.toml >/dev/null
test -L "$ROOT/etc/systemd/system/multi-user.target.wants/ligretto-vision.service" || die "service not enabled"
# an update is the same script again: it must keep the config and succeed
chroot "$ROOT" /bin/bash -c "cd /opt/src && deploy/install.sh $camera_flag --no-start" | grep -q "keeping /etc/ligretto-vision"
chroot "$ROOT" /bin/bash -c "cd /opt/src && deploy/uninstall.sh --purge"
test ! -e "$ROOT/opt/ligretto-vision" || die "uninstall left /opt/ligretto-vision"
echo "install, update and uninstall passed in a $SUITE arm64 root at $ROOT"
