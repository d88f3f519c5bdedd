#!/bin/bash
# tests/bench/zk-failover.sh: the coordinator with its ring in ZooKeeper
# (ps-ring serve -Z) against the ring file, on a private ZooKeeper server
# (tests/bats/zk.bash: standalone, loopback, 100 ms ticks).
#
#  - leader failover: two coordinators on one path, two servers that
#    follow the leader through ZooKeeper (ps-server -Z); kill -9 of the
#    leader, then the time until the standby listens and until it has
#    published the stored version again (every server back), RUNS times;
#  - membership detection: kill -9 of one of two servers, then the time
#    until the coordinator's status shows the ring without it, RUNS times
#    with the ring file and RUNS times with -Z (both see the connection
#    drop); and a server stopped (SIGSTOP), found by the coordinator's
#    heartbeats (ring file, -t 300) or by its ZooKeeper session ending
#    (servers with -Z, 2 s session, the coordinator's -t 10000 out of
#    play), RUNS times each;
#  - with a training file: ps-train on it with -Z and without, alternated,
#    RUNS times each: the median wall times and their ratio.
#
# Medians and maxima go to stdout as key<TAB>value lines, each run to
# stderr.  Bash, for zk.bash.  See tests/bench/README.
set -u

prog=zk-failover.sh
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../bats/zk.bash"

runs=10 session=1000
usage="usage: $prog [-r runs] [-s session-ms] [train.libsvm]"
while getopts hr:s: opt; do
	case $opt in
	r) runs=$OPTARG ;;
	s) session=$OPTARG ;;
	h) echo "$usage"; exit 0 ;;
	*) echo "$usage" >&2; exit 64 ;;
	esac
done
shift $((OPTIND - 1))
train=${1:-}
command -v ps-ring >/dev/null || { echo "$prog: ps-ring not in PATH" >&2; exit 69; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/zkbench.XXXXXX") || exit 1
pids=
cleanup() {
	reap
	zk_stop
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# wait_for FILE PATTERN: until a line of FILE matches (10 s at most).
wait_for() {
	local i=0
	until grep -Eq "$2" "$1" 2>/dev/null; do
		[ $i -lt 2000 ] || { echo "$prog: no '$2' in $1" >&2; exit 1; }
		sleep 0.005
		i=$((i + 1))
	done
}

# ring_at ADDR AWK-CONDITION: until the status "ring" line matches.
ring_at() {
	local i=0
	until ps-ring status -C "$1" 2>/dev/null |
	    awk -F'\t' "\$1 == \"ring\" && $2 { f = 1 } END { exit !f }"; do
		[ $i -lt 2000 ] || { echo "$prog: ring at $1 never $2" >&2; exit 1; }
		sleep 0.005
		i=$((i + 1))
	done
}

# start NAME CMD...: a daemon with output in $tmp/NAME.out and NAME.err.
start() {
	local name=$1
	shift
	# Gone first: until the background shell runs, a reader would find
	# the last run's lines.
	rm -f "$tmp/$name.out" "$tmp/$name.err"
	"$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
	last=$!
	pids="$pids $last"
}

# median and max of the numbers on stdin: "MEDIAN MAX".
stats() {
	sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)], v[NR] }'
}

zk_start "$tmp/zk" || exit 1

# reap: end every daemon of the run, by PID.
reap() {
	local p
	for p in $pids; do kill -9 "$p" 2>/dev/null; done
	for p in $pids; do wait "$p" 2>/dev/null; done
	pids=
}

# One leader failover, run N; appends "listen publish" ms to $tmp/failover.
failover_once() {
	local z="127.0.0.1:$ZK_PORT/pskit/failover$1" a b pa t0 t1 t2
	start a ps-ring serve -s "$session" -t 2000 -Z "$z"
	pa=$last
	wait_for "$tmp/a.out" '^listening '
	a=$(sed -n 's/^listening //p' "$tmp/a.out")
	start b ps-ring serve -s "$session" -t 2000 -Z "$z"
	wait_for "$tmp/b.out" '^standby '
	b=$(sed -n 's/^standby //p' "$tmp/b.out")
	start s0 ps-server -Z "$z" -o "$tmp/s0.psm"
	start s1 ps-server -Z "$z" -o "$tmp/s1.psm"
	ring_at "$a" '$3 == 2'
	t0=$(now_ms)
	kill -9 "$pa"
	wait_for "$tmp/b.out" '^listening '
	t1=$(now_ms)
	wait_for "$tmp/b.err" 'ring version 2 published'
	t2=$(now_ms)
	echo "failover $1: listening $((t1 - t0)) ms, published $((t2 - t0)) ms" >&2
	echo "$((t1 - t0)) $((t2 - t0))" >>"$tmp/failover"
	reap
}

# One server death, run N, with STORE (file or zk); appends ms to
# $tmp/detect.STORE.
detect_once() {
	local store=$2 c ps1 t0 t1
	if [ "$store" = zk ]; then
		start c ps-ring serve -Z "127.0.0.1:$ZK_PORT/pskit/detect$1"
	else
		rm -f "$tmp/ring"
		start c ps-ring serve "$tmp/ring"
	fi
	wait_for "$tmp/c.out" '^listening '
	c=$(sed -n 's/^listening //p' "$tmp/c.out")
	start s0 ps-server -C "$c" -o "$tmp/s0.psm"
	start s1 ps-server -C "$c" -o "$tmp/s1.psm"
	ps1=$last
	ring_at "$c" '$3 == 2'
	t0=$(now_ms)
	kill -9 "$ps1"
	ring_at "$c" '$3 == 3'
	t1=$(now_ms)
	echo "detect $store $1: $((t1 - t0)) ms" >&2
	echo "$((t1 - t0))" >>"$tmp/detect.$store"
	reap
}

# One server stopped, run N, found by heartbeats (STORE file) or by its
# ZooKeeper session (zk); appends ms to $tmp/stop.STORE.
stop_once() {
	local store=$2 c ps1 t0 t1 z="127.0.0.1:$ZK_PORT/pskit/stop$1"
	if [ "$store" = zk ]; then
		start c ps-ring serve -t 10000 -Z "$z"
	else
		rm -f "$tmp/ring"
		start c ps-ring serve "$tmp/ring"
	fi
	wait_for "$tmp/c.out" '^listening '
	c=$(sed -n 's/^listening //p' "$tmp/c.out")
	if [ "$store" = zk ]; then
		start s0 ps-server -v -Z "$z" -o "$tmp/s0.psm"
		start s1 ps-server -v -Z "$z" -o "$tmp/s1.psm"
		wait_for "$tmp/s1.err" 'this node is members/'
	else
		start s0 ps-server -C "$c" -o "$tmp/s0.psm"
		start s1 ps-server -C "$c" -o "$tmp/s1.psm"
	fi
	ps1=$last
	ring_at "$c" '$3 == 2'
	t0=$(now_ms)
	kill -STOP "$ps1"
	ring_at "$c" '$3 == 3'
	t1=$(now_ms)
	kill -CONT "$ps1"
	echo "stopped $store $1: $((t1 - t0)) ms" >&2
	echo "$((t1 - t0))" >>"$tmp/stop.$store"
	reap
}

# One ps-train job, with -Z (WITH 1) or without; appends its seconds to
# $tmp/job.WITH.
job_once() {
	local t0 t1
	t0=$(date +%s.%N)
	ps-train -q ${2:+-Z "127.0.0.1:$ZK_PORT/pskit/job$1"} \
	    -o "$tmp/model$2" "$train" >/dev/null 2>"$tmp/job.err" ||
		{ cat "$tmp/job.err" >&2; exit 1; }
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }' \
	    >>"$tmp/job.${2:-0}"
	echo "job $1${2:+ -Z}: $(tail -n 1 "$tmp/job.${2:-0}") s" >&2
}

for i in $(seq "$runs"); do
	failover_once "$i"
	detect_once "$i" file
	detect_once "$i" zk
	stop_once "$i" file
	stop_once "$i" zk
	[ -z "$train" ] || { job_once "$i" ""; job_once "$i" 1; }
done
printf 'runs\t%s\nsession_ms\t%s\n' "$runs" "$session"
set -- $(cut -d' ' -f1 "$tmp/failover" | stats)
printf 'failover_listen_ms_median\t%s\nfailover_listen_ms_max\t%s\n' "$1" "$2"
set -- $(cut -d' ' -f2 "$tmp/failover" | stats)
printf 'failover_publish_ms_median\t%s\nfailover_publish_ms_max\t%s\n' "$1" "$2"
for store in file zk; do
	set -- $(stats <"$tmp/detect.$store")
	printf 'detect_%s_ms_median\t%s\ndetect_%s_ms_max\t%s\n' \
	    "$store" "$1" "$store" "$2"
	set -- $(stats <"$tmp/stop.$store")
	printf 'stopped_%s_ms_median\t%s\nstopped_%s_ms_max\t%s\n' \
	    "$store" "$1" "$store" "$2"
done
if [ -n "$train" ]; then
	set -- "$(stats <"$tmp/job.0" | cut -d' ' -f1)" \
	    "$(stats <"$tmp/job.1" | cut -d' ' -f1)"
	printf 'job_s_median\t%s\njob_zk_s_median\t%s\n' "$1" "$2"
	awk -v a="$1" -v b="$2" 'BEGIN { printf "job_zk_ratio\t%.3f\n", b / a }'
fi
