#!/usr/bin/env bash
# Installs dependencies, builds, and runs every test with ctest: all tests in the release build,
# then the unit tests again under AddressSanitizer + UndefinedBehaviorSanitizer. Prints ctest's
# summary and exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."

hack/install-deps.sh || exit 1
jobs="${KAI_JOBS:-2}"
status=0

echo "== build (release)"
hack/build.sh release || exit 1
echo "== ctest (release: unit, integration, e2e, scenarios)"
ctest --test-dir build -j"$jobs" --output-on-failure --timeout 300 || status=1

if [ "${KAI_SKIP_ASAN:-0}" != "1" ]; then
  echo "== build (asan+ubsan)"
  hack/build.sh asan || exit 1
  echo "== ctest (asan+ubsan: unit)"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-asan -L unit -j"$jobs" --output-on-failure --timeout 600 || status=1
fi

if [ $status -ne 0 ]; then echo "hack/test.sh: FAILED"; else echo "hack/test.sh: all tests passed"; fi
exit $status
