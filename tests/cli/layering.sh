# SPDX-License-Identifier: MIT
# Layers only call down (docs/design.md): the core includes nothing of the formats, analysis,
# capture or command layers, neither their private headers nor the public headers that declare
# what those layers do (a public header of the core's own, like profkit/copy.h, is fine).
. "$(dirname "$0")/lib.sh"

# The headers of the layers above the core.
above='"(formats|analysis|capture|cli)/|"profkit/(merge|diff|report|summary|source_names|capture|profkit)\.h"'

sources=$(ls "$SRC"/src/core/*.c "$SRC"/src/core/*.h "$SRC"/src/core/*.in 2>/dev/null)
# Not vacuous: the core's sources are there, and the pattern finds an include from above.
expect_contains "$sources" "src/core/profile.c" "core sources"
expect_contains "$(printf '#include "formats/formats.h"\n#include "profkit/merge.h"\n' |
                   grep -cE "^[[:space:]]*#[[:space:]]*include[[:space:]]*($above)")" "2" \
                "the pattern's own check"

# shellcheck disable=SC2086
upward=$(grep -nE "^[[:space:]]*#[[:space:]]*include[[:space:]]*($above)" $sources)
CHECKS=$((CHECKS + 1))
[ -z "$upward" ] || fail "the core includes headers of a layer above it:
$upward"
finish
