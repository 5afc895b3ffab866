#!/bin/sh
# SPDX-License-Identifier: MIT
# Makes a man page's scdoc source from its hand-written part (NAME.scd): a line
#   @include NAME@      is replaced by the shared part NAME.scdi beside it,
#   @formats@           by the formats of the built profkit (profkit formats --tab),
#   @format-options@    by their options (profkit formats --options),
#   @format-options input@  by the options of their readers only,
# so that the formats and their options, which the registry defines, are never written by hand.
# Run as: expand.sh PROFKIT SOURCE.scd OUTPUT.scd
set -eu
profkit=$1
source=$2
output=$3
dir=$(dirname "$source")

# scdoc markup in text taken from the registry is escaped (a '-' that starts a field would
# start a list entry).
escape() {
    sed -e 's/\\/\\\\/g' -e 's/\*/\\*/g' -e 's/_/\\_/g' -e 's/\t-/\t\\-/g' -e 's/^-/\\-/'
}

formats() {
    "$profkit" formats --tab | escape | awk -F '\t' '{
        what = $2; gsub(",", ", ", what)
        line = "*" $1 "* (" what
        if ($3 != "") line = line "; " $3
        line = line ")"
        print line
        help = $5
        if ($4 != "") help = help "; also called " $4
        print "\t" help "."
        print ""
    }'
}

# format_options [input]: every format option, or the readers' only.
format_options() {
    "$profkit" formats --options | escape | awk -F '\t' -v only="${1:-}" 'only == "" || $4 == only {
        line = "*--" $1 "*"
        if ($2 != "") line = line " _" $2 "_"
        print line
        print "\t" $5 " (" $3 " " $4 ")."
        print ""
    }'
}

# expand FILE: FILE with its lines replaced as above (shared parts may hold them too).
expand() {
    while IFS= read -r line || [ -n "$line" ]; do
        case "$line" in
            @include\ *@)
                name=${line#@include }
                expand "$dir/${name%@}.scdi" ;;
            @formats@) formats ;;
            @format-options@) format_options ;;
            @format-options\ input@) format_options input ;;
            *) printf '%s\n' "$line" ;;
        esac
    done < "$1"
}

expand "$source" > "$output.tmp"
mv "$output.tmp" "$output"
