#!/bin/sh
# tests/bench/rejoin.sh: what a worker failure costs.  One fault-free
# ps-train run, then KILLS runs in which a worker (0 and 1 in turn) gets
# kill -9 once worker 0 has reported ITER + k * STEP iterations (run k);
# ps-train starts it again and it resumes the job (ps-worker --rejoin).
# For each run: the recovery time, from the kill until worker 0 reports an
# iteration past the last one it had reported then plus one (the job moves
# again: ps-train saw the exit, the new worker loaded its shard, took the
# servers' weights and ran its pass again); the extra wall time against the
# fault-free run; and the relative objective gap.  Per-run lines go to
# stderr; stdout gets key<TAB>value lines.  See tests/bench/README.
set -u

prog=rejoin.sh
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
. "$here/lib.sh"

usage() {
	cat <<USAGE
usage: rejoin.sh [-hk] [-i iter] [-n kills] [-s step] [-t tau]
                 train.libsvm
USAGE
	if [ "$1" -eq 0 ]; then
		cat <<HELP

  -i iter      first kill when worker 0 reported this many lines (default 200)
  -s step      later kills this many lines later each (default 150)
  -n kills     faulted runs (default 10)
  -t tau       bounded delay of the job (default 0)
  -k           keep the work directory and print its name
  -h           print this help and exit
HELP
	fi
	exit "$1"
}

iter=200 step=150 kills=10 tau=0 keep=0
while getopts hi:kn:s:t: opt; do
	case $opt in
	h) usage 0 ;;
	i) iter=$OPTARG ;;
	k) keep=1 ;;
	n) kills=$OPTARG ;;
	s) step=$OPTARG ;;
	t) tau=$OPTARG ;;
	*) usage 64 >&2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage 64 >&2
train=$1
for n in "$iter" "$kills" "$step"; do
	case $n in ''|*[!0-9]*|0) echo "$prog: bad count '$n'" >&2; usage 64 >&2 ;; esac
done
case $tau in ''|*[!0-9]*) echo "$prog: bad tau '$tau'" >&2; usage 64 >&2 ;; esac
[ -r "$train" ] || bench_status=66 bench_die "cannot open '$train'"
bench_use_pstrain "$srcdir"
work=$(mktemp -d "${TMPDIR:-/tmp}/rejoin.XXXXXX") || exit 73
trap bench_daemons_cleanup EXIT

# last_iter TSV: the highest iteration in a progress file, -1 for none.
last_iter() {
	awk -F'\t' 'BEGIN { m = -1 } $1 ~ /^[0-9]+$/ && $1 + 0 > m { m = $1 + 0 }
	    END { print m }' "$1" 2>/dev/null || echo -1
}

# run DIR [VICTIM LINES]: ps-train with job files in DIR; with VICTIM,
# kill -9 that worker once worker 0's file has LINES lines, and write the
# recovery time in ms to DIR/recovery.  Writes DIR/secs.
run() {
	_d=$1
	_t0=$(bench_now)
	"$pstrain" -q -t "$tau" -j "$_d" -o "$_d.model" "$train" \
	    2>"$_d.err" &
	_tp=$!
	bench_pids="$bench_pids $_tp"
	if [ $# -eq 3 ]; then
		_tsv=$_d/worker-0.tsv
		bench_wait_lines "$_tsv" "$3" $_tp "$_d"
		_w=$(ps -o pid=,args= --ppid $_tp |
		    awk -v id=" -i $2 " '/ps-worker/ && index($0, id) { print $1 }')
		[ -n "$_w" ] || bench_die "no worker $2 in $_d"
		_k=$(bench_now)
		kill -9 "$_w"
		_last=$(last_iter "$_tsv")	# after the kill: no race
		while [ "$(last_iter "$_tsv")" -le $((_last + 1)) ]; do
			kill -0 $_tp 2>/dev/null || break
			sleep 0.01
		done
		bench_elapsed "$_k" "$(bench_now)" |
		    awk '{ printf "%.0f\n", $1 * 1000 }' >"$_d/recovery"
	fi
	wait $_tp || bench_die "ps-train failed in $_d: $(tail -n 3 "$_d.err")"
	bench_elapsed "$_t0" "$(bench_now)" >"$_d/secs"
}

run "$work/clean"
want=$(tail -n 1 "$work/clean.model/progress.tsv" | cut -f 3)
iters=$(tail -n 1 "$work/clean.model/progress.tsv" | cut -f 1)
clean=$(cat "$work/clean/secs")
echo "fault-free: objective $want, $iters iterations, $clean s" >&2
k=0
while [ $k -lt "$kills" ]; do
	d=$work/run-$k
	run "$d" $((k % 2)) $((iter + k * step))
	got=$(tail -n 1 "$d.model/progress.tsv" | cut -f 3)
	n=$(tail -n 1 "$d.model/progress.tsv" | cut -f 1)
	gap=$(awk -v a="$got" -v b="$want" 'BEGIN { printf "%.3g\n", (a - b) / b }')
	extra=$(awk -v a="$(cat "$d/secs")" -v b="$clean" 'BEGIN { printf "%.2f\n", a - b }')
	echo "run $k: worker $((k % 2)) killed; recovery $(cat "$d/recovery") ms," \
	    "extra $extra s, $n iterations, gap $gap" >&2
	echo "$(cat "$d/recovery") $extra $gap $n" >>"$work/results"
	k=$((k + 1))
done
printf 'kills\t%s\n' "$kills"
printf 'recovery_ms_median\t%s\n' "$(cut -d' ' -f 1 "$work/results" | bench_median)"
printf 'recovery_ms_min\t%s\n' "$(cut -d' ' -f 1 "$work/results" | sort -g | head -n 1)"
printf 'recovery_ms_max\t%s\n' "$(cut -d' ' -f 1 "$work/results" | sort -g | tail -n 1)"
printf 'extra_secs_median\t%s\n' "$(cut -d' ' -f 2 "$work/results" | bench_median)"
printf 'max_abs_gap\t%s\n' "$(awk '{ g = $3 < 0 ? -$3 : $3; if (g > m) m = g }
    END { printf "%.3g\n", m }' "$work/results")"
printf 'runs_with_other_iterations\t%s\n' "$(awk -v n="$iters" '$4 != n' "$work/results" | wc -l)"
printf 'runs_exact\t%s\n' "$(awk '$3 == 0' "$work/results" | wc -l)"
