#!/bin/sh
# tests/bench/server-memory.sh: what a key costs a server.  Runs ps-train
# (default options, plus any given after the data) with its job directory
# kept, polls each server's peak RSS (VmHWM) and key counts (its STAT
# lines) every 0.1 s, and prints key<TAB>value lines: per server its peak
# RSS, the keys it held (primaries and replicas) and the bytes of peak RSS
# per key held; then the median of those over the servers and REPEATS runs.
set -u

prog=server-memory.sh
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
. "$here/lib.sh"

usage() {
	cat <<USAGE
usage: server-memory.sh [-hk] [-r repeats] train.libsvm [ps-train options]
USAGE
	if [ "$1" -eq 0 ]; then
		cat <<HELP

  -r repeats   runs (default 1)
  -k           keep the work directory and print its name
  -h           print this help and exit

ps-train runs with --no-auth (the STAT lines are read over the servers'
sockets) and -q.  A key is counted once on each server that holds it,
as a primary or as a replica.  The poll misses growth in a server's last
0.1 s, and the key counts are the last ones read before it ended.
HELP
	fi
	exit "$1"
}

repeats=1 keep=0
while getopts hkr: opt; do
	case $opt in
	h) usage 0 ;;
	k) keep=1 ;;
	r) repeats=$OPTARG ;;
	*) usage 64 >&2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || usage 64 >&2
train=$1
shift
case $repeats in ''|*[!0-9]*|0) echo "$prog: bad count '$repeats'" >&2; usage 64 >&2 ;; esac
[ -r "$train" ] || { echo "$prog: cannot open '$train'" >&2; exit 66; }
bench_use_pstrain "$srcdir"

work=$(mktemp -d "${TMPDIR:-/tmp}/server-memory.XXXXXX") || exit 73
trap bench_daemons_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# poll_server K: the latest "hwm keys replica_keys" of server K of the
# job in $work/job into $work/server-K.last, while it runs.
poll_server() {
	pidf=$work/job/server-$1.pid out=$work/job/server-$1.out
	[ -s "$pidf" ] && [ -s "$out" ] || return 0
	read -r pid <"$pidf"
	hwm=$(bench_hwm "$pid")
	[ -n "$hwm" ] || return 0
	addr=$(sed -n 's/^listening //p' "$out")
	[ -n "$addr" ] || return 0
	stats=$(printf 'stats\r\nquit\r\n' | nc -N "${addr%:*}" "${addr##*:}" 2>/dev/null |
	    tr -d '\r' | awk '$1 == "STAT" && $2 == "keys" { k += $3 }
		$1 == "STAT" && $2 == "replica_keys" { r += $3 }
		END { if (NR) print k + 0, r + 0 }')
	[ -n "$stats" ] && echo "$hwm $stats" >"$work/server-$1.last"
	return 0
}

i=1
while [ "$i" -le "$repeats" ]; do
	rm -rf "$work/job" "$work/model" "$work"/server-*.last
	"$pstrain" -q --no-auth -j "$work/job" -o "$work/model" "$train" "$@" \
	    >"$work/train.out" 2>"$work/train.err" &
	job=$!
	bench_pids=$job
	while kill -0 "$job" 2>/dev/null; do
		for k in 0 1 2 3 4 5 6 7; do poll_server $k; done
		sleep 0.1
	done
	wait "$job" || bench_die "ps-train failed: $(tail -n 3 "$work/train.err")"
	bench_pids=
	for f in "$work"/server-*.last; do
		[ -f "$f" ] || bench_die "no server was seen running"
		k=${f##*/server-} k=${k%.last}
		read -r hwm keys replica <"$f"
		awk -v k="$k" -v i="$i" -v h="$hwm" -v n="$keys" -v r="$replica" \
		    'BEGIN { printf "run %d server %s\tpeak_rss_kb %d\tkeys %d\treplica_keys %d\tbytes_per_key %.1f\n",
			i, k, h, n, r, h * 1024 / (n + r > 0 ? n + r : 1) }' >&2
		awk -v h="$hwm" -v n="$keys" -v r="$replica" \
		    'BEGIN { printf "%d %d %.1f\n", h, n + r, h * 1024 / (n + r > 0 ? n + r : 1) }' \
		    >>"$work/all.txt"
	done
	i=$((i + 1))
done
printf 'data\t%s\nrepeats\t%s\noptions\t%s\n' "$train" "$repeats" "$*"
printf 'server_peak_rss_kb\t%s\n' "$(cut -d' ' -f1 "$work/all.txt" | bench_median)"
printf 'server_keys\t%s\n' "$(cut -d' ' -f2 "$work/all.txt" | bench_median)"
printf 'server_bytes_per_key\t%s\n' "$(cut -d' ' -f3 "$work/all.txt" | bench_median)"
