#!/bin/sh
# tests/bench/vs-liblinear.sh: race pskit's ps-train against LIBLINEAR's
# l1-regularised logistic regression (-s 6) on one libsvm file, alternating
# the two REPEATS times, and report objectives, times and peak memory as
# "key<TAB>value" lines on stdout (medians over the repeats).  Per-run lines
# go to stderr.  See tests/bench/README.
set -u

prog=vs-liblinear.sh
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
. "$here/lib.sh"

# usage STATUS: print the usage (with help text when STATUS is 0) and exit.
usage() {
	cat <<USAGE
usage: vs-liblinear.sh [-hkL] [-l lambda] [-r repeats] [-s servers]
                       [-w workers] train.libsvm
USAGE
	if [ "$1" -eq 0 ]; then
		cat <<HELP

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

lambda=1 repeats=3 servers=2 workers=2 ll_only=0 keep=0
while getopts hkLl:r:s:w: opt; do
	case $opt in
	h) usage 0 ;;
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
	for p in ps-shard-data ps-server ps-worker ps-ring; do
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

# run_liblinear I: one LIBLINEAR run; appends "secs rss objective nnz rows"
# to $work/ll.tsv.
run_liblinear() {
	bench_run "$work/ll.$1" liblinear-train -s 6 -c "$C" -e 0.0001 \
	    "$train" "$work/ll.$1.model" ||
		{ cat "$work/ll.$1.err" >&2; bench_die "liblinear-train failed"; }
	"$objective" -l "$lambda" "$work/ll.$1.model" "$train" >"$work/ll.$1.obj" ||
		bench_die "ps-objective failed on '$work/ll.$1.model'"
	# shellcheck disable=SC2046 # split into objective, nnz and rows
	set -- "$1" "$(cat "$work/ll.$1.secs")" "$(cat "$work/ll.$1.rss")" \
	    $(awk -F'\t' 'NR == 2 { print $1, $4, $5 }' "$work/ll.$1.obj")
	printf '%s\t%s\t%s\t%s\t%s\n' "$2" "$3" "$4" "$5" "$6" >>"$work/ll.tsv"
	printf 'run %s liblinear\tsecs %s\trss_kb %s\tobjective %s\tnnz %s\n' \
	    "$1" "$2" "$3" "$4" "$5" >&2
}

# positive_opt: "-p LABEL" for ps-train when the data's labels are not
# +1/-1 or 1/0 (LIBLINEAR's positive class is the first label it met).
positive_opt() {
	awk '$1 == "label" {
		ok = ($2 == 1 || $2 == -1 || $2 == 0) && ($3 == 1 || $3 == -1 || $3 == 0)
		if (!ok) print "-p", $2
		exit
	}' "$work/ll.1.model"
}

# run_pstrain I: one ps-train run; appends "secs rss worker_rss server_rss
# objective nnz" and keeps the progress TSV as $work/ps.I.out.
run_pstrain() {
	# shellcheck disable=SC2046 # positive_opt is "" or "-p LABEL"
	bench_run "$work/ps.$1" "$pstrain" -s "$servers" -w "$workers" \
	    -l "$lambda" $(positive_opt) -o "$work/ps.$1.model" "$train"
	_st=$?
	if [ $_st -ne 0 ]; then
		tail -n 20 "$work/ps.$1.err" >&2
		bench_die "ps-train failed (exit $_st)"
	fi
	# shellcheck disable=SC2046 # split into objective and nnz
	set -- "$1" "$(cat "$work/ps.$1.secs")" "$(cat "$work/ps.$1.rss")" \
	    "$(bench_peak_by_name "$work/ps.$1.tree" ps-worker)" \
	    "$(bench_peak_by_name "$work/ps.$1.tree" ps-server)" \
	    $(progress_last "$work/ps.$1.out")
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$2" "$3" "$4" "$5" "$6" "$7" \
	    >>"$work/ps.tsv"
	printf 'run %s ps-train\tsecs %s\trss_kb %s\tworker_rss_kb %s\tserver_rss_kb %s\tobjective %s\tnnz %s\n' \
	    "$1" "$2" "$3" "$4" "$5" "$6" "$7" >&2
}

# progress_last TSV: "objective nnz" of the last progress line, by header.
progress_last() {
	awk -F'\t' '!h { for (i = 1; i <= NF; i++) c[$i] = i; if ("objective" in c) h = 1; next }
	    { o = $c["objective"]; n = ("nnz" in c) ? $c["nnz"] : "-" }
	    END { print (o == "" ? "-" : o), (n == "" ? "-" : n) }' "$1"
}

# time_to_target TSV TARGET: the secs column of the first progress line
# whose objective is within 1e-3 relative of TARGET, or "never".
time_to_target() {
	awk -F'\t' -v t="$2" '
	    !h { for (i = 1; i <= NF; i++) c[$i] = i; if ("objective" in c && "secs" in c) h = 1; next }
	    ($c["objective"] - t) / t <= 1e-3 { print $c["secs"]; found = 1; exit }
	    END { if (!found) print "never" }' "$1"
}

# col FILE N: the median of column N of a TSV file.
col() {
	cut -f "$2" "$1" | bench_median
}

i=1
while [ $i -le "$repeats" ]; do
	run_liblinear $i
	[ $ll_only -eq 1 ] || run_pstrain $i
	i=$((i + 1))
done

ll_obj=$(col "$work/ll.tsv" 3)
printf 'data\t%s\nlambda\t%s\nrepeats\t%s\nrss_method\t%s\n' \
    "$train" "$lambda" "$repeats" "$rss_method"
printf 'rows\t%s\n' "$(col "$work/ll.tsv" 5)"
printf 'liblinear_objective\t%s\nliblinear_nnz\t%s\nliblinear_secs\t%s\nliblinear_rss_kb\t%s\n' \
    "$ll_obj" "$(col "$work/ll.tsv" 4)" "$(col "$work/ll.tsv" 1)" \
    "$(col "$work/ll.tsv" 2)"
[ $ll_only -eq 1 ] && exit 0

i=1
while [ $i -le "$repeats" ]; do
	time_to_target "$work/ps.$i.out" "$ll_obj"
	i=$((i + 1))
done >"$work/target.txt"
ps_obj=$(col "$work/ps.tsv" 5)
to_target=$(bench_median <"$work/target.txt")
[ "$to_target" = - ] && to_target=never
ps_secs=$(col "$work/ps.tsv" 1)
ll_secs=$(col "$work/ll.tsv" 1)
printf 'pstrain_objective\t%s\npstrain_nnz\t%s\n' "$ps_obj" "$(col "$work/ps.tsv" 6)"
awk -v a="$ps_obj" -v b="$ll_obj" 'BEGIN { printf "pstrain_rel_gap\t%.3g\n", (a - b) / b }'
printf 'pstrain_secs_to_1e-3\t%s\npstrain_secs\t%s\n' "$to_target" "$ps_secs"
printf 'pstrain_rss_kb\t%s\npstrain_worker_rss_kb\t%s\npstrain_server_rss_kb\t%s\n' \
    "$(col "$work/ps.tsv" 2)" "$(col "$work/ps.tsv" 3)" "$(col "$work/ps.tsv" 4)"
awk -v t="$to_target" -v p="$ps_secs" -v l="$ll_secs" 'BEGIN {
	if (t == "never") print "ratio_secs_to_1e-3\tnever"
	else printf "ratio_secs_to_1e-3\t%.3g\n", t / l
	printf "ratio_secs\t%.3g\n", p / l
}'
