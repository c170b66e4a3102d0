#!/usr/bin/env bash
# Install everything the test suite needs, then run all of it.
# The README's test command (`bash tests/run.sh`) and .ci/run both call this script.
# As root it installs the Debian packages the real-component tests use
# (systemd-nspawn, sshd, Prometheus, journal-remote, chromium).
# Run as a user, it runs itself again under sudo when sudo is there (root containers
# have none, and need none); LLMDOCTOR_TESTS_NO_SUDO=1 runs as the user instead, and the
# tests that need root skip with a reason. Works from a checkout anywhere.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" != 0 ] && [ -z "${LLMDOCTOR_TESTS_NO_SUDO:-}" ] && command -v sudo >/dev/null 2>&1; then
  echo "not root: running again with sudo (LLMDOCTOR_TESTS_NO_SUDO=1 to run as $(id -un))" >&2
  # sudo resets PATH: hand over the interpreter this user would have used.
  exec sudo PYTHON="${PYTHON:-$(command -v python3)}" bash "$PWD/tests/run.sh" "$@"
fi
if [ -n "${LLMDOCTOR_TESTS_DRY_RUN:-}" ]; then  # what would run, for tests/core/test_run_script.py
  echo "would run as $(id -un) in $PWD: pytest $*"
  exit 0
fi

DEBS=(systemd-container openssh-server openssh-client prometheus systemd-journal-remote
      libsystemd-dev pkg-config gcc iproute2 curl python3-venv python3-dev git tmux
      chromium chromium-driver)

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  missing=()
  for p in "${DEBS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "installing Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
extras="test"
if pkg-config --exists libsystemd 2>/dev/null; then extras="$extras,journal"; fi
log=$(mktemp)
if ! .venv/bin/python -m pip install -q -e ".[${extras}]" >"$log" 2>&1; then
  cat "$log"; echo "pip install failed"; exit 1
fi
rm -f "$log"

set +e
.venv/bin/python -m pytest -q -p no:cacheprovider "$@"
rc=$?
set -e
if [ "$rc" = 5 ]; then
  echo "pytest collected no tests"
  rc=0
fi
exit "$rc"
