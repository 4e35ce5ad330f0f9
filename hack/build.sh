#!/usr/bin/env bash
# Configures and builds one build tree.
#   hack/build.sh            -> build/        (RelWithDebInfo, warnings are errors)
#   hack/build.sh asan       -> build-asan/   (AddressSanitizer + UBSan, tests only)
set -euo pipefail
cd "$(dirname "$0")/.."

flavour="${1:-release}"
jobs="${KAI_JOBS:-2}"
case "$flavour" in
  release)
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKAI_WERROR=ON >/dev/null
    cmake --build build -j"$jobs"
    ;;
  asan)
    cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" \
      -DKAI_SANITIZE=ON -DKAI_WERROR=ON -DKAI_BUILD_BENCHMARKS=OFF >/dev/null
    cmake --build build-asan -j"$jobs"
    ;;
  *)
    echo "usage: hack/build.sh [release|asan]" >&2
    exit 2
    ;;
esac
