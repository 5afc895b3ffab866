# SPDX-License-Identifier: MIT
# Script functions in the Firefox Profiler: a node --cpu-prof profile converted by profkit is
# loaded with the profiler's own code (profiler-cli), beside the same .cpuprofile loaded through
# the profiler's own importer of V8 profiles. Every function is the kind of code (isJS,
# relevantForJS) the importer makes it, and the call tree of script code alone (what the
# profiler's "JavaScript" filter shows: other functions merged away, here with the profiler's
# merge transform, which profiler-cli offers where it does not offer the filter) holds the
# script's functions and none of V8's own entries.
. "$2/tests/cli/lib.sh"
. "$SRC/tests/cli/profiler_cli.sh"

CPUPROFILE="$SRC/tests/data/chrome/node-cpu-prof.cpuprofile"
expect_status 0 "$PROFKIT" convert "$CPUPROFILE" -o "$SCRATCH/node.json" --quiet

# kinds FILE: loads FILE and writes "name<TAB>isJS<TAB>relevantForJS<TAB>handle" per function
# to FILE.kinds, as the profiler reads them. The function list is one profiler-cli query; the
# kinds of all functions are `function info` asked of the session's daemon over one connection,
# in the commands' own line protocol (one JSON message a line, one answer a line), instead of a
# profiler-cli process (a Node start) per function: any answer but success fails the test.
kinds() {
    load "$1"
    query thread functions --json --limit 0
    CHECKS=$((CHECKS + 1))
    printf '%s' "$OUT" | node -e '
        const fs = require("fs"), net = require("net"), path = require("path");
        const dir = process.env.PROFILER_CLI_SESSION_DIR;
        const session = fs.readFileSync(path.join(dir, "current.txt"), "utf8").trim();
        const handles = JSON.parse(fs.readFileSync(0, "utf8")).functions.map(f => f.functionHandle);
        const socket = net.createConnection(path.join(dir, session + ".sock"));
        const lines = [];
        let pending = "", answered = 0;
        const done = () => { fs.writeFileSync(process.argv[1], lines.join("")); socket.end(); };
        const failed = why => { console.error(why); process.exit(1); };
        socket.setTimeout(120000, () => failed("no answer from the daemon"));
        socket.on("error", e => failed(String(e)));
        socket.on("connect", () => {
            if (handles.length === 0)
                return done();
            for (const h of handles)
                socket.write(JSON.stringify({type: "command",
                    command: {command: "function", subcommand: "info", function: h}}) + "\n");
        });
        socket.on("data", chunk => {
            pending += chunk;
            for (let nl; (nl = pending.indexOf("\n")) >= 0; pending = pending.slice(nl + 1)) {
                const answer = JSON.parse(pending.slice(0, nl));
                if (answer.type !== "success" || answer.result.type !== "function-info")
                    failed("function info: " + JSON.stringify(answer));
                const r = answer.result, py = b => (b ? "True" : "False");
                lines.push([r.name, py(r.isJS), py(r.relevantForJS), r.functionHandle].join("\t") + "\n");
                if (++answered === handles.length)
                    return done();
            }
        });' "$1.kinds" || fail "function kinds of $1"
    expect_eq "$(wc -l <"$1.kinds")" "$(json_get 'len(d["functions"])')" "a kind for every function of $1"
}

# script_tree FILE: the names in the call tree of FILE's script code alone (FILE loaded, its
# kinds known), one per line, sorted.
script_tree() {
    local others
    others=$(awk -F'\t' '$2 == "False" && $3 == "False" { print $4 }' "$1.kinds" | paste -sd,)
    query thread samples-top-down --json --max-lines 100000 --merge "$others"
    json_get '
(lambda walk: sorted(walk(walk, d["regularCallTree"])))(
    lambda walk, n: {n["name"]} | set().union(*[walk(walk, c) for c in n.get("children", [])]))' |
        python3 -c 'import ast, sys; print("\n".join(ast.literal_eval(sys.stdin.read())))' |
        grep -v '^<root>$' >"$1.tree"
}

cp "$CPUPROFILE" "$SCRATCH/imported.cpuprofile"
kinds "$SCRATCH/imported.cpuprofile"
script_tree "$SCRATCH/imported.cpuprofile"
kinds "$SCRATCH/node.json"
script_tree "$SCRATCH/node.json"
awk -F'\t' '{ print $1 }' "$SCRATCH/node.json.kinds" | sort -u >"$SCRATCH/node.json.kinds.names"

# What the importer's script-only tree holds, profkit's holds too (the importer resamples at
# 0.5 ms and may leave out a function profkit keeps, not the other way round), but for the
# functions of the last sample's stack: profkit weighs it nothing, as DevTools and speedscope
# do (no later sample says how long it lasted), and a call tree leaves out what weighs nothing.
node -e '
    const d = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const byId = new Map(d.nodes.map(n => [n.id, n]));
    const parent = new Map();
    for (const n of d.nodes) for (const c of n.children || []) parent.set(c, n.id);
    for (let id = d.samples[d.samples.length - 1]; byId.has(id); id = parent.get(id))
        console.log(byId.get(id).callFrame.functionName || "(anonymous)");' "$CPUPROFILE" |
    sort -u >"$SCRATCH/last.stack"

# Each of profkit's functions is of a kind the importer gives a function of that name.
mismatched=$(python3 - "$SCRATCH/imported.cpuprofile.kinds" "$SCRATCH/node.json.kinds" <<'PY'
import sys
def kinds(path):
    out = {}
    for line in open(path):
        name, js, relevant, _ = line.rstrip("\n").split("\t")
        out.setdefault(name, set()).add((js, relevant))
    return out
imported, converted = kinds(sys.argv[1]), kinds(sys.argv[2])
print(" ".join(sorted(n for n in converted if n in imported and not converted[n] <= imported[n])))
PY
)
expect_eq "$mismatched" "" "functions of another kind than the profiler's importer makes them"
# Script functions: the importer's, but for those only the last sample has (profkit weighs that
# sample nothing, below).
script_functions() { awk -F'\t' '$2 == "True" && $3 == "False" { print $1 }' "$1" | sort -u; }
expect_eq "$(script_functions "$SCRATCH/imported.cpuprofile.kinds" |
    comm -23 - "$SCRATCH/node.json.kinds.names" | comm -23 - "$SCRATCH/last.stack" | paste -sd' ')" \
    "" "script functions"
# Node's bindings (no script of their own) are kept beside script, as the importer keeps them.
expect_contains "$(cat "$SCRATCH/node.json.kinds")" $'\tFalse\tTrue\t' "native functions kept with script"

# The script-only call tree: the script's functions, none of V8's own entries.
tree=$(cat "$SCRATCH/node.json.tree")
expect_contains "$tree" "sortMany" "script-only call tree"
for entry in "(program)" "(garbage collector)" "(idle)" "(root)"; do
    CHECKS=$((CHECKS + 1))
    grep -qxF -- "$entry" "$SCRATCH/node.json.tree" && fail "$entry in the script-only call tree"
done
missing=$(comm -23 "$SCRATCH/imported.cpuprofile.tree" "$SCRATCH/node.json.tree" |
    comm -23 - "$SCRATCH/last.stack" | paste -sd' ')
expect_eq "$missing" "" "functions of the importer's script-only tree missing from profkit's"

finish
