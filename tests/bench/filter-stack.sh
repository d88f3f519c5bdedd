#!/bin/sh
# tests/bench/filter-stack.sh: bytes on the wire from workers and from
# servers as the traffic filters are stacked one by one (the NIPS 2014
# paper's Figure 6), with the objective each stack reaches.  One ps-train
# job per stack (-r repeats each, medians); worker bytes are the sum of the
# workers' bytes_sent, server bytes the sum of their bytes_recv (everything
# a server sends goes to a worker).  TSV on stdout, per-run lines on stderr.
set -u

prog=filter-stack.sh
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
. "$here/lib.sh"

usage() {
	cat <<USAGE
usage: filter-stack.sh [-hk] [-b blocks] [-F fstar] [-r repeats] [-s servers]
                       [-t tau] [-w workers] train.libsvm
USAGE
	[ "$1" -eq 0 ] && cat <<HELP

  -b blocks   feature blocks (default: ps-train's choice)
  -F fstar    the optimal objective, for the gap column (default: best seen)
  -r repeats  runs of each stack (default 1; bytes barely vary)
  -s servers  servers (default 2)
  -t tau      bounded delay (default 0)
  -w workers  workers (default 2)
  -k          keep the work directory
HELP
	exit "$1"
}

blocks= fstar= repeats=1 servers=2 tau=0 workers=2 keep=0
while getopts b:F:hkr:s:t:w: opt; do
	case $opt in
	b) blocks=$OPTARG ;;
	F) fstar=$OPTARG ;;
	h) usage 0 ;;
	k) keep=1 ;;
	r) repeats=$OPTARG ;;
	s) servers=$OPTARG ;;
	t) tau=$OPTARG ;;
	w) workers=$OPTARG ;;
	*) usage 64 >&2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage 64 >&2
train=$1
[ -r "$train" ] || { echo "$prog: cannot open '$train'" >&2; exit 66; }
bench_use_pstrain "$srcdir"

work=$(mktemp -d "${TMPDIR:-/tmp}/filter-stack.XXXXXX") || exit 73
trap '[ $keep -eq 1 ] && echo "$prog: work files kept in $work" >&2 || rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The stacks, each adding one filter to the one before.
stacks="none keycache keycache,kkt keycache,kkt,sigmod keycache,kkt,sigmod,fp16
keycache,kkt,sigmod,fp16,lz4 keycache,kkt,sigmod,fp16,lz4,skip"

# run STACK I: one job; appends "stack secs objective wbytes sbytes iters".
run() {
	_dir=$work/$(echo "$1" | tr , _).$2
	# shellcheck disable=SC2086 # $bopt is "" or "-b N"
	if ! "$pstrain" -q -k -s "$servers" -w "$workers" -t "$tau" $bopt \
	    -F "$1" -j "$_dir.job" -o "$_dir.model" "$train" \
	    >"$_dir.out" 2>"$_dir.err"; then
		tail -n 20 "$_dir.err" >&2
		bench_die "ps-train -F $1 failed"
	fi
	# shellcheck disable=SC2046 # the summed counters
	set -- "$1" $(awk -F'\t' 'FNR == 1 { next }
	    { last[FILENAME] = $0 }
	    END {
		for (f in last) {
			split(last[f], c, "\t")
			secs = c[2] > secs ? c[2] : secs
			obj = c[3]; it = c[1]; ws += c[6]; sr += c[7]
		}
		printf "%s %s %d %d %s\n", secs, obj, ws, sr, it
	    }' "$_dir.job"/worker-*.tsv)
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$6" \
	    >>"$work/runs.tsv"
	printf 'run %s\tsecs %s\tobjective %s\tworker_bytes %s\tserver_bytes %s\titers %s\n' \
	    "$1" "$2" "$3" "$4" "$5" "$6" >&2
}

bopt=${blocks:+-b $blocks}
i=1
while [ $i -le "$repeats" ]; do
	for s in $stacks; do
		run "$s" $i
	done
	i=$((i + 1))
done

# Medians per stack, ratios against the first stack (no filter).
printf 'stack\tsecs\tobjective\tgap\tworker_bytes\tserver_bytes\tworker_x\tserver_x\n'
best=${fstar:-$(cut -f 3 "$work/runs.tsv" | sort -g | head -n 1)}
for s in $stacks; do
	med() { awk -F'\t' -v s="$s" -v c="$1" '$1 == s { print $c }' "$work/runs.tsv" | bench_median; }
	secs=$(med 2) obj=$(med 3) wb=$(med 4) sb=$(med 5)
	[ "$s" = none ] && { w0=$wb; s0=$sb; }
	awk -v s="$s" -v t="$secs" -v o="$obj" -v f="$best" -v wb="$wb" \
	    -v sb="$sb" -v w0="$w0" -v s0="$s0" 'BEGIN {
		printf "%s\t%s\t%.10g\t%.3g\t%d\t%d\t%.2f\t%.2f\n", s, t, o,
		    (o - f) / f, wb, sb, w0 / wb, s0 / sb }'
done
