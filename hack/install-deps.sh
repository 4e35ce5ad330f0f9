#!/usr/bin/env bash
# Installs the Debian packages the project builds and tests with. Idempotent: when everything is
# present it does nothing; otherwise it runs `apt-get update` once and installs only what is
# missing. Run as root (or with sudo available).
set -euo pipefail

PACKAGES=(
  cmake ninja-build g++ ccache pkg-config python3
  libcurl4-openssl-dev libssl-dev zlib1g-dev
  rapidjson-dev libyaml-cpp-dev libboost-dev
  libgoogle-glog-dev libgflags-dev
  googletest libgtest-dev libgmock-dev libbenchmark-dev
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "install-deps: missing ${missing[*]} and not root (no sudo)" >&2
    exit 1
  fi
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"

if ! command -v kubectl >/dev/null 2>&1; then
  echo "install-deps: warning: kubectl is not on PATH; kubectl-driven tests will fail" >&2
fi
