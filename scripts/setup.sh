#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what profkit needs to build and test on Debian 12, as root, when it is missing.
# Safe to run again: packages already installed are left alone.
#   scripts/setup.sh [--build-only | --bench]    --bench adds the benchmarks' own packages
set -euo pipefail

# Build: compilers, CMake, and the libraries profkit links.
BUILD_PACKAGES=(
  build-essential cmake pkg-config clang libclang-rt-14-dev
  zlib1g-dev libxxhash-dev libdw-dev libelf-dev libiberty-dev
  libdebuginfod-dev  # binaries and sources by build id from debuginfod servers
  libprotobuf-c-dev protobuf-c-compiler
  libcurl4-openssl-dev libzip-dev  # capture from Roku devices; channel packages (--source)
  libyajl-dev  # the JSON readers' streaming parser
  libcapstone-dev  # the instructions `profkit view` serves to the profiler's assembly view
  libzstd-dev  # perf.data's compressed records (perf record -z), zstd-compressed inputs
  time  # /usr/bin/time -v: peak memory in the benchmarks (bench/)
  scdoc  # the man pages (docs/man/), built when it is there
)
# Tests: cmocka, and the real tools profkit's output is checked against (pprof in Go and Perl,
# gperftools, a headless browser that opens the SVG flame graphs).
TEST_PACKAGES=(
  libcmocka-dev libjansson-dev libxml2-dev python3 python3-jsonschema
  golang-go google-perftools libgoogle-perftools-dev binutils llvm
  libjemalloc2 libjemalloc-dev  # jemalloc heap profiles of a program built by the tests
  chromium fonts-dejavu-core
  clang-tools cppcheck gcovr  # static analysis (scan-build, cppcheck); coverage
  bash-completion zsh fish  # the shell completions, run or parsed by each shell
  debhelper dpkg-dev fakeroot lintian git  # the Debian packages built from the tree (debian/)
  valgrind  # callgrind_annotate and cg_annotate read profkit's callgrind output
  dmtracedump  # compares its per-method times of ART method traces with profkit's
  groff-base  # the man page test formats every page as man does (groff -man -Tutf8)
  linux-perf  # perf record makes perf.data, perf script is what it is compared with
  heaptrack  # heaptrack_print's figures are what profkit's of a heaptrack recording are checked against
  debuginfod curl  # a debuginfod server the debuginfod test starts on a loopback port, and asks
)

# Benchmarks only, never needed to build or test: the C JSON parsers that bench/json_parsers
# measures beside yajl (docs/performance.md, "Choosing the JSON parser"), and zstd.
BENCH_PACKAGES=(
  liblaxjson-dev libjq-dev libjson-c-dev libfastjson-dev libjsmn-dev libcjson-dev
  libjsonparser-dev libjson-glib-dev libfyaml-dev
  zstd  # bench/bench_heaptrack.sh: compresses its recordings, and is the floor it is compared with
)

want=("${BUILD_PACKAGES[@]}")
if [ "${1:-}" = "--bench" ]; then
  want+=("${BENCH_PACKAGES[@]}")
fi
if [ "${1:-}" != "--build-only" ]; then
  want+=("${TEST_PACKAGES[@]}")
fi

# Node.js and npm run the real viewers' loaders in the tests; a machine may already have them
# from elsewhere than Debian (whose npm package would then conflict), so look for the commands.
if [ "${1:-}" != "--build-only" ] && ! command -v npm >/dev/null 2>&1; then
  want+=(nodejs npm)
fi

missing=()
for pkg in "${want[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q '^install ok installed$'; then
    missing+=("$pkg")
  fi
done

if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: run as root (or install these packages yourself)" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ "${1:-}" != "--build-only" ]; then
  "$(dirname "$0")/setup-node-tools.sh"
  "$(dirname "$0")/setup-speedscope.sh"
fi
