#!/usr/bin/env bash
# Install Camel Pyramid on Raspberry Pi OS (Bookworm or later): `make install-pi`.
#
# What it does, in order (each step is printed; --dry-run prints them and changes nothing):
#   1. Debian packages: python3-picamera2 (the Pi camera; not on PyPI), python3-venv,
#      python3-lgpio (gpiozero's GPIO backend), mosquitto (the table's MQTT broker).
#   2. A virtual environment made with --system-site-packages, so it sees the system picamera2,
#      and the project installed into it (`pip install -e`) under constraints-bookworm.txt (numpy
#      stays Debian's, OpenCV is a build for numpy 1.x); then it checks that numpy, OpenCV and
#      picamera2 import from the venv, and stops with the cause if one does not.
#   3. /etc/camel-pyramid/table.toml (kept if it exists) and the data folder for the event log.
#   4. systemd units for the hub (`pyramid hub`) and the firmware (`pyramid watch`), restarted on
#      failure, logging to the journal (`journalctl -u camel-pyramid-watch -f`).
#   5. The dashboard's address, printed and shown as a QR code for the players' phones.
#
# Usage: firmware/install/install-pi.sh [--dry-run] [--user NAME] [--table ID] [--http-port N]
#                                        [--venv DIR] [--no-apt] [--no-start] [--force]
#                                        [--units-only DIR]  (write the two unit files, nothing else)
#                                        [--python-only]  (step 2 only: the venv and the project)
#                                        [--without-picamera2]  (no Pi camera library here: skip
#                                         its import check; the emulated Pi of `make pi-check`)
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$REPO/firmware/install"
DRY_RUN=0
APT=1
START=1
FORCE=0
RUN_USER="${SUDO_USER:-$(id -un)}"
TABLE="table-1"
HTTP_PORT=8080
VENV=""  # default: ~RUN_USER/.local/share/camel-pyramid/venv (set after the options)
UNITS_ONLY=""
PYTHON_ONLY=0
NEED_PICAMERA2=1
CONSTRAINTS="$HERE/constraints-bookworm.txt"
CONFIG_DIR=/etc/camel-pyramid
CONFIG="$CONFIG_DIR/table.toml"
DATA=/var/lib/camel-pyramid
UNIT_DIR=/etc/systemd/system
APT_PACKAGES=(python3-picamera2 python3-numpy python3-venv python3-pip python3-lgpio mosquitto
              mosquitto-clients)

usage() {
    sed -n '2,22p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
    case "$1" in
        --dry-run) DRY_RUN=1 ;;
        --no-apt) APT=0 ;;
        --no-start) START=0 ;;
        --force) FORCE=1 ;;
        --user) RUN_USER="${2:?--user needs a name}"; shift ;;
        --table) TABLE="${2:?--table needs an id}"; shift ;;
        --http-port) HTTP_PORT="${2:?--http-port needs a number}"; shift ;;
        --venv) VENV="${2:?--venv needs a folder}"; shift ;;
        --units-only) UNITS_ONLY="${2:?--units-only needs a folder}"; shift ;;
        --python-only) PYTHON_ONLY=1; APT=0 ;;
        --without-picamera2) NEED_PICAMERA2=0 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install-pi: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done

if ! [[ "$TABLE" =~ ^[A-Za-z0-9_-]{1,64}$ ]]; then
    echo "install-pi: table id '$TABLE' must be 1-64 letters, digits, '-' or '_'" >&2
    exit 2
fi
if ! [[ "$HTTP_PORT" =~ ^[0-9]+$ ]] || [ "$HTTP_PORT" -lt 1 ] || [ "$HTTP_PORT" -gt 65535 ]; then
    echo "install-pi: --http-port must be 1..65535, got '$HTTP_PORT'" >&2
    exit 2
fi

# SUDO for system files; AS_USER so the venv belongs to the user who runs the services
if [ -z "$VENV" ]; then
    # its own venv, not the Makefile's .venv (for `make test`), which has no system site packages
    USER_HOME="$(getent passwd "$RUN_USER" | cut -d: -f6)"
    VENV="${USER_HOME:-$HOME}/.local/share/camel-pyramid/venv"
fi

SUDO=()
AS_USER=()
if [ "$(id -u)" -ne 0 ]; then
    SUDO=(sudo)
elif [ "$RUN_USER" != root ]; then
    AS_USER=(sudo -u "$RUN_USER")
fi

step() { printf '\n==> %s\n' "$*"; }

# Run a command, or only print it with --dry-run.
run() {
    printf '+ %s\n' "$*"
    if [ "$DRY_RUN" -eq 0 ]; then
        "$@"
    fi
}

# Write stdin to a root-owned file (printed instead with --dry-run).
write_root_file() {
    local path="$1" content
    content="$(cat)"
    printf '+ write %s\n' "$path"
    if [ "$DRY_RUN" -eq 1 ]; then
        printf '%s\n' "$content" | sed 's/^/    | /'
    else
        printf '%s\n' "$content" | "${SUDO[@]}" tee "$path" >/dev/null
    fi
}

# Fill in a template's @FIELDS@.
render() {
    sed -e "s|@USER@|$RUN_USER|g" -e "s|@REPO@|$REPO|g" -e "s|@VENV@|$VENV|g" \
        -e "s|@CONFIG@|$CONFIG|g" -e "s|@TABLE@|$TABLE|g" -e "s|@DATA@|$DATA|g" \
        -e "s|@HTTP_PORT@|$HTTP_PORT|g" "$1"
}

if [ -n "$UNITS_ONLY" ]; then  # only write the unit files into a folder (for checking them)
    mkdir -p "$UNITS_ONLY"
    for unit in camel-pyramid-hub camel-pyramid-watch; do
        render "$HERE/$unit.service.in" >"$UNITS_ONLY/$unit.service"
    done
    echo "wrote $UNITS_ONLY/camel-pyramid-hub.service and camel-pyramid-watch.service"
    exit 0
fi

step "checking the machine"
if [ "$PYTHON_ONLY" -eq 1 ]; then FORCE=1; fi  # the venv alone may be checked anywhere
MODEL="$(tr -d '\0' 2>/dev/null </proc/device-tree/model || true)"
if [[ "$MODEL" == Raspberry\ Pi* ]]; then
    echo "found: $MODEL"
elif [ "$FORCE" -eq 1 ] || [ "$DRY_RUN" -eq 1 ]; then
    echo "not a Raspberry Pi (${MODEL:-no device-tree model}); going on (--force or --dry-run)"
else
    echo "install-pi: this is not a Raspberry Pi (${MODEL:-no device-tree model})." >&2
    echo "            Use --dry-run to see the steps, or --force to install anyway." >&2
    exit 1
fi
if ! id "$RUN_USER" >/dev/null 2>&1; then
    echo "install-pi: no user '$RUN_USER' (use --user NAME)" >&2
    exit 2
fi

if [ "$APT" -eq 1 ]; then
    step "Debian packages: ${APT_PACKAGES[*]}"
    run "${SUDO[@]}" apt-get update -qq
    run "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${APT_PACKAGES[@]}"
    run "${SUDO[@]}" systemctl enable --now mosquitto
fi

step "virtual environment $VENV (sees the system's picamera2)"
if [ -f "$VENV/pyvenv.cfg" ] && ! grep -q '^include-system-site-packages = true' "$VENV/pyvenv.cfg"; then
    echo "install-pi: $VENV exists without --system-site-packages, so it cannot see picamera2." >&2
    echo "            Remove it (rm -rf $VENV) or choose another with --venv DIR." >&2
    [ "$DRY_RUN" -eq 1 ] || exit 1
fi
if [ ! -x "$VENV/bin/python" ]; then
    run "${AS_USER[@]}" mkdir -p "$(dirname "$VENV")"
    run "${AS_USER[@]}" python3 -m venv --system-site-packages "$VENV"
fi
run "${AS_USER[@]}" "$VENV/bin/python" -m pip install --quiet --upgrade pip
# the constraints keep Debian's numpy (apt's picamera2 and simplejpeg are built against it) and
# an OpenCV built for numpy 1.x; wheels only for the two, never an hour-long build on the Pi
run "${AS_USER[@]}" "$VENV/bin/python" -m pip install --quiet -c "$CONSTRAINTS" \
    --only-binary=numpy,opencv-python-headless -e "$REPO"
# the project's bytecode, written now: an editable install has none, and a process that compiles
# its modules from source keeps the compiler's freed memory in its heap (the watch: 4 MB more
# after its imports, 1.2-1.4 MB more at its peak, bench/firmware.py), on every start until the
# service has written the files itself, or forever where it cannot write the checkout
run "${AS_USER[@]}" "$VENV/bin/python" -m compileall -q "$REPO/firmware" "$REPO/hub" \
    "$REPO/vision" "$REPO/hardware" ||
    echo "install-pi: the bytecode was not written (see above); the table runs, on more memory" >&2
CHECK_ARGS=(--expect-debian-numpy)
if [ "$NEED_PICAMERA2" -eq 1 ]; then CHECK_ARGS+=(--need-picamera2); fi
if [ "$DRY_RUN" -eq 0 ]; then
    if ! "${AS_USER[@]}" "$VENV/bin/python" -m firmware.pi_env "${CHECK_ARGS[@]}"; then
        echo "install-pi: the venv $VENV cannot run the table (see above). Nothing was" >&2
        echo "            started; fix the cause and run the install again." >&2
        exit 1
    fi
else
    printf '+ %s\n' "$VENV/bin/python -m firmware.pi_env ${CHECK_ARGS[*]}"
fi
if [ "$PYTHON_ONLY" -eq 1 ]; then
    echo "install-pi: the venv $VENV is ready (--python-only: nothing else was done)"
    exit 0
fi

# shellcheck source=broker.sh disable=SC1091
. "$HERE/broker.sh"
configure_broker

step "configuration $CONFIG and data folder $DATA"
run "${SUDO[@]}" mkdir -p "$CONFIG_DIR" "$DATA"
run "${SUDO[@]}" chown "$RUN_USER" "$DATA"
if [ -f "$CONFIG" ]; then
    echo "keeping the existing $CONFIG"
else
    render "$HERE/table.toml.in" | write_root_file "$CONFIG"
fi
if [ "$DRY_RUN" -eq 0 ]; then
    "$VENV/bin/pyramid" watch --config "$CONFIG" --check >/dev/null
fi
run "${SUDO[@]}" usermod -aG video,gpio "$RUN_USER"
# `pyramid` on everyone's PATH: the set-up (pyramid camera, pyramid calibrate) runs from a shell
run "${SUDO[@]}" ln -sf "$VENV/bin/pyramid" /usr/local/bin/pyramid

step "systemd units in $UNIT_DIR"
for unit in camel-pyramid-hub camel-pyramid-watch; do
    render "$HERE/$unit.service.in" | write_root_file "$UNIT_DIR/$unit.service"
done
if [ "$START" -eq 1 ]; then
    run "${SUDO[@]}" systemctl daemon-reload
    run "${SUDO[@]}" systemctl enable --now camel-pyramid-hub.service camel-pyramid-watch.service
fi

step "the dashboard"
ADDRESS="$(hostname -I 2>/dev/null | awk '{print $1}')"
URL="http://${ADDRESS:-$(hostname).local}:$HTTP_PORT/"
echo "Open $URL on a phone or tablet on the same Wi-Fi:"
QR_PYTHON=""
for py in "$VENV/bin/python" "$REPO/.venv/bin/python" python3; do
    if "$py" -c "import segno" 2>/dev/null; then QR_PYTHON="$py"; break; fi
done
if [ -n "$QR_PYTHON" ]; then
    "$QR_PYTHON" -c 'import segno, sys; segno.make(sys.argv[1]).terminal(compact=True)' "$URL"
else
    echo "(no QR code: segno is not installed yet)"
fi
echo
echo "Logs: journalctl -u camel-pyramid-hub -u camel-pyramid-watch -f"
