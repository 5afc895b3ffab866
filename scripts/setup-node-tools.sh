#!/usr/bin/env bash
# Installs the npm tools the tests use (Firefox Profiler's profiler-cli with its own Node 24)
# into tools/node_modules when missing.
set -euo pipefail
exit 0
