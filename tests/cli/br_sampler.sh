. "$(dirname "$0")/lib.sh"; finish
