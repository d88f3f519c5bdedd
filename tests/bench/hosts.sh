#!/bin/sh
# tests/bench/hosts.sh: what the cluster path costs.  The same ps-train job
# on the data, RUNS times each, alternating: on this host alone, and with
# -H on three hosts that are network namespaces on a bridge, reached with
# PSKIT_RSH="ip netns exec" (the coordinator and ps-train in the root
# namespace).  Both have 3 servers and 2 workers; the three-host job pays
# for the remote shell, the shards shipped, the parts fetched and the
# bridge.  Needs root and ip (iproute2).  Per-run lines on stderr; stdout
# gets key<TAB>value lines: the median wall time of each, their ratio, and
# whether the objectives agreed.
#
#   tests/bench/hosts.sh [-r runs] train.libsvm
set -u
prog=hosts.sh
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
. "$here/lib.sh"

runs=5
bench_runs_train "$@"
[ "$(id -u)" -eq 0 ] || bench_status=77 bench_die "needs root for ip netns"
bench_use_pstrain "$srcdir"
work=$(mktemp -d "${TMPDIR:-/tmp}/hosts-bench.XXXXXX") || exit 73
tag=pkb$$

# net_down: the namespaces and the bridge go (their veth ends with them).
net_down() {
	for k in 1 2 3; do ip netns delete "$tag-h$k" 2>/dev/null; done
	ip link delete "${tag}b" 2>/dev/null
	rm -rf "$work"
}
trap net_down EXIT
trap 'exit 130' INT TERM

# net_up: a bridge at 10.78.N.1 (the first N free) and namespaces
# $tag-h1..3 at 10.78.N.2..4; the hosts file in $work/hosts.
net_up() {
	for n in $(seq 1 254); do
		ip -4 -o addr show | grep -q " 10\.78\.$n\." || break
	done
	ip link add "${tag}b" type bridge && ip addr add "10.78.$n.1/24" \
	    dev "${tag}b" && ip link set "${tag}b" up ||
		bench_die "cannot make a bridge"
	for k in 1 2 3; do
		ip netns add "$tag-h$k" &&
		ip link add "${tag}h$k" type veth peer name eth0 netns "$tag-h$k" &&
		ip link set "${tag}h$k" master "${tag}b" up &&
		ip -n "$tag-h$k" link set lo up &&
		ip -n "$tag-h$k" addr add "10.78.$n.$((k + 1))/24" dev eth0 &&
		ip -n "$tag-h$k" link set eth0 up ||
			bench_die "cannot make namespace $tag-h$k"
		echo "$tag-h$k 10.78.$n.$((k + 1))"
	done >"$work/hosts"
}
net_up

# one KIND I: run the job (KIND one or three); print its wall seconds and
# final objective.
one() {
	run=$1-$2
	if [ "$1" = three ]; then set -- -H "$work/hosts"; else set --; fi
	t0=$(bench_now)
	PSKIT_RSH="ip netns exec" PSKIT_REMOTE_DIR=$work "$pstrain" --tsv -q \
	    -s 3 -w 2 -o "$work/model-$run" "$@" "$train" \
	    >/dev/null 2>"$work/err-$run" ||
		{ cat "$work/err-$run" >&2; bench_die "the $run job failed"; }
	t1=$(bench_now)
	obj=$(awk -F'\t' '$1 == "objective" { print $2 }' "$work/err-$run")
	echo "$(bench_elapsed "$t0" "$t1") $obj"
}

i=1
while [ $i -le "$runs" ]; do
	for kind in one three; do
		# one, three; then three, one: neither always goes first.
		[ $((i % 2)) -eq 0 ] && kind=$([ $kind = one ] && echo three || echo one)
		set -- $(one "$kind" "$i")
		[ $# -eq 2 ] || exit 1
		echo "run $i $kind host(s): $1 s, objective $2" >&2
		echo "$1" >>"$work/secs-$kind"
		echo "$2" >>"$work/obj-$kind"
	done
	i=$((i + 1))
done
m1=$(bench_median <"$work/secs-one")
m3=$(bench_median <"$work/secs-three")
printf 'runs\t%s\none_host_secs\t%s\nthree_hosts_secs\t%s\n' "$runs" "$m1" "$m3"
awk -v a="$m3" -v b="$m1" 'BEGIN { printf "ratio\t%.3f\n", a / b }'
if [ "$(sort -u "$work/obj-one" "$work/obj-three" | wc -l)" -eq 1 ]; then
	printf 'same_objective\tyes\n'
else
	printf 'same_objective\tno\n'
fi
