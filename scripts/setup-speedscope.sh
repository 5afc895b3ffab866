#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the speedscope npm package (its file-format-schema.json and its importer are what the
# speedscope writer is tested against) into tools/speedscope/node_modules when missing.
# It has a prefix of its own: npm removes packages it did not save when installing another one
# into the same prefix, so sharing tools/node_modules would uninstall the other tools.
set -euo pipefail
SPEEDSCOPE_VERSION=1.25.0
root=$(cd "$(dirname "$0")/.." && pwd)
prefix="$root/tools/speedscope"
installed="$prefix/node_modules/speedscope/package.json"
if [ -f "$installed" ] && grep -q "\"version\": \"$SPEEDSCOPE_VERSION\"" "$installed"; then
  exit 0
fi
echo "setup: installing speedscope@$SPEEDSCOPE_VERSION into $prefix" >&2
mkdir -p "$prefix"
npm install --prefix "$prefix" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
  "speedscope@$SPEEDSCOPE_VERSION" >/dev/null
