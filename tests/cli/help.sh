# SPDX-License-Identifier: MIT
# Each command's --help lists exactly what the command takes: every option of its option
# column is accepted, and every input or format option it does not list is refused as one that
# does not apply to the command (not taken silently, not called unknown).
. "$(dirname "$0")/lib.sh"

# The options a --help lists in its option column (as the shell completions read them).
listed_options() {
    sed -n -E -e 's/^ +-[A-Za-z], (--[a-z][a-z0-9-]*).*/\1/p' \
        -e 's/^ +(--[a-z][a-z0-9-]*).*/\1/p' | LC_ALL=C sort -u
}

# Every option a command reading profiles might take: the input options and every format's.
{
    printf '%s\n' --from --salvage --quiet --symbol-path --no-symbols --source
    "$PROFKIT" formats --options | cut -f1 | sed 's/^/--/'
} | LC_ALL=C sort -u > candidates.txt
expect_contains "$(cat candidates.txt)" "--inverted" "the format options"

for command in convert info dump report diff merge view; do
    "$PROFKIT" "$command" --help | listed_options > "listed-$command.txt"
    expect_contains "$(cat "listed-$command.txt")" "--from" "profkit $command --help"
    # Given with an argument (which a flag leaves as a file name) and no real input: the usage
    # error, if any, is never about the option itself.
    while read -r option; do
        CHECKS=$((CHECKS + 1))
        "$PROFKIT" "$command" "$option" no-such-file > /dev/null 2> err.txt
        if grep -q -e "is unknown" -e "does not apply to $command" -e "$command writes no" err.txt
        then
            fail "profkit $command --help lists $option, which $command refuses: $(cat err.txt)"
        fi
    done < "listed-$command.txt"
    LC_ALL=C comm -23 candidates.txt "listed-$command.txt" > "unlisted-$command.txt"
    while read -r option; do
        expect_status 2 "$PROFKIT" "$command" "$option" no-such-file
        case "$ERR" in
            *"does not apply to $command"* | *"$command writes no"*) CHECKS=$((CHECKS + 1)) ;;
            *) fail "profkit $command $option: not refused as an option of elsewhere: $ERR" ;;
        esac
    done < "unlisted-$command.txt"
done

# What the commands that write no profile leave out.
for command in info dump report view; do
    expect_not_contains "$(cat "listed-$command.txt")" "--inverted" "profkit $command --help"
done
for option in --source --symbol-path --no-symbols; do
    expect_not_contains "$(cat listed-dump.txt)" "$option" "profkit dump --help"
    expect_contains "$(cat listed-report.txt)" "$option" "profkit report --help"
done
expect_contains "$(cat listed-convert.txt)" "--inverted" "profkit convert --help"
expect_contains "$(cat listed-dump.txt)" "--salvage" "profkit dump --help"
expect_status 2 "$PROFKIT" dump "$SRC/examples/roku-channel.bsprof" --source src
expect_contains "$ERR" "--source does not apply to dump" "dump --source"
expect_status 2 "$PROFKIT" info "$SRC/examples/roku-channel.bsprof" --svg-width 100
expect_contains "$ERR" "--svg-width is an option of svg output; info writes no svg file" \
    "info --svg-width"
# A taken option without its argument is still called missing its argument.
expect_status 2 "$PROFKIT" dump "$SRC/examples/roku-channel.bsprof" --from
expect_contains "$ERR" "needs an argument" "dump --from without its argument"
finish
