#!/bin/sh
# tests/bench/recovery.sh: how long a job takes to recover from the death
# of a worker, a server or the coordinator, as ps-train reports it.  One
# fault-free ps-train run, then KILLS runs in which worker (or server)
# k % 2, or the coordinator, gets kill -9 (or, with -S, SIGSTOP: a worker
# until ps-train kills it) once worker 0 printed LINES + k * STEP lines;
# ps-train says "worker K ... at X s; recovered in Y s" (likewise "server
# K", "the coordinator"): for a worker Y is from the death (for a stop, the
# last message) to the moment a server had handled the new worker's first
# push; for a server, from a worker's seeing it go to that worker's first
# reply under the ring without it; for the coordinator, from ps-train's
# finding it gone to every node registered with the next (ps-train(1)).
# For each run: Y, the extra wall time against the fault-free run, and the
# answer's gap (sgd: test AUC, absolute; dbpg: objective, relative).
# Per-run lines go to stderr; stdout gets key<TAB>value lines.  See
# tests/bench/README.
set -u

prog=recovery.sh
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
. "$here/lib.sh"

usage() {
	cat <<USAGE
usage: recovery.sh [-hkS] [-A dbpg|sgd] [-l lines] [-n kills]
                   [-P worker|server|coordinator] [-s step]
                   [-W worker_options] train.libsvm test.libsvm
USAGE
	if [ "$1" -eq 0 ]; then
		cat <<HELP

  -A alg       the job's algorithm (default sgd)
  -l lines     first fault when worker 0 printed this many lines (default
               15 for sgd, 500 for dbpg)
  -s step      later faults this many lines later each (default 2 for
               sgd, 150 for dbpg)
  -n kills     faulted runs (default 10)
  -P process   the process killed: worker (default), server (the job's
               default -R 1) or coordinator
  -S           SIGSTOP the worker instead of kill -9 (ps-train's silence
               limit, PS_TRAIN_WORKER_SILENCE, decides when it is killed)
  -W opts      ps-worker options (default for sgd: --epochs 5 --batch 10)
  -k           keep the work directory and print its name
  -h           print this help and exit
HELP
	fi
	exit "$1"
}

alg=sgd lines= step= kills=10 sig=KILL keep=0 wopts= proc=worker
while getopts A:hkl:n:P:Ss:W: opt; do
	case $opt in
	A) alg=$OPTARG ;;
	h) usage 0 ;;
	k) keep=1 ;;
	l) lines=$OPTARG ;;
	n) kills=$OPTARG ;;
	P) proc=$OPTARG ;;
	S) sig=STOP ;;
	s) step=$OPTARG ;;
	W) wopts=$OPTARG ;;
	*) usage 64 >&2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || usage 64 >&2
train=$1 test=$2
case $alg in
sgd) : "${lines:=15}" "${step:=2}" "${wopts:=--epochs 5 --batch 10}" ;;
dbpg) : "${lines:=500}" "${step:=150}" ;;
*) echo "$prog: bad algorithm '$alg'" >&2; usage 64 >&2 ;;
esac
case $proc in worker|server|coordinator) ;; *)
	echo "$prog: bad process '$proc'" >&2; usage 64 >&2 ;;
esac
for n in "$lines" "$kills" "$step"; do
	case $n in ''|*[!0-9]*|0) echo "$prog: bad count '$n'" >&2; usage 64 >&2 ;; esac
done
[ -r "$train" ] && [ -r "$test" ] ||
	bench_status=66 bench_die "cannot open '$train' or '$test'"
bench_use_pstrain "$srcdir"
work=$(mktemp -d "${TMPDIR:-/tmp}/recovery.XXXXXX") || exit 73
trap bench_daemons_cleanup EXIT

# answer DIR: the final test AUC (sgd) or objective (dbpg) of a run.
answer() {
	awk -F'\t' -v c="$([ "$alg" = sgd ] && echo test_auc || echo objective)" '
	    NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next }
	    { v = $k } END { print v }' "$1.model/progress.tsv"
}

# run DIR [VICTIM LINES]: ps-train with job files in DIR; with VICTIM, send
# it the signal once worker 0's file has LINES lines.  Writes DIR/secs.
run() {
	_d=$1
	_t0=$(bench_now)
	# shellcheck disable=SC2086
	"$pstrain" -q -A "$alg" ${wopts:+-W "$wopts"} -T "$test" -j "$_d" \
	    -o "$_d.model" "$train" 2>"$_d.err" &
	_tp=$!
	bench_pids="$bench_pids $_tp"
	if [ $# -eq 3 ]; then
		bench_wait_lines "$_d/worker-0.tsv" "$3" $_tp "$_d"
		kill "-$sig" "$(cat "$_d/$2.pid")"
	fi
	wait $_tp || bench_die "ps-train failed in $_d: $(tail -n 3 "$_d.err")"
	bench_elapsed "$_t0" "$(bench_now)" >"$_d/secs"
}

run "$work/clean"
want=$(answer "$work/clean")
clean=$(cat "$work/clean/secs")
echo "fault-free: $alg, answer $want, $clean s" >&2
k=0
while [ $k -lt "$kills" ]; do
	d=$work/run-$k
	case $proc in
	coordinator) victim=coordinator who="the coordinator" ;;
	*) victim=$proc-$((k % 2)) who="$proc $((k % 2))" ;;
	esac
	run "$d" "$victim" $((lines + k * step))
	line=$(grep "^ps-train: $who .*; recovered in " "$d.err") ||
		bench_die "no recovery line in $d.err"
	rec=$(printf '%s\n' "$line" | sed 's/.*recovered in \([0-9.]*\) s.*/\1/')
	got=$(answer "$d")
	gap=$(awk -v a="$got" -v b="$want" -v alg="$alg" \
	    'BEGIN { printf "%.3g\n", alg == "sgd" ? a - b : (a - b) / b }')
	extra=$(awk -v a="$(cat "$d/secs")" -v b="$clean" 'BEGIN { printf "%.2f\n", a - b }')
	echo "run $k: ${line#ps-train: }; extra $extra s, gap $gap" >&2
	echo "$rec $extra $gap" >>"$work/results"
	k=$((k + 1))
done
printf 'algorithm\t%s\n' "$alg"
printf 'process\t%s\n' "$proc"
printf 'fault\t%s\n' "$sig"
printf 'kills\t%s\n' "$kills"
printf 'recovery_s_median\t%s\n' "$(cut -d' ' -f 1 "$work/results" | bench_median)"
printf 'recovery_s_min\t%s\n' "$(cut -d' ' -f 1 "$work/results" | sort -g | head -n 1)"
printf 'recovery_s_max\t%s\n' "$(cut -d' ' -f 1 "$work/results" | sort -g | tail -n 1)"
printf 'extra_secs_median\t%s\n' "$(cut -d' ' -f 2 "$work/results" | bench_median)"
printf 'max_abs_gap\t%s\n' "$(awk '{ g = $3 < 0 ? -$3 : $3; if (g > m) m = g }
    END { printf "%.3g\n", m }' "$work/results")"
