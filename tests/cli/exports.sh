# SPDX-License-Identifier: MIT
# The shared library exports exactly what the installed headers declare with PK_API: nothing
# of the archives linked into it (libiberty), of the generated protobuf-c code, or of the
# library's internal helpers; and every declared function is there.
# Run as: exports.sh PROFKIT SOURCE_DIR SCRATCH_DIR LIBPROFKIT.so
. "$(dirname "$0")/lib.sh"

LIBRARY=$4
require_tool nm "binutils"
expect_file "$LIBRARY"

# Declared: the name before the first '(' of every declaration that starts with PK_API.
python3 - "$SRC/include/profkit" > declared.txt <<'EOF'
import glob, os, re, sys
names = set()
for header in glob.glob(os.path.join(sys.argv[1], "*.h")):
    text = open(header).read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)   # comments
    text = re.sub(r"^\s*#.*$", " ", text, flags=re.M)     # preprocessor lines (#define PK_API)
    for declaration in re.findall(r"\bPK_API\b([^;{]*)", text):
        name = re.search(r"(\w+)\s*\(", declaration) or re.search(r"(\w+)\s*(?:\[[^\]]*\])?\s*$", declaration)
        if name:
            names.add(name.group(1))
print("\n".join(sorted(names)))
EOF
CHECKS=$((CHECKS + 1))
[ -s declared.txt ] || fail "no PK_API declarations found in $SRC/include/profkit"

# Exported: defined dynamic symbols, without a sanitizer's.
sh "$SRC/scripts/exported-symbols.sh" "$LIBRARY" > exported.txt
LC_ALL=C sort -u -o declared.txt declared.txt

extra=$(LC_ALL=C comm -13 declared.txt exported.txt)
missing=$(LC_ALL=C comm -23 declared.txt exported.txt)
expect_eq "$extra" "" "symbols exported but not declared PK_API"
expect_eq "$missing" "" "PK_API declarations the library does not export"
# The two lists are not empty by accident.
expect_contains "$(cat exported.txt)" "pk_read_file" "exports"
expect_contains "$(cat declared.txt)" "pk_report_build" "declarations"
finish
