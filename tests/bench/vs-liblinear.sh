#!/bin/sh
# tests/bench/vs-liblinear.sh: race pskit's ps-train against LIBLINEAR's
# l1-regularised logistic regression (-s 6) on one libsvm file, each at the
# loosest stopping tolerance that reaches 1e-3 of the optimum F*.  F* is
# LIBLINEAR's objective at -e 1e-6 (or ps-train's, if lower; or given with
# -F, for sets where -e 1e-6 takes too long); every
# objective is scored by ps-objective on the model file (ps-train's
# exported by ps-ckpt), not taken from either program's own print.  The
# tolerances are found first (untimed runs), then LIBLINEAR at its loosest
# -e, ps-train with its defaults and ps-train at its loosest -e race,
# alternating, REPEATS times, not watched (with GNU time: no polling of
# their memory, which would take CPU from a job of several processes on two
# cores); one more ps-train run with its defaults, polled, gives the peak
# RSS of a worker and of a server.  key<TAB>value lines on stdout
# (medians), per-run lines on stderr.  See tests/bench/README.
set -u

prog=vs-liblinear.sh
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
. "$here/lib.sh"

# usage STATUS: print the usage (with help text when STATUS is 0) and exit.
usage() {
	cat <<USAGE
usage: vs-liblinear.sh [-hkL] [-A algorithm] [-E eps] [-F fstar] [-l lambda]
                       [-r repeats] [-s servers] [-w workers] train.libsvm
USAGE
	if [ "$1" -eq 0 ]; then
		cat <<HELP

  -A alg      ps-train's -A for every ps-train run (default none: ps-train
              picks, pstrain_algorithm says which); newton's passes are its
              iterations
  -E eps      LIBLINEAR's -e, instead of searching for its loosest
  -F fstar    F* known (e.g. from a long ps-train run scored by
              ps-objective): no LIBLINEAR run at -e 1e-6, which takes
              minutes on ten million rows; needs -E, and F* is the lowest
              of fstar and the objectives of the runs
  -l lambda   l1 penalty (default 1); LIBLINEAR runs with -c 1/lambda
  -r repeats  runs of each side, alternating (default 3)
  -s servers  ps-train servers (default 2)
  -w workers  ps-train workers (default 2)
  -L          LIBLINEAR only (no ps-train)
  -k          keep the work directory (models, logs) and print its name
  -h          print this help and exit

Programs are looked up in \$PSKIT_BUILDDIR, the current directory, then
PATH; ps-train also in $srcdir/scripts.
HELP
	fi
	exit "$1"
}

lambda=1 repeats=3 servers=2 workers=2 ll_only=0 keep=0 ll_e= alg= fstar_given=
while getopts hkA:E:F:Ll:r:s:w: opt; do
	case $opt in
	h) usage 0 ;;
	A) alg=$OPTARG ;;
	E) ll_e=$OPTARG ;;
	F) fstar_given=$OPTARG ;;
	k) keep=1 ;;
	L) ll_only=1 ;;
	l) lambda=$OPTARG ;;
	r) repeats=$OPTARG ;;
	s) servers=$OPTARG ;;
	w) workers=$OPTARG ;;
	*) usage 64 >&2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage 64 >&2
train=$1
for n in "$repeats" "$servers" "$workers"; do
	case $n in ''|*[!0-9]*|0) echo "$prog: bad count '$n'" >&2; usage 64 >&2 ;; esac
done
awk -v l="$lambda" 'BEGIN { exit !(l + 0 > 0 && l ~ /^[0-9.eE+-]+$/) }' || {
	echo "$prog: bad lambda '$lambda'" >&2; usage 64 >&2; }
[ -z "$fstar_given" ] || [ -n "$ll_e" ] || {
	echo "$prog: -F needs -E" >&2; usage 64 >&2; }
awk -v f="$fstar_given" 'BEGIN { exit !(f == "" || (f + 0 > 0 && f ~ /^[0-9.eE+-]+$/)) }' || {
	echo "$prog: bad F* '$fstar_given'" >&2; usage 64 >&2; }
[ -r "$train" ] || { echo "$prog: cannot open '$train'" >&2; exit 66; }
case $train in /*) ;; *) train=$(pwd)/$train ;; esac

# Find the programs; ps-train needs the pskit daemons on PATH.
bench_status=69
[ -n "${PSKIT_BUILDDIR:-}" ] && PATH=$PSKIT_BUILDDIR:$PATH
[ -x ./ps-server ] && PATH=$(pwd):$PATH
command -v liblinear-train >/dev/null ||
	bench_die "liblinear-train not found (Debian package liblinear-tools)"
objective=$(bench_find_prog ps-objective tests/bench) ||
	objective=$(bench_find_prog ps-objective "$here") ||
	bench_die "ps-objective not found: build it with make, or set PSKIT_BUILDDIR"
if [ $ll_only -eq 0 ]; then
	pstrain=$(command -v ps-train) || pstrain=$srcdir/scripts/ps-train
	[ -x "$pstrain" ] || bench_die "ps-train not found on PATH or in" \
	    "$srcdir/scripts; use -L to run LIBLINEAR alone"
	for p in ps-shard-data ps-server ps-worker ps-ring ps-ckpt; do
		command -v $p >/dev/null || bench_die "$p not found (needed by" \
		    "ps-train): run from the build directory or set PSKIT_BUILDDIR;" \
		    "use -L to run LIBLINEAR alone"
	done
fi
bench_status=1

work=$(mktemp -d "${TMPDIR:-/tmp}/vs-liblinear.XXXXXX") || exit 73
trap '[ $keep -eq 1 ] && echo "$prog: work files kept in $work" >&2 || rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
C=$(awk -v l="$lambda" 'BEGIN { printf "%.17g\n", 1 / l }')
if bench_have_gnu_time; then
	rss_method="GNU time: largest single process of the tree"
else
	rss_method="VmHWM polled every 0.1 s"
fi

# The tolerances tried, loosest first.
LL_EPS="0.1 0.03 0.01 0.003 0.001 0.0003 0.0001 0.00003 0.00001"
PS_EPS="0.03 0.01 0.003 0.001 0.0003 0.0001 0.00003 0.00001 0.000001"

# score MODEL: "objective nnz rows" of a LIBLINEAR model file on the data.
score() {
	"$objective" -l "$lambda" "$1" "$train" >"$1.obj" ||
		bench_die "ps-objective failed on '$1'"
	awk -F'\t' 'NR == 2 { print $1, $4, $5 }' "$1.obj"
}

# liblinear NAME EPS: one LIBLINEAR run at -e EPS into $work/NAME; prints
# "secs rss objective nnz rows".
liblinear() {
	bench_run "$work/$1" liblinear-train -s 6 -c "$C" -e "$2" \
	    "$train" "$work/$1.model" ||
		{ cat "$work/$1.err" >&2; bench_die "liblinear-train failed"; }
	echo "$(cat "$work/$1.secs") $(cat "$work/$1.rss") $(score "$work/$1.model")"
}

# positive_opt: "-p LABEL" for ps-train when the data's labels are not
# +1/-1 or 1/0 (LIBLINEAR's positive class is the first label it met).
positive_opt() {
	awk '$1 == "label" {
		ok = ($2 == 1 || $2 == -1 || $2 == 0) && ($3 == 1 || $3 == -1 || $3 == 0)
		if (!ok) print "-p", $2
		exit
	}' "$work/fstar.model"
}

# summary NAME KEY: a value of ps-train's key<TAB>value summary.
summary() {
	awk -F'\t' -v k="$2" '$1 == k { v = $2 } END { print v }' "$work/$1.err"
}

# pstrain NAME [OPTION...]: one ps-train run into $work/NAME; prints "secs
# rss worker_rss server_rss objective nnz passes", the objective of its
# model exported for LIBLINEAR.
pstrain() {
	_n=$1
	shift
	# shellcheck disable=SC2046 # positive_opt is "" or "-p LABEL"
	bench_run "$work/$_n" "$pstrain" -s "$servers" -w "$workers" \
	    ${alg:+-A "$alg"} -l "$lambda" $(positive_opt) "$@" \
	    -o "$work/$_n.model" "$train" ||
		{ tail -n 20 "$work/$_n.err" >&2; bench_die "ps-train failed"; }
	ps-ckpt export -n "$nr_feature" -o "$work/$_n.ll" "$work/$_n.model" ||
		bench_die "ps-ckpt export failed on '$work/$_n.model'"
	set -- $(score "$work/$_n.ll")
	echo "$(cat "$work/$_n.secs") $(cat "$work/$_n.rss")" \
	    "$(bench_peak_by_name "$work/$_n.tree" ps-worker)" \
	    "$(bench_peak_by_name "$work/$_n.tree" ps-server)" "$1" "$2" \
	    "$(awk -v i="$(summary "$_n" iterations)" -v b="$(summary "$_n" blocks)" \
	    'BEGIN { printf "%.1f\n", (b > 0 ? i / b : 0) }')"
}

# near OBJECTIVE: whether it is within 1e-3 of F*, relatively.
near() {
	awk -v o="$1" -v f="$fstar" 'BEGIN { exit !((o - f) / f <= 1e-3) }'
}

# col FILE N: the median of column N of a whitespace-separated file.
col() {
	awk -v n="$2" '{ print $n }' "$1" | bench_median
}

# F*, and the columns of LIBLINEAR's model (ps-ckpt export -n) from it.
ref_e=0.000001
[ -z "$fstar_given" ] || ref_e=$ll_e
set -- $(liblinear fstar "$ref_e")
[ $# -eq 5 ] || exit 1
fstar=$3
nr_feature=$(awk '$1 == "nr_feature" { print $2 }' "$work/fstar.model")
if [ -z "$fstar_given" ]; then
	echo "F* from LIBLINEAR -e 1e-6: $fstar (${1} s)" >&2
else
	fstar=$(awk -v a="$fstar" -v b="$fstar_given" \
	    'BEGIN { if (a + 0 < b + 0) print a; else print b }')
	echo "F* given: $fstar_given; LIBLINEAR -e $ll_e: $3 (${1} s)" >&2
fi

# LIBLINEAR's loosest -e that reaches 1e-3 of F*.
if [ -z "$ll_e" ]; then
	for e in $LL_EPS; do
		set -- $(liblinear "ll-find-$e" "$e")
		[ $# -eq 5 ] || exit 1
		echo "LIBLINEAR -e $e: objective $3, $1 s" >&2
		if near "$3"; then ll_e=$e; break; fi
	done
	[ -n "$ll_e" ] || ll_e=0.000001
fi

ps_e=
if [ $ll_only -eq 0 ]; then
	# ps-train's loosest -e that reaches 1e-3 of F* (its objective may be
	# below LIBLINEAR's: then it is F*).
	for e in $PS_EPS; do
		set -- $(pstrain "ps-find-$e" -e "$e")
		[ $# -eq 7 ] || exit 1
		echo "ps-train -e $e: objective $5, $1 s, $7 passes" >&2
		if awk -v o="$5" -v f="$fstar" 'BEGIN { exit !(o < f) }'; then
			fstar=$5
		fi
		if near "$5"; then ps_e=$e; break; fi
	done
fi
# The race: each side once a round, not watched.
bench_poll=0
i=1
while [ $i -le "$repeats" ]; do
	liblinear "ll.$i" "$ll_e" >>"$work/ll.txt" || exit 1
	echo "run $i liblinear -e $ll_e: $(tail -n 1 "$work/ll.txt")" >&2
	if [ $ll_only -eq 0 ]; then
		pstrain "ps.$i" >>"$work/ps.txt" || exit 1
		echo "run $i ps-train: $(tail -n 1 "$work/ps.txt")" >&2
	fi
	if [ -n "$ps_e" ]; then
		pstrain "best.$i" -e "$ps_e" >>"$work/best.txt" || exit 1
		echo "run $i ps-train -e $ps_e: $(tail -n 1 "$work/best.txt")" >&2
	fi
	i=$((i + 1))
done
bench_poll=1
if [ $ll_only -eq 0 ]; then
	pstrain ps.rss >"$work/rss.txt" || exit 1
	echo "ps-train, watched for its processes' memory: $(cat "$work/rss.txt")" >&2
fi

gap() {
	awk -v o="$1" -v f="$fstar" 'BEGIN { printf "%.3g\n", (o - f) / f }'
}
printf 'data\t%s\nlambda\t%s\nrepeats\t%s\nrss_method\t%s\n' \
    "$train" "$lambda" "$repeats" "$rss_method"
printf 'rows\t%s\nfstar\t%s\n' "$(col "$work/ll.txt" 5)" "$fstar"
ll_secs=$(col "$work/ll.txt" 1)
printf 'liblinear_e\t%s\nliblinear_gap\t%s\nliblinear_nnz\t%s\nliblinear_secs\t%s\nliblinear_rss_kb\t%s\n' \
    "$ll_e" "$(gap "$(col "$work/ll.txt" 3)")" "$(col "$work/ll.txt" 4)" \
    "$ll_secs" "$(col "$work/ll.txt" 2)"
[ $ll_only -eq 1 ] && exit 0
ps_secs=$(col "$work/ps.txt" 1)
printf 'pstrain_algorithm\t%s\n' "$(summary ps.1 algorithm)"
printf 'pstrain_gap\t%s\npstrain_nnz\t%s\npstrain_passes\t%s\npstrain_secs\t%s\n' \
    "$(gap "$(col "$work/ps.txt" 5)")" "$(col "$work/ps.txt" 6)" \
    "$(col "$work/ps.txt" 7)" "$ps_secs"
printf 'pstrain_rss_kb\t%s\npstrain_worker_rss_kb\t%s\npstrain_server_rss_kb\t%s\n' \
    "$(col "$work/ps.txt" 2)" "$(col "$work/rss.txt" 3)" "$(col "$work/rss.txt" 4)"
awk -v p="$ps_secs" -v l="$ll_secs" 'BEGIN { printf "ratio_secs\t%.3g\n", p / l }'
if [ -n "$ps_e" ]; then
	best_secs=$(col "$work/best.txt" 1)
	printf 'pstrain_best_e\t%s\npstrain_best_gap\t%s\npstrain_best_passes\t%s\npstrain_best_secs\t%s\n' \
	    "$ps_e" "$(gap "$(col "$work/best.txt" 5)")" \
	    "$(col "$work/best.txt" 7)" "$best_secs"
	awk -v p="$best_secs" -v l="$ll_secs" 'BEGIN { printf "ratio_best_secs\t%.3g\n", p / l }'
else
	printf 'pstrain_best_e\tnone reached 1e-3\n'
fi
