#!/usr/bin/env bash
# Install everything the test suite needs, then run all of it.
# The README's test command and .ci/run both call this script.
# As root it installs the Debian packages the real-component tests use
# (systemd-nspawn, sshd, Prometheus, journal-remote); without root those tests skip.
set -euo pipefail
cd "$(dirname "$0")/.."

DEBS=(systemd-container openssh-server openssh-client prometheus systemd-journal-remote
      libsystemd-dev pkg-config gcc iproute2 curl python3-venv python3-dev tmux)

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
if pkg-config --exists libsystemd 2>/dev/null; then extras="test,journal"; fi
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
