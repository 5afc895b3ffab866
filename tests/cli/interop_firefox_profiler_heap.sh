# SPDX-License-Identifier: MIT
# A heap profile's memory values in the Firefox Profiler, loaded by the profiler's own code
# (profiler_cli.sh): the samples weigh the in-use bytes, and the native allocation views show
# what the app shows for native memory: every allocated byte, the retained (in-use) bytes, and
# the freed ones as deallocations. massif's memory over time is a memory track of every snapshot.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/profiler_cli.sh"

DATA="$SRC/tests/data/legacy_text"
expect_status 0 "$PROFKIT" convert --no-symbols --quiet "$DATA/tcmalloc-heapprofile.heap" -o heap.json
load "$SCRATCH/heap.json"
query thread samples --json --thread t-0
expect_eq "$(json_get 'd["categoryBreakdown"]["totalSamples"]')" "1176666" "samples: in-use bytes"
query thread samples --json --thread t-0 --strategy native-allocations
expect_eq "$(json_get 'd["categoryBreakdown"]["totalSamples"]')" "5272666" "allocated bytes"
query thread samples --json --thread t-0 --strategy native-retained-allocations
expect_eq "$(json_get 'd["categoryBreakdown"]["totalSamples"]')" "1176666" "retained bytes"
query thread samples --json --thread t-0 --strategy native-deallocations-memory
expect_eq "$(json_get 'd["categoryBreakdown"]["totalSamples"]')" "4096000" "freed bytes"
expect_status 0 "$PROFKIT" convert --quiet "$SRC/tests/data/massif/massif.out.prog" -o massif.json
load "$SCRATCH/massif.json"
query counter info c-0 --json
expect_eq "$(json_get 'd["name"]')/$(json_get 'd["category"]')/$(json_get 'd["rangeSampleCount"]')" \
    "massif/Memory/48" "massif counter: name, category, one sample per snapshot"
# From nothing to the peak snapshot's heap + extra-heap bytes (ms_print's 160.9 KB).
expect_eq "$(json_get '[x["value"] for x in d["stats"] if x["source"] == "count-range"][0]')" \
    "164728" "massif counter: memory range"
finish
