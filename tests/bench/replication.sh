#!/bin/sh
# tests/bench/replication.sh: the throughput cost of replication: ps-train
# with k = 0, 1 and 2 replicas (-R) on the same data and servers count,
# alternating REPEATS times.  Per-run lines go to stderr; stdout gets
# key<TAB>value lines, medians over the repeats and ratios against k = 0.
# See tests/bench/README.
set -u

prog=replication.sh
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
. "$here/lib.sh"

# usage STATUS: print the usage (with help text when STATUS is 0) and exit.
usage() {
	cat <<USAGE
usage: replication.sh [-hk] [-A dbpg|sgd] [-r repeats] [-s servers]
                      [-W worker_options] [-w workers] train.libsvm
USAGE
	if [ "$1" -eq 0 ]; then
		cat <<HELP

  -A alg       the jobs' algorithm (default dbpg)
  -r repeats   runs of each replica count, alternating (default 3)
  -s servers   ps-train servers, at least 2 (default 3; k = 2 needs 3)
  -w workers   ps-train workers (default 2)
  -W opts      more ps-worker options (ps-train -W)
  -k           keep the work directory and print its name
  -h           print this help and exit

Each run is ps-train -s servers -w workers -R k train.libsvm for k in
0 1 2 (0 1 on two servers); for dbpg every run must end with the same
objective (replication does not change the answer).  Figures: secs (the
worker's clock at its last line), iterations (sgd: mini-batches), ps-train's
wall time, the objective (sgd: the progressive loss), and each k's ratio
to k = 0.
HELP
	fi
	exit "$1"
}

repeats=3 servers=3 workers=2 keep=0 alg=dbpg wopts=
while getopts A:hkr:s:W:w: opt; do
	case $opt in
	A) alg=$OPTARG ;;
	W) wopts=$OPTARG ;;
	h) usage 0 ;;
	k) keep=1 ;;
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
[ "$servers" -ge 2 ] || { echo "$prog: -s must be at least 2" >&2; usage 64 >&2; }
case $alg in
dbpg) iter=iter objective=objective ;;
sgd) iter=batch objective=progressive_logloss ;;
*) echo "$prog: bad algorithm '$alg'" >&2; usage 64 >&2 ;;
esac
# k = 2 needs three servers.
ks="0 1"
[ "$servers" -lt 3 ] || ks="0 1 2"
[ -r "$train" ] || { echo "$prog: cannot open '$train'" >&2; exit 66; }

bench_use_pstrain "$srcdir"

work=$(mktemp -d "${TMPDIR:-/tmp}/replication.XXXXXX") || exit 73
trap '[ $keep -eq 1 ] && echo "$prog: work files kept in $work" >&2 || rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

i=1
while [ $i -le "$repeats" ]; do
	for k in $ks; do
		bench_run "$work/k$k.$i" "$pstrain" -q -A "$alg" -s "$servers" \
		    -w "$workers" -R "$k" ${wopts:+-W "$wopts"} \
		    -o "$work/k$k.$i.model" "$train" ||
			{ tail -n 20 "$work/k$k.$i.err" >&2; bench_die "ps-train -R $k failed"; }
		tsv=$work/k$k.$i.model/progress.tsv
		printf '%s\t%s\t%s\t%s\n' "$(bench_last_of "$tsv" secs)" \
		    "$(bench_last_of "$tsv" "$iter")" "$(cat "$work/k$k.$i.secs")" \
		    "$(bench_last_of "$tsv" "$objective")" >>"$work/k$k.tsv"
		printf 'run %d k=%d\tsecs %s\titer %s\twall %s\tobjective %s\n' \
		    "$i" "$k" $(tail -n 1 "$work/k$k.tsv") >&2
	done
	i=$((i + 1))
done

printf 'train\t%s\nalgorithm\t%s\nservers\t%s\nworkers\t%s\nrepeats\t%s\n' \
    "$train" "$alg" "$servers" "$workers" "$repeats"
for k in $ks; do
	eval "secs$k=\$(cut -f 1 \"\$work/k$k.tsv\" | bench_median)"
	eval "wall$k=\$(cut -f 3 \"\$work/k$k.tsv\" | bench_median)"
	printf 'k%s_secs\t%s\nk%s_iter\t%s\nk%s_wall\t%s\nk%s_objective\t%s\n' \
	    "$k" "$(eval echo \$secs$k)" "$k" \
	    "$(cut -f 2 "$work/k$k.tsv" | bench_median)" \
	    "$k" "$(eval echo \$wall$k)" "$k" "$(tail -n 1 "$work/k$k.tsv" | cut -f 4)"
done
for k in $ks; do
	[ "$k" -gt 0 ] || continue
	awk -v a="$(eval echo \$secs$k)" -v b="$secs0" -v k="$k" \
	    'BEGIN { printf "ratio_k%d_secs\t%.3f\n", k, a / b }'
	awk -v a="$(eval echo \$wall$k)" -v b="$wall0" -v k="$k" \
	    'BEGIN { printf "ratio_k%d_wall\t%.3f\n", k, a / b }'
done
