#!/bin/sh
# tests/bench/sgd-vs-dbpg.sh: asynchronous SGD (ps-train -A sgd) against
# Algorithm 2 (ps-train -A dbpg): the time each takes to a test AUC within
# 0.001 of LIBLINEAR's (-s 6 -c 1/lambda -e 0.0001, scored with
# liblinear-predict -b 1), alternating the two REPEATS times.  Per-run lines
# go to stderr; stdout gets key<TAB>value lines, medians over the repeats.
# See tests/bench/README.
set -u

prog=sgd-vs-dbpg.sh
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
. "$here/lib.sh"

# usage STATUS: print the usage (with help text when STATUS is 0) and exit.
usage() {
	cat <<USAGE
usage: sgd-vs-dbpg.sh [-hk] [-D dbpg_options] [-d delta] [-G sgd_options]
                      [-l lambda] [-r repeats] [-s servers] [-w workers]
                      train.libsvm test.libsvm
USAGE
	if [ "$1" -eq 0 ]; then
		cat <<HELP

  -d delta     target: a test AUC of at least LIBLINEAR's minus delta
               (default 0.001)
  -D options   more ps-train options for the dbpg runs, e.g. '-t 2'
  -G options   more ps-train options for the sgd runs, e.g.
               "-t 3 -W '--epochs 3'" (split at blanks, -W's quotes kept)
  -l lambda    l1 penalty (default 1); LIBLINEAR runs with -c 1/lambda
  -r repeats   runs of each side, alternating (default 3)
  -s servers   ps-train servers (default 2)
  -w workers   ps-train workers (default 2)
  -k           keep the work directory (models, logs) and print its name
  -h           print this help and exit

Programs are looked up in \$PSKIT_BUILDDIR, the current directory, then
PATH; ps-train also in $srcdir/scripts.  Labels must be +1/-1 or 1/0.
HELP
	fi
	exit "$1"
}

lambda=1 repeats=3 servers=2 workers=2 keep=0 delta=0.001 dopts= gopts=
while getopts hkD:d:G:l:r:s:w: opt; do
	case $opt in
	h) usage 0 ;;
	k) keep=1 ;;
	D) dopts=$OPTARG ;;
	d) delta=$OPTARG ;;
	G) gopts=$OPTARG ;;
	l) lambda=$OPTARG ;;
	r) repeats=$OPTARG ;;
	s) servers=$OPTARG ;;
	w) workers=$OPTARG ;;
	*) usage 64 >&2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || usage 64 >&2
train=$1 test=$2
for n in "$repeats" "$servers" "$workers"; do
	case $n in ''|*[!0-9]*|0) echo "$prog: bad count '$n'" >&2; usage 64 >&2 ;; esac
done
for f in "$train" "$test"; do
	[ -r "$f" ] || { echo "$prog: cannot open '$f'" >&2; exit 66; }
done

bench_use_pstrain "$srcdir"
command -v liblinear-train >/dev/null || bench_status=69 \
	bench_die "liblinear-train not found (Debian package liblinear-tools)"

work=$(mktemp -d "${TMPDIR:-/tmp}/sgd-vs-dbpg.XXXXXX") || exit 73
trap '[ $keep -eq 1 ] && echo "$prog: work files kept in $work" >&2 || rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
C=$(awk -v l="$lambda" 'BEGIN { printf "%.17g\n", 1 / l }')

# The reference: LIBLINEAR's test AUC, once (it is deterministic).
bench_run "$work/ll" liblinear-train -s 6 -c "$C" -e 0.0001 "$train" \
    "$work/ll.model" || { cat "$work/ll.err" >&2; bench_die "liblinear-train failed"; }
liblinear-predict -b 1 "$test" "$work/ll.model" "$work/ll.pred" >/dev/null ||
	bench_die "liblinear-predict failed"
ll_auc=$(bench_auc "$test" "$work/ll.pred")
target=$(awk -v a="$ll_auc" -v d="$delta" 'BEGIN { printf "%.6f\n", a - d }')
printf 'liblinear\tsecs %s\ttest_auc %s\ttarget %s\n' "$(cat "$work/ll.secs")" \
    "$ll_auc" "$target" >&2

# time_to_auc TSV: the secs column of the first progress line whose test
# AUC reaches the target, or "never".
time_to_auc() {
	awk -F'\t' -v t="$target" '
	    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	    $c["test_auc"] != "nan" && $c["test_auc"] >= t { print $c["secs"]; found = 1; exit }
	    END { if (!found) print "never" }' "$1"
}

# run_one ALG I OPTIONS: one ps-train run; appends "to_auc final_auc secs
# nnz" to $work/ALG.tsv.
run_one() {
	_alg=$1 _i=$2
	shift 2
	eval "set -- $*"	# keep the quotes of -W '...'
	bench_run "$work/$_alg.$_i" "$pstrain" -q -A "$_alg" -s "$servers" \
	    -w "$workers" -l "$lambda" -T "$test" -o "$work/$_alg.$_i.model" \
	    "$@" "$train" || { tail -n 20 "$work/$_alg.$_i.err" >&2;
		bench_die "ps-train -A $_alg failed"; }
	_tsv=$work/$_alg.$_i.model/progress.tsv
	set -- "$(time_to_auc "$_tsv")" "$(bench_last_of "$_tsv" test_auc)" \
	    "$(cat "$work/$_alg.$_i.secs")" "$(bench_last_of "$_tsv" nnz)"
	printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$work/$_alg.tsv"
	printf 'run %s %s\tsecs_to_auc %s\tfinal_auc %s\tsecs %s\tnnz %s\n' \
	    "$_i" "$_alg" "$1" "$2" "$3" "$4" >&2
}

i=1
while [ $i -le "$repeats" ]; do
	run_one dbpg $i "$dopts"
	run_one sgd $i "$gopts"
	i=$((i + 1))
done

# med ALG N: the median of column N of ALG's runs; "never" if no run got
# there (column 1).
med() {
	_m=$(cut -f "$2" "$work/$1.tsv" | bench_median)
	[ "$_m" = - ] && _m=never
	echo "$_m"
}

printf 'train\t%s\ntest\t%s\nlambda\t%s\nrepeats\t%s\n' "$train" "$test" \
    "$lambda" "$repeats"
printf 'liblinear_test_auc\t%s\nliblinear_secs\t%s\ntarget_auc\t%s\n' \
    "$ll_auc" "$(cat "$work/ll.secs")" "$target"
for alg in dbpg sgd; do
	printf '%s_secs_to_target\t%s\n' $alg "$(med $alg 1)"
	printf '%s_reached\t%s/%s\n' $alg \
	    "$(awk '$1 != "never"' "$work/$alg.tsv" | wc -l | tr -d ' ')" "$repeats"
	printf '%s_final_auc\t%s\n%s_secs\t%s\n%s_nnz\t%s\n' $alg "$(med $alg 2)" \
	    $alg "$(med $alg 3)" $alg "$(med $alg 4)"
done
