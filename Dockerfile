# Builds every KAI component from source on Debian bookworm and ships them in one slim image:
#   docker build -t kai-scheduler-cpp:0.1.0 .
# The Deployments in config/ run /usr/local/bin/kai-scheduler, /usr/local/bin/kai-binder, ...
# from it.

FROM debian:bookworm AS build
WORKDIR /src
# Dependencies first, so that source changes do not re-run apt.
COPY hack/install-deps.sh hack/install-deps.sh
RUN hack/install-deps.sh && rm -rf /var/lib/apt/lists/*
COPY . .
RUN rm -rf build build-asan \
 && cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DKAI_BUILD_TESTS=OFF -DKAI_BUILD_BENCHMARKS=OFF \
 && cmake --build build -j"$(nproc)" \
 && strip build/bin/*

FROM debian:bookworm-slim AS runtime
# Shared libraries of the binaries only (no compilers, no headers).
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends \
      ca-certificates libcurl4 libssl3 libyaml-cpp0.7 libgoogle-glog0v6 libgflags2.2 \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/build/bin/ /usr/local/bin/
# Fail the build when a binary needs a library the runtime image lacks.
RUN ! ldd /usr/local/bin/* | grep "not found"
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/kai-scheduler"]
