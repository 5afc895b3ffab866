# SPDX-License-Identifier: MIT
# Legacy text profiles against go tool pprof, whose legacy parser is the reference: for each
# fixture it reads, every sample's values and addresses are the same in what profkit writes
# as pprof (heap samples unsampled, contention delays scaled, return addresses less one).
. "$(dirname "$0")/lib.sh"

DATA="$SRC/tests/data/legacy_text"
require_tool go "Debian package golang-go; scripts/setup.sh installs it"
export GOCACHE=$SCRATCH/gocache GOPATH=$SCRATCH/gopath

# go tool pprof -raw's samples as "values @ addresses" lines, the values of one stack summed (a
# thread listing's threads are pprof's one sample, profkit's rows of their threads), sorted.
raw_samples() {
    awk '
        /^Samples:/ { s = 1; getline; next }
        /^Locations/ { s = 0; l = 1; next }
        /^Mappings/ { l = 0 }
        s && /^ *-?[0-9]+( +-?[0-9]+)*:/ {
            split($0, part, ":"); n++; nv[n] = split(part[1], vals, " ")
            for (j = 1; j <= nv[n]; j++) v[n, j] = vals[j]
            st[n] = part[2]
        }
        l && $1 ~ /:$/ { id = $1; sub(":", "", id); addr[id] = $2 }
        END {
            for (i = 1; i <= n; i++) {
                k = split(st[i], ids, " "); chain = ""
                for (j = 1; j <= k; j++) chain = chain " " addr[ids[j]]
                if (!(chain in width)) { order[++chains] = chain; width[chain] = nv[i] }
                for (j = 1; j <= nv[i]; j++) sum[chain, j] += v[i, j]
            }
            for (c = 1; c <= chains; c++) {
                chain = order[c]; line = ""
                for (j = 1; j <= width[chain]; j++) line = line sum[chain, j] " "
                print line "@" chain
            }
        }' | sort
}

for f in tcmalloc-heapprofile.heap tcmalloc-heap_v2-edited.heap tcmalloc-growth.heap \
         contention.txt threadz.txt; do
    expect_status 0 go tool pprof -raw -symbolize=none "$DATA/$f"
    theirs=$(printf '%s\n' "$OUT" | raw_samples)
    expect_status 0 "$PROFKIT" convert --no-symbols --quiet "$DATA/$f" -o "${f%.*}.pb.gz"
    expect_status 0 go tool pprof -raw -symbolize=none "${f%.*}.pb.gz"
    mine=$(printf '%s\n' "$OUT" | raw_samples)
    expect_contains "$theirs" "@ 0x" "$f: go tool pprof reads samples with addresses"
    expect_eq "$mine" "$theirs" "$f: every sample's values and addresses as go tool pprof's"
done

# The sampled file's numbers are unsampled: more than what its lines say.
expect_status 0 go tool pprof -raw -symbolize=none "$DATA/tcmalloc-heap_v2-edited.heap"
expect_contains "$OUT" "1927     249665       1927     249665" "pprof unsamples the 129-byte blocks"

# -sample_index with Go's heap sample types works on what profkit writes.
expect_status 0 "$PROFKIT" convert --no-symbols --quiet "$DATA/jemalloc-exact.heap" -o je.pb.gz
for index in alloc_objects alloc_space inuse_objects inuse_space; do
    expect_status 0 go tool pprof -top -sample_index=$index -symbolize=none je.pb.gz
    expect_contains "$OUT" "Type: $index" "go tool pprof -sample_index=$index"
done
finish
