#!/bin/sh
# tests/bench/launcher-kill.sh: how long a ps-train job outlives its
# launcher's SIGKILL.  RUNS times: start ps-train on the data in a private
# TMPDIR, wait until its workers run, kill -9 ps-train, then time until
# every process of the job has exited (the daemons read its lifeline,
# ps-train(1)) and until its temporary directory is gone (the janitor).
# Per-run lines on stderr; stdout gets key<TAB>value lines (medians, max).
#
#   tests/bench/launcher-kill.sh [-r runs] train.libsvm
set -u
prog=launcher-kill.sh
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
. "$here/lib.sh"

runs=10
bench_runs_train "$@"
bench_use_pstrain "$srcdir"
work=$(mktemp -d "${TMPDIR:-/tmp}/launcher-kill.XXXXXX") || exit 73
trap 'rm -rf "$work"' EXIT

# gone PID: exited, or a zombie that nobody reaps (an orphan in a
# container whose init does not).
gone() {
	! kill -0 "$1" 2>/dev/null ||
	    [ "$(ps -o stat= -p "$1" 2>/dev/null | cut -c1)" = Z ]
}

i=1
while [ $i -le "$runs" ]; do
	tmp=$work/tmp$i
	mkdir "$tmp"
	TMPDIR=$tmp "$pstrain" -q -e 0 -m 100000000 -o "$work/m$i" "$train" \
	    >/dev/null 2>"$work/err$i" </dev/null &
	launcher=$!
	n=0
	until d=$(ls -d "$tmp"/ps-train.* 2>/dev/null) && [ -f "$d/worker-1.pid" ]; do
		n=$((n + 1))
		[ $n -gt 1200 ] && bench_die "run $i: no workers after 60 s: $(cat "$work/err$i")"
		sleep 0.05
	done
	sleep 0.5
	pids=$(cat "$d"/*.pid | grep -vx "$launcher")
	t0=$(bench_now)
	kill -KILL "$launcher"
	for p in $pids; do
		until gone "$p"; do sleep 0.005; done
	done
	t1=$(bench_now)
	until [ ! -e "$d" ]; do
		sleep 0.01
		[ "$(bench_elapsed "$t0" "$(bench_now)" | cut -d. -f1)" -lt 30 ] ||
			break
	done
	t2=$(bench_now)
	wait "$launcher" 2>/dev/null
	printf '%s\t%s\n' "$(bench_elapsed "$t0" "$t1")" \
	    "$( [ -e "$d" ] && echo never || bench_elapsed "$t0" "$t2")" >>"$work/times"
	printf 'run %d\tdaemons gone %s s\tjob directory gone %s s\n' "$i" \
	    $(tail -n 1 "$work/times") >&2
	rm -rf "$tmp"
	i=$((i + 1))
done
printf 'runs\t%s\n' "$runs"
printf 'daemons_gone_median_s\t%s\n' "$(cut -f 1 "$work/times" | bench_median)"
printf 'daemons_gone_max_s\t%s\n' "$(cut -f 1 "$work/times" | sort -g | tail -n 1)"
printf 'jobdir_gone_median_s\t%s\n' "$(cut -f 2 "$work/times" | bench_median)"
printf 'jobdir_gone_never\t%s\n' "$(grep -c never "$work/times")"
