# SPDX-License-Identifier: MIT
# bash completion for profkit: the commands, each command's options, format names after --to
# and --from, the values of options that take one of a few, files elsewhere. Everything is
# asked of the profkit being completed (its --help, `profkit formats --tab`), so that the
# completions are those of that build, formats added since included.

# _profkit_options PROFKIT COMMAND: "OPTION<TAB>ARGUMENT" for each option COMMAND's --help
# lists (ARGUMENT empty for a flag; -o and --output each get a line).
_profkit_options()
{
    "$1" "$2" --help 2>/dev/null | sed -n -E \
        -e 's/^ +-([A-Za-z]), (--[a-z][a-z0-9-]*)( ([^ ]+))?.*/-\1\t\4\n\2\t\4/p' \
        -e 's/^ +(--[a-z][a-z0-9-]*)( ([^ ]+))?.*/\1\t\3/p'
}

# _profkit_formats PROFKIT read|write: the formats that can be read or written.
_profkit_formats()
{
    "$1" formats --tab 2>/dev/null | awk -F '\t' -v can="$2" \
        '{ n = split($2, what, ","); for (i = 1; i <= n; i++) if (what[i] == can) print $1 }'
}

_profkit()
{
    local cur prev words cword split=false
    if declare -F _init_completion >/dev/null; then
        _init_completion -s || return
    else
        cur=${COMP_WORDS[COMP_CWORD]}
        prev=${COMP_WORDS[COMP_CWORD - 1]}
        words=("${COMP_WORDS[@]}")
        cword=$COMP_CWORD
    fi
    local profkit=${words[0]}
    [[ $profkit == */* && -x $profkit ]] || profkit=profkit

    if ((cword == 1)); then
        local commands
        commands=$("$profkit" --help 2>/dev/null |
            awk '/^Commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }')
        COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
        return
    fi
    local command=${words[1]}

    # The value of the option before the cursor, when it takes one.
    local option argument=""
    if [[ $prev == -* ]]; then
        while IFS=$'\t' read -r option argument; do
            [[ $option == "$prev" ]] && break
            argument=""
        done < <(_profkit_options "$profkit" "$command")
    fi
    if [[ -n $argument ]]; then
        case $prev:$argument in
            --to:*) COMPREPLY=($(compgen -W "$(_profkit_formats "$profkit" write)" -- "$cur")) ;;
            --from:*) COMPREPLY=($(compgen -W "$(_profkit_formats "$profkit" read)" -- "$cur")) ;;
            *:LEVEL) COMPREPLY=($(compgen -W "0 1 2 3 4 5 6 7 8 9" -- "$cur")) ;;
            *:DIR)
                if declare -F _filedir >/dev/null; then _filedir -d; else COMPREPLY=($(compgen -d -- "$cur")); fi ;;
            # A few values by name (self|total); names in capitals are placeholders.
            *:*[a-z]*\|*) COMPREPLY=($(compgen -W "${argument//|/ }" -- "$cur")) ;;
            *:OUTPUT | *:FILE | *:*ZIP*)
                if declare -F _filedir >/dev/null; then _filedir; else COMPREPLY=($(compgen -f -- "$cur")); fi ;;
            *) COMPREPLY=() ;; # a number, a name, a text: nothing to offer
        esac
        return
    fi
    $split && return

    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_profkit_options "$profkit" "$command" | cut -f1) --help" -- "$cur"))
        return
    fi
    if declare -F _filedir >/dev/null; then _filedir; else COMPREPLY=($(compgen -f -- "$cur")); fi
}
complete -F _profkit profkit
