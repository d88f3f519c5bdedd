#!/bin/sh
# tests/bench/flood.sh: a job's wall time with its servers under a flood of
# silent connections (bench-attack idle: CONNS sockets a server, each
# reopened as soon as the server closes it) against the same job without,
# alternating REPEATS times.  Per-run lines go to stderr; stdout gets
# key<TAB>value lines: medians, the ratio, and what the servers counted
# (idle_closed, evicted_connections, rejected_connections).
set -u

prog=flood.sh
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
. "$here/lib.sh"

usage() {
	cat <<USAGE
usage: flood.sh [-hk] [-c conns] [-r repeats] train.libsvm
USAGE
	if [ "$1" -eq 0 ]; then
		cat <<HELP

  -c conns     silent connections held against each server (default 2000)
  -r repeats   runs of each kind, alternating (default 3)
  -k           keep the work directory and print its name
  -h           print this help and exit

Each run: two ps-servers (defaults: -c 1024, --hello-timeout 10000), then
for the flooded kind a bench-attack idle per server, then two ps-workers
on the data's two shards; the wall time runs from the workers' start to
their end.  Both kinds must end with the same objective.
HELP
	fi
	exit "$1"
}

conns=2000 repeats=3 keep=0
while getopts c:hkr: opt; do
	case $opt in
	c) conns=$OPTARG ;;
	h) usage 0 ;;
	k) keep=1 ;;
	r) repeats=$OPTARG ;;
	*) usage 64 >&2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage 64 >&2
train=$1
for n in "$conns" "$repeats"; do
	case $n in ''|*[!0-9]*|0) echo "$prog: bad count '$n'" >&2; usage 64 >&2 ;; esac
done
[ -r "$train" ] || { echo "$prog: cannot open '$train'" >&2; exit 66; }
bench_use_pstrain "$srcdir"
attack=$(bench_find_prog bench-attack tests/bench) ||
	bench_status=69 bench_die "bench-attack not found: run from the build directory"

work=$(mktemp -d "${TMPDIR:-/tmp}/flood.XXXXXX") || exit 73
trap bench_daemons_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
ps-shard-data -q -n 2 -o "$work/train" "$train" || bench_die "cannot shard '$train'"

# run KIND I: one job, flooded when KIND is "flood"; appends "wall
# objective idle evicted refused" to $work/KIND.tsv.
run() {
	addrs=
	for k in 0 1; do
		ps-server -o "$work/part-$k.psm" >"$work/s$k.out" 2>"$work/s$k.err" &
		bench_pids="$bench_pids $!"
		addrs="$addrs $(bench_listening "$work/s$k.out")"
	done
	ps-ring init -o "$work/ring" $addrs
	if [ "$1" = flood ]; then
		for a in $addrs; do
			"$attack" idle "$a" "$conns" 100000 >/dev/null &
			bench_pids="$bench_pids $!"
		done
		sleep 2		# the flood is on before the job starts
	fi
	t0=$(bench_now)
	for k in 0 1; do
		ps-worker -r "$work/ring" -i $k -n 2 "$work/train-$k.pss" \
		    >"$work/w$k.tsv" 2>"$work/w$k.err" &
		eval "w$k=\$!"
	done
	wait "$w0" && wait "$w1" || bench_die "a worker failed ($1 run $2): $(tail -n 3 "$work"/w*.err)"
	t1=$(bench_now)
	idle=0 evicted=0 refused=0
	for a in $addrs; do
		idle=$((idle + $(bench_stat "$a" idle_closed)))
		evicted=$((evicted + $(bench_stat "$a" evicted_connections)))
		refused=$((refused + $(bench_stat "$a" rejected_connections)))
	done
	for p in $bench_pids; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	bench_pids=
	printf '%s\t%s\t%s\t%s\t%s\n' "$(bench_elapsed "$t0" "$t1")" \
	    "$(tail -n 1 "$work/w0.tsv" | cut -f 3)" "$idle" "$evicted" \
	    "$refused" >>"$work/$1.tsv"
	printf 'run %d %s\twall %s\tobjective %s\tidle_closed %s\tevicted %s\trefused %s\n' \
	    "$2" "$1" $(tail -n 1 "$work/$1.tsv") >&2
}

i=1
while [ $i -le "$repeats" ]; do
	run none $i
	run flood $i
	i=$((i + 1))
done
printf 'train\t%s\nconns_per_server\t%s\nrepeats\t%s\n' "$train" "$conns" "$repeats"
for kind in none flood; do
	printf '%s_wall\t%s\n' "$kind" "$(cut -f 1 "$work/$kind.tsv" | bench_median)"
	printf '%s_objective\t%s\n' "$kind" "$(tail -n 1 "$work/$kind.tsv" | cut -f 2)"
done
for c in 3:idle_closed 4:evicted_connections 5:rejected_connections; do
	printf 'flood_%s\t%s\n' "${c#*:}" "$(cut -f "${c%%:*}" "$work/flood.tsv" | bench_median)"
done
awk -v a="$(cut -f 1 "$work/flood.tsv" | bench_median)" \
    -v b="$(cut -f 1 "$work/none.tsv" | bench_median)" \
    'BEGIN { printf "ratio_flood_wall\t%.3f\n", a / b }'
