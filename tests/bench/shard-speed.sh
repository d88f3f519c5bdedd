#!/bin/sh
# tests/bench/shard-speed.sh: how fast ps-shard-data turns a libsvm file
# into shards, next to `wc -l` and `cat` on the same (cached) file as
# references.  Prints a TSV table on stdout: median seconds over the
# repeats, MB/s (10^6 bytes), non-zeros per second and peak RSS.  See
# tests/bench/README.
set -u

prog='shard-speed.sh'
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

# usage STATUS: print the usage (with help text when STATUS is 0) and exit.
usage() {
	cat <<USAGE
usage: shard-speed.sh [-hR] [-n shards] [-p positive] [-r repeats] file.libsvm
USAGE
	if [ "$1" -eq 0 ]; then
		cat <<HELP

  -n shards   shards to write (default 4)
  -p positive label of the positive class, for labels other than +1/-1, 1/0
  -r repeats  runs of each command (default 3)
  -R          the references (wc -l, cat) only
  -h          print this help and exit

ps-shard-data is looked up in \$PSKIT_BUILDDIR, the current directory, then
PATH.  Non-zeros are counted as the ':' characters of the file (exact for
libsvm without qid: or comments).
HELP
	fi
	exit "$1"
}

shards=4 repeats=3 refs_only=0 positive=
while getopts hn:p:r:R opt; do
	case $opt in
	h) usage 0 ;;
	n) shards=$OPTARG ;;
	p) positive=$OPTARG ;;
	r) repeats=$OPTARG ;;
	R) refs_only=1 ;;
	*) usage 64 >&2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage 64 >&2
file=$1
for n in "$shards" "$repeats"; do
	case $n in ''|*[!0-9]*|0) echo "$prog: bad count '$n'" >&2; usage 64 >&2 ;; esac
done
[ -r "$file" ] || { echo "$prog: cannot open '$file'" >&2; exit 66; }
if [ $refs_only -eq 0 ]; then
	shard=$(bench_find_prog ps-shard-data) || { bench_status=69
		bench_die "ps-shard-data not found: run from the build directory" \
		    "or set PSKIT_BUILDDIR; use -R for the references alone"; }
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/shard-speed.XXXXXX") || exit 73
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

bytes=$(bench_file_bytes "$file")
cat "$file" >/dev/null		# warm the page cache
nnz=$(tr -cd : <"$file" | wc -c | tr -d ' ')
echo "$prog: '$file': $bytes bytes, $nnz non-zeros, $repeats repeats" >&2

# measure NAME CMD...: run CMD $repeats times and print its table row.
measure() {
	_name=$1
	shift
	_k=1
	while [ $_k -le "$repeats" ]; do
		rm -rf "$work/out" && mkdir "$work/out" || exit 73
		bench_run "$work/$_name.$_k" "$@" ||
			{ cat "$work/$_name.$_k.err" >&2; bench_die "$_name failed"; }
		cat "$work/$_name.$_k.secs" >>"$work/$_name.secs"
		cat "$work/$_name.$_k.rss" >>"$work/$_name.rss"
		_k=$((_k + 1))
	done
	_s=$(bench_median <"$work/$_name.secs")
	awk -v n="$_name" -v s="$_s" -v b="$bytes" -v z="$nnz" \
	    -v r="$(bench_median <"$work/$_name.rss")" 'BEGIN {
		if (s <= 0) s = 0.001
		printf "%s\t%.3f\t%.1f\t%.4g\t%s\n", n, s, b / s / 1e6, z / s, r
	}'
}

printf 'tool\tsecs\tMB_per_s\tnnz_per_s\tpeak_rss_kb\n'
measure wc-l wc -l "$file"
# shellcheck disable=SC2016 # $1 is for the inner shell
measure cat sh -c 'cat "$1" >/dev/null' sh "$file"
[ $refs_only -eq 1 ] ||
	measure ps-shard-data "$shard" -n "$shards" -o "$work/out/x" \
	    ${positive:+--positive "$positive"} "$file"
