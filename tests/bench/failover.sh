#!/bin/sh
# tests/bench/failover.sh: failover time.  KILLS times: a coordinator with
# k = 1, SERVERS servers and WORKERS workers train on the data; once worker
# 0 reports iteration ITER, one server (in turn) gets kill -9.  The time
# from the kill to the first reply a worker gets under the next ring (its
# re-sent push accepted by the new primary; ps-worker logs the wall-clock
# time) is the failover time.  One fault-free run first gives the objective
# each faulted run is compared with.  Per-run lines go to stderr; stdout
# gets key<TAB>value lines: the distribution (min, median, p90, max, in ms)
# and the largest relative objective gap.  See tests/bench/README.
set -u

prog=failover.sh
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
. "$here/lib.sh"

usage() {
	cat <<USAGE
usage: failover.sh [-hk] [-b blocks] [-i iter] [-n kills] [-s servers]
                   [-w workers] [-x KILL|STOP] train.libsvm
USAGE
	if [ "$1" -eq 0 ]; then
		cat <<HELP

  -b blocks    feature blocks of the workers (default 14)
  -i iter      kill when worker 0 reports this iteration (default 100)
  -n kills     faulted runs (default 12)
  -s servers   servers, at least 2 (default 3)
  -w workers   workers (default 2)
  -x signal    KILL (default: the connection drops at once) or STOP (a
               hung server, found by the coordinator's heartbeat timeout)
  -k           keep the work directory and print its name
  -h           print this help and exit
HELP
	fi
	exit "$1"
}

blocks=14 iter=100 kills=12 servers=3 workers=2 keep=0 sig=KILL
while getopts b:hi:kn:s:w:x: opt; do
	case $opt in
	b) blocks=$OPTARG ;;
	h) usage 0 ;;
	i) iter=$OPTARG ;;
	k) keep=1 ;;
	n) kills=$OPTARG ;;
	s) servers=$OPTARG ;;
	w) workers=$OPTARG ;;
	x) sig=$OPTARG ;;
	*) usage 64 >&2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage 64 >&2
train=$1
for n in "$blocks" "$iter" "$kills" "$servers" "$workers"; do
	case $n in ''|*[!0-9]*|0) echo "$prog: bad count '$n'" >&2; usage 64 >&2 ;; esac
done
[ "$servers" -ge 2 ] || { echo "$prog: -s must be at least 2" >&2; usage 64 >&2; }
case $sig in KILL|STOP) ;; *) echo "$prog: -x takes KILL or STOP" >&2; usage 64 >&2 ;; esac
[ -r "$train" ] || { echo "$prog: cannot open '$train'" >&2; exit 66; }

bench_use_pstrain "$srcdir"

work=$(mktemp -d "${TMPDIR:-/tmp}/failover.XXXXXX") || exit 73
trap bench_daemons_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

ps-shard-data -q -n "$workers" -o "$work/train" "$train" ||
	bench_die "cannot shard '$train'"

# run DIR VICTIM: one job; VICTIM is a server index to kill, or -1.
run() {
	mkdir -p "$1"
	ps-ring serve -k 1 -l 127.0.0.1:0 "$1/ring" >"$1/coord.out" 2>"$1/coord.err" &
	cpid=$!
	bench_pids="$bench_pids $cpid"
	coord=$(bench_listening "$1/coord.out")
	s=0 spids=
	while [ $s -lt "$servers" ]; do
		ps-server -C "$coord" >"$1/s$s.out" 2>"$1/s$s.err" &
		spids="$spids $!"
		s=$((s + 1))
	done
	bench_pids="$bench_pids $spids"
	while [ "$(ps-ring status -C "$coord" | awk -F'\t' '$1 == "ring" { print $3 }')" != "$servers" ]; do
		sleep 0.05
	done
	k=0 wpids=
	while [ $k -lt "$workers" ]; do
		ps-worker -v -C "$coord" -i $k -n "$workers" -b "$blocks" \
		    "$work/train-$k.pss" >"$1/w$k.tsv" 2>"$1/w$k.err" &
		wpids="$wpids $!"
		k=$((k + 1))
	done
	bench_pids="$bench_pids $wpids"
	if [ "$2" -ge 0 ]; then
		bench_wait_line "$1/w0.tsv" "^$iter	"
		victim=$(echo $spids | cut -d' ' -f $(($2 + 1)))
		bench_now >"$1/killed"
		kill -s "$sig" "$victim"
	fi
	for p in $wpids; do
		wait "$p" || bench_die "a worker failed in $1: $(tail -n 2 "$1"/w*.err)"
	done
	for p in $spids $cpid; do kill -9 "$p" 2>/dev/null; done
	tail -n 1 "$1/w0.tsv" | cut -f 3 >"$1/objective"
}

run "$work/clean" -1
clean=$(cat "$work/clean/objective")
echo "fault-free objective $clean" >&2
n=1
while [ $n -le "$kills" ]; do
	d=$work/kill$n
	run "$d" $(((n - 1) % servers))
	killed=$(cat "$d/killed")
	first=$(sed -n 's/.*first reply under ring version [0-9]* .* at unix time \([0-9.]*\)$/\1/p' \
	    "$d"/w*.err | sort -g | head -n 1)
	[ -n "$first" ] || bench_die "no reply under a new ring in $d"
	ms=$(awk -v a="$killed" -v b="$first" 'BEGIN { printf "%.1f", (b - a) * 1000 }')
	gap=$(awk -v a="$(cat "$d/objective")" -v b="$clean" 'BEGIN { printf "%.3g", (a - b) / b }')
	echo "$ms $gap" >>"$work/times"
	echo "kill $n (server $(((n - 1) % servers))): failover $ms ms, objective gap $gap" >&2
	n=$((n + 1))
done

printf 'train\t%s\nservers\t%s\nworkers\t%s\nkills\t%s\nsignal\t%s\n' \
    "$train" "$servers" "$workers" "$kills" "$sig"
cut -d' ' -f 1 "$work/times" | sort -g | awk '{ v[NR] = $1 }
END {
	printf "failover_ms_min\t%s\n", v[1]
	printf "failover_ms_p90\t%s\n", v[int(NR * 0.9 + 0.999)]
	printf "failover_ms_max\t%s\n", v[NR]
	printf "failover_ms_all\t"
	for (i = 1; i <= NR; i++) printf "%s%s", v[i], i < NR ? " " : "\n"
}'
printf 'failover_ms_median\t%s\n' "$(cut -d' ' -f 1 "$work/times" | bench_median)"
printf 'objective_gap_max\t%s\n' "$(cut -d' ' -f 2 "$work/times" |
    awk '{ g = $1 < 0 ? -$1 : $1; if (g > m) m = g } END { printf "%.3g\n", m }')"
