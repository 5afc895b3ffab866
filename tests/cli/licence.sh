# SPDX-License-Identifier: MIT
# The licence is stated where users and packagers look for it: LICENSE, debian/copyright in
# Debian's machine-readable form, profkit.pc, and an SPDX line at the head of every source file
# the project wrote (test data, fuzz corpora and Markdown documents are not source files; the
# Debian packaging files other than debian/rules are covered by debian/copyright).
. "$(dirname "$0")/lib.sh"

expect_file "$SRC/LICENSE"
expect_contains "$(head -1 "$SRC/LICENSE")" "MIT License" "LICENSE"
copyright=$(cat "$SRC/debian/copyright")
expect_contains "$copyright" "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/" "debian/copyright"
expect_contains "$copyright" "License: MIT" "debian/copyright"
expect_contains "$copyright" "libiberty" "debian/copyright (what is linked in statically)"
expect_contains "$(cat "$SRC/profkit.pc.in")" "License: MIT" "profkit.pc.in"

# Every file of the tree that is the project's own source, as git lists it where the source is a
# clone, else as find does.
if git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1; then
    git -C "$SRC" ls-files > files.txt
else
    (cd "$SRC" && find . -type f ! -path './build*' ! -path './.git/*' ! -path './tools/*' | sed 's|^\./||') > files.txt
fi
grep -v -e '^tests/data/' -e '^fuzz/corpus/' -e '\.md$' -e '^debian/' -e '^examples/.*\.bsprof$' \
     -e '^tools/' -e '^\.gitignore$' -e '^LICENSE$' files.txt > sources.txt
echo debian/rules >> sources.txt
missing=""
while IFS= read -r f; do
    [ -f "$SRC/$f" ] || continue
    head -3 "$SRC/$f" | grep -q 'SPDX-License-Identifier: MIT' || missing="$missing $f"
done < sources.txt
CHECKS=$((CHECKS + 1))
[ -z "$missing" ] || fail "files without 'SPDX-License-Identifier: MIT' in their first three lines:$missing"
# Not vacuous: the list holds the library's sources.
expect_contains "$(cat sources.txt)" "src/core/profile.c" "source list"
finish
