#!/bin/sh
# tests/bench/ab.sh: ps-train from two build trees on the same data, runs
# alternated (A B A B ...) so that a shared machine's drift falls on both,
# with the median wall time of each, the ratio B/A, and each side's final
# objective (equal at tau 0 when the change leaves the answer alone).
#
#   tests/bench/ab.sh [-p] [-n rounds] [-c secs] A-BUILDDIR B-BUILDDIR DATA [ps-train option...]
#
# ps-train runs with -q, unless -p: then it shows its progress (to a
# file), as a user's run and vs-liblinear.sh's do.
# -c pauses secs before each run, so that each starts cold: a VM's guest
# hands memory that stayed free a while back to the host (free page
# reporting), and a process that touches it first pays for that
# (tests/bench/README, twenty-ninth session); back to back, a run starts
# on memory the last one freed.
#
# Each BUILDDIR holds ps-server, ps-worker, ps-shard-data, ps-ring; its
# source tree's scripts/ps-train (BUILDDIR/../scripts) runs them.  DATA is
# a libsvm file.
set -u
prog=ab.sh
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

rounds=5 cold=0 quiet=-q
usage_line="usage: $prog [-p] [-n rounds] [-c secs] A-BUILDDIR B-BUILDDIR DATA [ps-train option...]"
while getopts c:n:p opt; do
	case $opt in
	c) cold=$OPTARG ;;
	n) rounds=$OPTARG ;;
	p) quiet= ;;
	*) echo "$usage_line" >&2; exit 64 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 3 ] || { echo "$usage_line" >&2; exit 64; }
a=$(cd "$1" && pwd) b=$(cd "$2" && pwd) data=$3
shift 3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ab.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# one SIDE DIR I: a run of ps-train from build DIR; its seconds and
# objective go to $tmp/SIDE.secs and $tmp/SIDE.obj.
one() {
	side=$1 dir=$2
	shift 2
	[ "$cold" = 0 ] || sleep "$cold"
	PATH="$dir:$dir/../scripts:$PATH" bench_run "$tmp/run" \
	    ps-train $quiet -o "$tmp/model" "$@" "$data" ||
		bench_die "$side: ps-train failed: $(tail -1 "$tmp/run.err")"
	cat "$tmp/run.secs" >>"$tmp/$side.secs"
	awk -F'\t' '$1 == "objective" { print $2 }' "$tmp/run.err" >>"$tmp/$side.obj"
}

# Unwatched: polling the processes' memory takes CPU from the job.
bench_poll=0
i=0
while [ $i -lt "$rounds" ]; do
	one A "$a" "$@"
	one B "$b" "$@"
	i=$((i + 1))
done
ma=$(bench_median <"$tmp/A.secs") mb=$(bench_median <"$tmp/B.secs")
printf 'side\tmedian_s\truns\tobjective\n'
printf 'A\t%s\t%s\t%s\n' "$ma" "$(tr '\n' ' ' <"$tmp/A.secs")" "$(sort -u "$tmp/A.obj" | tr '\n' ' ')"
printf 'B\t%s\t%s\t%s\n' "$mb" "$(tr '\n' ' ' <"$tmp/B.secs")" "$(sort -u "$tmp/B.obj" | tr '\n' ' ')"
awk -v a="$ma" -v b="$mb" 'BEGIN { printf "ratio B/A\t%.3f\n", b / a }'
