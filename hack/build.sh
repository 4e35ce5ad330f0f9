#!/usr/bin/env bash
# Configures and builds one build tree.
#   hack/build.sh [release] [TARGET...]
#                            -> build/        (RelWithDebInfo, warnings are errors; every target,
#                                             or only the TARGETs named, e.g. kai-scheduler)
#   hack/build.sh asan       -> build-asan/   (AddressSanitizer + UBSan, unit test binaries only:
#                                             CI runs the unit label there)
#   hack/build.sh tsan       -> build-tsan/   (ThreadSanitizer, unit test binaries of the code
#                                             that runs threads: CI runs the unit label there)
#   hack/build.sh tidy       -> build-tidy/   (configured only: a file-by-file
#                                             compile_commands.json for clang-tidy; the release
#                                             flavour copies it to build/ too)
# Every built tree is a unity build (KAI_UNITY_BUILD: each target's sources compiled in batches,
# so the headers a batch shares are parsed once; a cold build takes a third to a half less CPU).
# KAI_UNITY=0 builds build/ file by file instead, for short incremental rebuilds while editing.
# The trees keep line tables only (-g1): stack traces, sanitizer reports and perf keep file:line,
# and compiles take ~30% less time than with -g (2-core CI). For a debugger's locals, configure a
# tree of your own with -DCMAKE_BUILD_TYPE=Debug.
set -euo pipefail
cd "$(dirname "$0")/.."

flavour="${1:-release}"
[ $# -gt 0 ] && shift
jobs="${KAI_JOBS:-2}"
unity=ON
[ "${KAI_UNITY:-1}" = "0" ] && unity=OFF
# Configure only: build-tidy/ is never built; its file-by-file compile_commands.json is for
# clang-tidy (about a second).
configure_tidy() {
  cmake -S . -B build-tidy -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DKAI_WERROR=ON >/dev/null
}

case "$flavour" in
  release)
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DKAI_UNITY_BUILD="$unity" \
      -DKAI_WERROR=ON >/dev/null
    if [ "$unity" = ON ]; then  # clang-tidy -p build needs each file's command, not the batches'
      configure_tidy
      cp build-tidy/compile_commands.json build/compile_commands.json
    fi
    if [ $# -gt 0 ]; then
      cmake --build build -j"$jobs" --target "$@"
    else
      cmake --build build -j"$jobs"
    fi
    ;;
  asan)
    cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
      -DKAI_SANITIZE=ON -DKAI_UNITY_BUILD=ON -DKAI_WERROR=ON -DKAI_BUILD_BENCHMARKS=OFF >/dev/null
    cmake --build build-asan -j"$jobs" --target kai_unit_tests
    ;;
  tsan)
    cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
      -DKAI_SANITIZE_THREAD=ON -DKAI_UNITY_BUILD=ON -DKAI_WERROR=ON -DKAI_BUILD_BENCHMARKS=OFF \
      >/dev/null
    cmake --build build-tsan -j"$jobs" --target kai_unit_tests
    ;;
  tidy)
    configure_tidy
    echo "build-tidy/compile_commands.json: clang-tidy -p build-tidy FILE.cc"
    ;;
  *)
    echo "usage: hack/build.sh [release [TARGET...]|asan|tsan|tidy]" >&2
    exit 2
    ;;
esac
