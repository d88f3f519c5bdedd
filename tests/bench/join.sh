#!/bin/sh
# tests/bench/join.sh: the time for a server to join a ring that holds
# many keys.  A coordinator with k = 1 and SERVERS servers take a short
# job over the data (-b 1: every feature is pushed at once, so every
# feature becomes a key on its primary and its replica); then a standby
# server is added with `ps-ring add` and the clock runs until the
# coordinator has published the ring with it, which it does only once the
# old primaries handed the new server its segments (cmd/ps-server/
# handoff.c).  REPEATS times; per-run lines to stderr, key<TAB>value
# lines to stdout: keys on the ring, keys handed over, join time (median,
# min, max) and the handed-over keys per second.  See tests/bench/README.
set -u

prog=join.sh
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
. "$here/lib.sh"

usage() {
	cat <<USAGE
usage: join.sh [-hk] [-r repeats] [-s servers] [-t timeout-ms] train.libsvm
USAGE
	if [ "$1" -eq 0 ]; then
		cat <<HELP

  -r repeats   joins, each on a fresh ring (default 3)
  -s servers   servers before the join (default 2)
  -t ms        the coordinator's heartbeat timeout (default 60000: taking
               millions of new keys in one push keeps a server's loop busy
               for seconds, which the default 300 ms would call dead)
  -k           keep the work directory and print its name
  -h           print this help and exit

For 10M keys, e.g.: ps-gen-libsvm -r 1000000 -f 14000000 -z 20 -a 0
HELP
	fi
	exit "$1"
}

repeats=3 servers=2 keep=0 timeout=60000
while getopts hkr:s:t: opt; do
	case $opt in
	h) usage 0 ;;
	k) keep=1 ;;
	r) repeats=$OPTARG ;;
	s) servers=$OPTARG ;;
	t) timeout=$OPTARG ;;
	*) usage 64 >&2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage 64 >&2
train=$1
for n in "$repeats" "$servers" "$timeout"; do
	case $n in ''|*[!0-9]*|0) echo "$prog: bad count '$n'" >&2; usage 64 >&2 ;; esac
done
[ -r "$train" ] || { echo "$prog: cannot open '$train'" >&2; exit 66; }

bench_use_pstrain "$srcdir"

work=$(mktemp -d "${TMPDIR:-/tmp}/join.XXXXXX") || exit 73
trap bench_daemons_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

ps-shard-data -q -n 1 -o "$work/train" "$train" || bench_die "cannot shard '$train'"

# ring_field COORD N: field N of the coordinator's status "ring" line.
ring_field() {
	ps-ring status -C "$1" | awk -F'\t' -v n="$2" '$1 == "ring" { print $n }'
}

i=1
while [ $i -le "$repeats" ]; do
	d=$work/run$i
	mkdir -p "$d"
	ps-ring serve -k 1 -t "$timeout" -l 127.0.0.1:0 "$d/ring" >"$d/coord.out" 2>"$d/coord.err" &
	bench_pids="$bench_pids $!"
	coord=$(bench_listening "$d/coord.out")
	s=0
	while [ $s -lt "$servers" ]; do
		ps-server -v -C "$coord" >"$d/s$s.out" 2>"$d/s$s.err" &
		bench_pids="$bench_pids $!"
		s=$((s + 1))
	done
	ps-server -v --standby -C "$coord" >"$d/new.out" 2>"$d/new.err" &
	bench_pids="$bench_pids $!"
	new=$(bench_listening "$d/new.out")
	while [ "$(ring_field "$coord" 3)" != "$servers" ]; do sleep 0.05; done
	ps-worker -C "$coord" -b 1 -m 2 --timeout 600 "$work/train-0.pss" >"$d/w.tsv" 2>"$d/w.err" ||
		bench_die "the loading job failed: $(tail -n 2 "$d/w.err")"
	sleep 0.3	# a heartbeat carries the key counts
	keys=$(ps-ring status -C "$coord" | awk -F'\t' '$1 == "server" { k += $6 } END { print k }')
	version=$(ring_field "$coord" 2)
	t0=$(bench_now)
	ps-ring add -C "$coord" "$new" >/dev/null || bench_die "ps-ring add failed"
	while [ "$(ring_field "$coord" 3)" -le "$version" ]; do sleep 0.01; done
	t1=$(bench_now)
	secs=$(bench_elapsed "$t0" "$t1")
	moved=$(bench_stat "$new" handoff_keys_in)
	echo "$secs $keys $moved" >>"$work/joins"
	echo "join $i: $secs s, $moved of $keys keys handed to the new server" >&2
	for p in $bench_pids; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	bench_pids=
	i=$((i + 1))
done

printf 'train\t%s\nservers\t%s\nrepeats\t%s\n' "$train" "$servers" "$repeats"
printf 'keys_on_ring\t%s\n' "$(cut -d' ' -f 2 "$work/joins" | bench_median)"
printf 'keys_handed_over\t%s\n' "$(cut -d' ' -f 3 "$work/joins" | bench_median)"
printf 'join_secs_median\t%s\n' "$(cut -d' ' -f 1 "$work/joins" | bench_median)"
printf 'join_secs_min\t%s\njoin_secs_max\t%s\n' \
    "$(cut -d' ' -f 1 "$work/joins" | sort -g | head -n 1)" \
    "$(cut -d' ' -f 1 "$work/joins" | sort -g | tail -n 1)"
awk '{ printf "%.0f\n", $3 / $1 }' "$work/joins" | bench_median |
    awk '{ printf "keys_per_sec_median\t%s\n", $1 }'
