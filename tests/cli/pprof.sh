# pprof: placeholder replaced below
. "$(dirname "$0")/lib.sh"
finish
