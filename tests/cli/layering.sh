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
# Calls, not only includes: no symbol the core's objects use is defined by a layer above
# (a declaration copied into the core, or one reached through a public header, hides from the
# include check above). The objects are the build's, beside the command; only those of sources
# the tree has now (a build directory keeps the objects of files since moved or removed).
objects="$(dirname "$PROFKIT")/CMakeFiles/profkit_objects.dir/src"
current_objects() {
    find "$objects/$1" -name '*.c.o' | while IFS= read -r o; do
        source=${o#"$objects"/}
        [ -f "$SRC/src/${source%.o}" ] && printf '%s\n' "$o"
    done
}
if [ -d "$objects/core" ] && command -v nm > /dev/null; then
    # shellcheck disable=SC2046
    core_uses=$(nm -u $(current_objects core) | awk 'NF == 2 { print $2 }' | LC_ALL=C sort -u)
    # shellcheck disable=SC2046
    above_defines=$(nm -g --defined-only $(current_objects formats; current_objects analysis;
                                           current_objects capture) |
                    awk 'NF == 3 { print $3 }' | LC_ALL=C sort -u)
    # Not vacuous: the core uses symbols, the formats define the registry.
    expect_contains "$core_uses" "pk_intern" "the core's undefined symbols"
    expect_contains "$above_defines" "pk_format_by_name" "the formats' defined symbols"
    calls=$(LC_ALL=C comm -12 <(printf '%s\n' "$core_uses") <(printf '%s\n' "$above_defines"))
    CHECKS=$((CHECKS + 1))
    [ -z "$calls" ] || fail "the core calls functions of a layer above it:
$calls"
else
    echo "note: no objects at $objects or no nm: the calls are not checked"
fi
finish
