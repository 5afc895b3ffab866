# SPDX-License-Identifier: MIT
# Shell completions: bash's driven through `complete -p` and the function it names, with
# bash-completion loaded as in an interactive shell; fish's through `complete -C`; zsh's in an
# interactive zsh on a pseudo-terminal (zpty), where Tab lists what it offers. Commands, options of a command, format names after --to and --from (those of this
# build), the values of options that take one of a few, files elsewhere.
. "$(dirname "$0")/lib.sh"

COMPLETIONS="$SRC/completions"
mkdir -p data && : > data/run1.bsprof && : > data/run2.folded && mkdir -p data/symbols

# bash_complete LINE: the completions bash offers at the end of LINE (one per line).
bash_complete() {
    bash --norc --noprofile -c '
        [ -r /usr/share/bash-completion/bash_completion ] &&
            . /usr/share/bash-completion/bash_completion
        . "$1"
        spec=$(complete -p profkit) || exit 3
        function=${spec#*-F }
        function=${function%% *}
        COMP_LINE=$2
        COMP_POINT=${#COMP_LINE}
        read -ra COMP_WORDS <<< "$COMP_LINE"
        [[ $COMP_LINE == *" " ]] && COMP_WORDS+=("")
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        "$function" profkit "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
        printf "%s\n" "${COMPREPLY[@]}"' bash "$COMPLETIONS/profkit.bash" "$1"
}

# zsh_complete LINE: what zsh's completion offers after LINE and a Tab, in an interactive zsh
# on a pseudo-terminal. Every compadd call of the completion also prints the matches it adds,
# and the end of the completion prints a marker and ends the shell: what is read up to the
# marker is the whole answer, however long the shell takes.
cat > zsh_complete.zsh <<'ZSH'
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "fpath=(${(q)1} \$fpath); autoload -Uz compinit; compinit -u -D"
zpty -w z 'compadd() {
  if (( ${@[(I)-[OAD]]} )); then builtin compadd "$@"; return; fi
  local -a added
  builtin compadd -A added "$@"
  (( $#added )) && print -rl -- "MA""TCH:"${^added}
  builtin compadd "$@"
}
completion_end() { print -r -- "COMPLETION-""END"; exit }
comppostfuncs=(completion_end)'
zpty -w -n z "$2"$'\t'
zpty -r z out '*COMPLETION-END*'
print -r -- "$out"
zpty -d z
ZSH
zsh_complete() {
    timeout 60 zsh -f zsh_complete.zsh "$COMPLETIONS" "$1" 2>&1 | tr -d '\r' |
        sed -n 's/.*MATCH://p'
}

# The same checks in each shell: complete_in SHELL LINE WANTED [UNWANTED].
complete_in() {
    local shell=$1 line=$2 wanted=$3 unwanted=${4:-}
    local got
    case $shell in
        bash) got=$(bash_complete "$line") ;;
        fish) got=$(fish --no-config -c "source '$COMPLETIONS/profkit.fish'; complete -C '$line'" | cut -f1) ;;
        zsh) got=$(zsh_complete "$line") ;;
    esac
    # Directories: fish shows their slash, bash adds it when it prints them.
    got=$(printf '%s\n' "$got" | sed 's|/$||')
    for word in $wanted; do
        # zsh adds files by their names, the directory given apart.
        [ "$shell" = zsh ] && word=${word##*/}
        CHECKS=$((CHECKS + 1))
        printf '%s\n' "$got" | grep -qx -- "$word" ||
            fail "$shell: '$line' does not offer '$word'; offers:" $got
    done
    for word in $unwanted; do
        [ "$shell" = zsh ] && word=${word##*/}
        CHECKS=$((CHECKS + 1))
        printf '%s\n' "$got" | grep -qx -- "$word" && fail "$shell: '$line' offers '$word'"
    done
}

writers=$("$PROFKIT" formats --tab | awk -F '\t' '$2 ~ /write/ { print $1 }')
readers=$("$PROFKIT" formats --tab | awk -F '\t' '$2 ~ /read/ { print $1 }')
only_written=$("$PROFKIT" formats --tab | awk -F '\t' '$2 !~ /read/ { print $1 }' | head -1)
expect_contains "$writers" "svg" "formats written"
expect_eq "$([ -n "$only_written" ] && echo yes)" "yes" "a format profkit only writes"

# Every shell of the set-up's test packages: one that is missing fails its checks.
shells="bash"
need_tool fish fish && shells="$shells fish"
if need_tool zsh zsh; then
    CHECKS=$((CHECKS + 1))
    if zsh -f -c 'zmodload zsh/zpty' 2>/dev/null; then
        shells="$shells zsh"
    else
        fail "zsh cannot load zsh/zpty, which drives its completion here"
    fi
fi
for shell in $shells; do
    complete_in $shell "$PROFKIT con" "convert"
    complete_in $shell "$PROFKIT " "convert info dump formats report diff merge view capture"
    complete_in $shell "$PROFKIT convert --t" "--to --title"
    complete_in $shell "$PROFKIT convert x --to " "$writers"
    complete_in $shell "$PROFKIT convert x --from " "$readers" "$only_written"
    complete_in $shell "$PROFKIT convert x --compression " "0 1 9"
    complete_in $shell "$PROFKIT convert x --br-names " "function line" "data/run1.bsprof"
    complete_in $shell "$PROFKIT report x --sort " "self total"
    complete_in $shell "$PROFKIT report --" "--tree --callers --salvage --br-names --help"
    complete_in $shell "$PROFKIT convert x --svg-width " "" "data/run1.bsprof"
    complete_in $shell "$PROFKIT convert data/r" "data/run1.bsprof data/run2.folded"
    complete_in $shell "$PROFKIT convert x --symbol-path data/" "data/symbols" "data/run1.bsprof"
done
# bash splits --to=FORMAT (bash-completion's _init_completion -s).
CHECKS=$((CHECKS + 1))
if [ -r /usr/share/bash-completion/bash_completion ]; then
    complete_in bash "$PROFKIT convert x --to=fol" "folded"
else
    fail "bash-completion is not installed (Debian package bash-completion, which scripts/setup.sh installs)"
fi

case " $shells " in *" zsh "*) expect_status 0 zsh -n "$COMPLETIONS/_profkit" ;; esac
case " $shells " in *" fish "*) expect_status 0 fish --no-execute "$COMPLETIONS/profkit.fish" ;; esac
finish
