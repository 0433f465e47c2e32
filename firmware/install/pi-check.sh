#!/usr/bin/env bash
# `make pi-check`: the Python part of the Pi install, run in an emulated Raspberry Pi OS.
#
# Builds (once, then reuses) a minimal arm64 Debian Bookworm root with debootstrap, runs it
# through qemu-user-static (binfmt_misc), and in it does what install-pi.sh does for Python:
# a venv with --system-site-packages beside Debian's python3-numpy, the project installed with
# firmware/install/constraints-bookworm.txt, then imports the project, OpenCV (with
# cv2.aruco.ArucoDetector) and numpy there and checks that numpy is still Debian's.
# Raspberry Pi OS Bookworm is Debian Bookworm plus the Pi's own packages (picamera2, libcamera,
# lgpio): those are not in Debian, so the picamera2 import is the one step not checked here.
#
# Needs root (debootstrap, chroot, mount) and the network to Debian's and PyPI's archives.
# Usage: firmware/install/pi-check.sh [--fresh] [--root DIR]
#   --fresh     build the root again     --root DIR  where it lives (default /var/tmp/camel-pyramid/pi-check-bookworm-arm64)
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
ROOT="${PI_CHECK_ROOT:-/var/tmp/camel-pyramid/pi-check-bookworm-arm64}"
FRESH=0
while [ $# -gt 0 ]; do
    case "$1" in
        --fresh) FRESH=1 ;;
        --root) ROOT="${2:?--root needs a folder}"; shift ;;
        -h|--help) sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "pi-check: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done

say() { printf '\n==> %s (%ss)\n' "$*" "$SECONDS"; }

if [ "$(id -u)" -ne 0 ]; then
    echo "pi-check: needs root (debootstrap, chroot and mounts); run it with sudo" >&2
    exit 2
fi

say "host tools: debootstrap, qemu-user-static"
missing=()
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
[ -e /usr/bin/qemu-aarch64-static ] || missing+=(qemu-user-static)
command -v update-binfmts >/dev/null 2>&1 || missing+=(binfmt-support)
if [ "${#missing[@]}" -gt 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

say "binfmt_misc: run arm64 programs through qemu-aarch64"
if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
fi
if ! grep -qs '^enabled' /proc/sys/fs/binfmt_misc/qemu-aarch64; then
    update-binfmts --enable qemu-aarch64
fi
grep -qs '^enabled' /proc/sys/fs/binfmt_misc/qemu-aarch64 || {
    echo "pi-check: qemu-aarch64 is not registered with binfmt_misc" >&2; exit 1; }

if [ "$FRESH" -eq 1 ] && [ -d "$ROOT" ]; then
    say "removing the old root $ROOT"
    rm -rf --one-file-system "$ROOT"
fi
if [ ! -f "$ROOT/.pi-check-built" ]; then
    say "debootstrap: arm64 Bookworm (minbase, python3, python3-numpy) into $ROOT"
    rm -rf --one-file-system "$ROOT"
    mkdir -p "$ROOT"
    debootstrap --arch=arm64 --variant=minbase \
        --include=python3,python3-venv,python3-pip,python3-numpy,ca-certificates \
        bookworm "$ROOT"
    touch "$ROOT/.pi-check-built"
else
    echo "reusing $ROOT (--fresh to build it again)"
fi

# the project as the Pi sees it after `git clone`: a copy without the host's venv and caches
say "the project into the root"
rm -rf "$ROOT/opt/camel-pyramid"
mkdir -p "$ROOT/opt/camel-pyramid"
tar -C "$REPO" --exclude=./.venv --exclude=./.pi-check --exclude=./.git \
    --exclude='*.egg-info' --exclude=__pycache__ --exclude=.pytest_cache -cf - . \
    | tar -C "$ROOT/opt/camel-pyramid" -xf -
# pip inside needs the host's CA bundle (a proxy's certificate, where there is one)
HOST_CA="${PIP_CERT:-/etc/ssl/certs/ca-certificates.crt}"
cp "$HOST_CA" "$ROOT/etc/ssl/certs/host-ca.crt"
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"

mounts=()
cleanup() {
    for ((i=${#mounts[@]}-1; i>=0; i--)); do umount -l "${mounts[$i]}" 2>/dev/null || true; done
}
trap cleanup EXIT
for fs in proc sys dev; do
    mount --bind "/$fs" "$ROOT/$fs"
    mounts+=("$ROOT/$fs")
done

say "install-pi.sh --python-only in the emulated Pi"
# only PyPI inside (no host-specific pip settings), with the host's CA bundle
chroot "$ROOT" /usr/bin/env -i HOME=/root PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
    PIP_CERT=/etc/ssl/certs/host-ca.crt PIP_DEFAULT_TIMEOUT=60 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    bash /opt/camel-pyramid/firmware/install/install-pi.sh --python-only --without-picamera2 \
    --user root --venv /opt/venv

say "imports in the emulated Pi"
chroot "$ROOT" /usr/bin/env -i HOME=/root PATH=/usr/bin:/bin LANG=C.UTF-8 \
    /opt/venv/bin/python -m firmware.pi_env --expect-debian-numpy --json
echo
echo "pi-check: passed in ${SECONDS}s"
