# SPDX-License-Identifier: MIT
# massif in, checked with valgrind's ms_print: for every fixture made by valgrind --tool=massif,
# profkit's bytes by stack of the peak snapshot (peak_space) and of the last detailed one
# (inuse_space) equal the tree ms_print prints for that snapshot, node by node (a node's own
# bytes are its bytes less its children's), and their totals equal ms_print's useful-heap(B).
# ms_print runs with --threshold=0, so that it prints massif's tree as massif wrote it (its
# own threshold folds small nodes again, into "in N+ places, all below ms_print's threshold").
. "$(dirname "$0")/lib.sh"
DATA=$SRC/tests/data/massif

require_tool ms_print "Debian package valgrind"

# "stack bytes" lines, sorted, of snapshot $2's tree as ms_print prints it.
ms_print_tree() {
    ms_print --threshold=0 "$1" | python3 -c 'import re, sys
want = sys.argv[1]
lines = sys.stdin.read().split("\n")
row = re.compile(r"^\s*(\d+)\s+[\d,]+\s+[\d,]+\s+([\d,]+)\s+[\d,]+\s+[\d,]+\s*$")
node = re.compile(r"^([ |]*)->\s*[\d.]+% \(([\d,]+)B\) (.*)$")
last = None
tree = None
for i, line in enumerate(lines):
    m = row.match(line)
    if m:
        last = m.group(1)
        continue
    if last == want and tree is None and re.match(r"^[\d.]+% \(([\d,]+)B\) \(", line):
        tree = [(-1, int(re.match(r"^[\d.]+% \(([\d,]+)B\)", line).group(1).replace(",", "")), None)]
        nodes = []
        for l in lines[i + 1:]:
            n = node.match(l)
            if not n:
                if l.strip(" |") == "":
                    continue
                break
            depth = len(n.group(1)) // 2
            name = re.sub(r"^0x[0-9A-Fa-f]+: ", "", n.group(3))
            name = re.sub(r" \((in [^)]*|[^()]*:\d+)\)$", "", name)
            nodes.append((depth, int(n.group(2).replace(",", "")), name))
        break
if tree is None:
    sys.exit("snapshot %s has no tree in ms_print output" % want)
print("total", tree[0][1])
stack = []
own = {}
for k, (depth, size, name) in enumerate(nodes):
    stack = stack[:depth] + [name]
    children = 0
    for d2, s2, _ in nodes[k + 1:]:
        if d2 <= depth:
            break
        if d2 == depth + 1:
            children += s2
    if size - children:
        key = ";".join(reversed(stack))
        own[key] = own.get(key, 0) + size - children
for key in sorted(own):
    print(key, own[key])' "$2"
}

profkit_tree() {
    echo "total $("$PROFKIT" report "$1" --value "$2" --top 1 --json --quiet |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["total"])')"
    "$PROFKIT" convert "$1" --to folded --value "$2" | sort
}

for file in "$DATA"/massif.out.*; do
    name=$(basename "$file")
    for value in peak_space inuse_space; do
        key=massif.${value%_space}_snapshot
        snapshot=$("$PROFKIT" info "$file" | awk -v k="$key" '$1 == k {print $2}')
        CHECKS=$((CHECKS + 1))
        if [ -z "$snapshot" ]; then
            fail "$name: info names no $key"
            continue
        fi
        ms_print_tree "$file" "$snapshot" >"$name.$value.ms_print" || fail "$name: ms_print's tree"
        profkit_tree "$file" "$value" >"$name.$value.profkit"
        expect_same_lines "$name.$value.ms_print" "$name.$value.profkit" \
            "$name $value: profkit's bytes by stack differ from ms_print's (snapshot $snapshot)"
    done
done

finish
