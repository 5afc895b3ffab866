# SPDX-License-Identifier: MIT
# fish completion for profkit: the commands, each command's options, format names after --to
# and --from, the values of options that take one of a few, files elsewhere. Everything is
# asked of the profkit being completed (its --help, `profkit formats --tab`), so that the
# completions are those of that build, formats added since included.

function __profkit_program
    set -l profkit (commandline -opc)[1]
    if string match -q -- '*/*' $profkit; and test -x $profkit
        echo $profkit
    else
        echo profkit
    end
end

# Runs the profkit being completed with the arguments given.
function __profkit_run
    set -l profkit (__profkit_program)
    command $profkit $argv
end

function __profkit_commands
    __profkit_run --help 2>/dev/null | awk '
        /^Commands:/ { on = 1; next } on && /^$/ { exit }
        on { name = $1; sub(/^ *[^ ]+ +/, ""); print name "\t" $0 }'
end

# "OPTION<TAB>ARGUMENT" for each option the command's --help lists.
function __profkit_options
    set -l words (commandline -opc)
    __profkit_run $words[2] --help 2>/dev/null | sed -n -E \
        -e 's/^ +-([A-Za-z]), (--[a-z][a-z0-9-]*)( ([^ ]+))?.*/-\1\t\4\n\2\t\4/p' \
        -e 's/^ +(--[a-z][a-z0-9-]*)( ([^ ]+))?.*/\1\t\3/p'
end

# The argument of the option before the cursor; nothing when it is a flag or no option.
function __profkit_argument
    set -l previous (commandline -opc)[-1]
    string match -q -- '-*' $previous; or return 1
    for line in (__profkit_options)
        set -l fields (string split \t -- $line)
        if test "$fields[1]" = "$previous"
            # A placeholder in capitals, or a few values by name (self|total).
            if string match -qr -- '^[A-Z]|[a-z].*\||\|.*[a-z]' "$fields[2]"
                echo $fields[2]
                return 0
            end
            return 1
        end
    end
    return 1
end

function __profkit_wants_value
    set -l argument (__profkit_argument); or return 1
    set -l previous (commandline -opc)[-1]
    switch "$previous:$argument"
        case '*:OUTPUT' '*:FILE' '*:*ZIP*'
            return 1
    end
    return 0
end

function __profkit_values
    set -l argument (__profkit_argument); or return
    set -l previous (commandline -opc)[-1]
    switch "$previous:$argument"
        case '--to:*'
            __profkit_run formats --tab 2>/dev/null | awk -F '\t' '$2 ~ /write/ { print $1 "\t" $5 }'
        case '--from:*'
            __profkit_run formats --tab 2>/dev/null | awk -F '\t' '$2 ~ /read/ { print $1 "\t" $5 }'
        case '*:LEVEL'
            seq 0 9
        case '*:DIR'
            __fish_complete_directories (commandline -ct)
        case '*:*|*'
            if string match -qr -- '[a-z]' "$argument"
                string split '|' -- $argument
            end
    end
end

function __profkit_option_names
    __profkit_options | cut -f1
    echo --help
end

complete -c profkit -f -n __fish_use_subcommand -a '(__profkit_commands)'
complete -c profkit -f -n __fish_use_subcommand -l help -d 'print the commands'
complete -c profkit -f -n __fish_use_subcommand -l version -s V -d 'print the versions'
complete -c profkit -f -n 'not __fish_use_subcommand; and __profkit_wants_value' -a '(__profkit_values)'
complete -c profkit -n 'not __fish_use_subcommand; and not __profkit_wants_value; and string match -q -- "-*" (commandline -ct)' -a '(__profkit_option_names)'
