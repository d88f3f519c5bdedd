#!/bin/sh
# tests/bench/checkpoint.sh: what checkpoints and warm starts cost.
#  1. ps-train without checkpoints and with -c -E n for each interval,
#     interleaved ROUNDS times: wall time, iterations, the ratio to no
#     checkpoints, and whether every run ends with the same answer.
#  2. A model of N random weights (tests/tools/ps-mkmodel), loaded by
#     ps-server -v -i at start; a short job on a small data set with a
#     checkpoint after every iteration; the servers' logs give the load
#     and write times.  Then ps-ckpt verify and seal on the last version.
#  3. The time from ps-train's start to worker 0's first progress line,
#     cold and warm (-I) from the checkpoints of 1 and 2.
# Per-run lines go to stderr; stdout gets key<TAB>value lines.  See
# tests/bench/README.
set -u

prog=checkpoint.sh
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
. "$here/lib.sh"

# usage STATUS: print the usage (with help text when STATUS is 0) and exit.
usage() {
	cat <<USAGE
usage: checkpoint.sh [-hk] [-E intervals] [-n weights] [-r rounds]
                     [-S sample.libsvm] [-s servers] [-w workers]
                     train.libsvm
USAGE
	if [ "$1" -eq 0 ]; then
		cat <<HELP

  -E intervals  checkpoint intervals of measurement 1, comma-separated
                (default 100,10,1)
  -n weights    non-zero weights of the large model of measurement 2
                (default 4000000)
  -r rounds     runs of each variant, interleaved (default 3)
  -S sample     data of measurement 2's short job (default the source
                tree's scripts/sample/a9a-sample.libsvm)
  -s servers    ps-train servers and the servers of measurement 2 (default 2)
  -w workers    ps-train workers (default 2)
  -k            keep the work directory and print its name
  -h            print this help and exit

Needs ps-mkmodel (make tests/tools/ps-mkmodel in the build directory) and
ps-ckpt.  The work directory holds the large model and its checkpoints:
about 3 x 12 bytes per weight and version, under \$TMPDIR.
HELP
	fi
	exit "$1"
}

intervals=100,10,1 weights=4000000 rounds=3 sample= servers=2 workers=2 keep=0
while getopts E:hkn:r:S:s:w: opt; do
	case $opt in
	E) intervals=$OPTARG ;;
	h) usage 0 ;;
	k) keep=1 ;;
	n) weights=$OPTARG ;;
	r) rounds=$OPTARG ;;
	S) sample=$OPTARG ;;
	s) servers=$OPTARG ;;
	w) workers=$OPTARG ;;
	*) usage 64 >&2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage 64 >&2
train=$1
: "${sample:=$srcdir/scripts/sample/a9a-sample.libsvm}"
intervals=$(echo "$intervals" | tr , ' ')
for n in "$weights" "$rounds" "$servers" "$workers" $intervals; do
	case $n in ''|*[!0-9]*|0) echo "$prog: bad count '$n'" >&2; usage 64 >&2 ;; esac
done
for f in "$train" "$sample"; do
	[ -r "$f" ] || bench_status=66 bench_die "cannot open '$f'"
done
bench_use_pstrain "$srcdir"
mkmodel=$(bench_find_prog ps-mkmodel tests/tools) || bench_status=69 \
    bench_die "ps-mkmodel not found: run 'make tests/tools/ps-mkmodel' in the build directory"
command -v ps-ckpt >/dev/null || bench_status=69 bench_die "ps-ckpt not found"

work=$(mktemp -d "${TMPDIR:-/tmp}/checkpoint.XXXXXX") || exit 73
# ps-train jobs get SIGTERM, so that they stop their own servers and
# workers; the daemons started here get kill -9 (bench_daemons_cleanup).
train_pids=
cleanup() {
	for _p in $train_pids; do kill -TERM "$_p" 2>/dev/null; done
	bench_daemons_cleanup
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ratio A B: A / B with 3 decimals, "-" when either is not a number.
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a !~ /^[0-9.eE+-]+$/ || b !~ /^[0-9.eE+-]+$/ || b == 0)
			print "-"
		else
			printf "%.3f\n", a / b }'
}

# col FILE N: the median of column N of a TSV file.
col() {
	cut -f "$2" "$1" | bench_median
}

printf 'train\t%s\nservers\t%s\nworkers\t%s\nrounds\t%s\n' "$train" \
    "$servers" "$workers" "$rounds"

# 1. Periodic checkpoints against none, interleaved.
variants="none $intervals"
i=1
while [ $i -le "$rounds" ]; do
	for v in $variants; do
		d=$work/train-$v.$i
		if [ "$v" = none ]; then set --; else set -- -c "$d.ck" -E "$v"; fi
		bench_run "$d" "$pstrain" -q -s "$servers" -w "$workers" "$@" \
		    -o "$d.model" "$train" ||
			{ tail -n 20 "$d.err" >&2; bench_die "ps-train ($v) failed"; }
		tsv=$d.model/progress.tsv
		printf '%s\t%s\t%s\t%s\n' "$(cat "$d.secs")" \
		    "$(bench_last_of "$tsv" secs)" "$(bench_last_of "$tsv" iter)" \
		    "$(bench_last_of "$tsv" objective)" >>"$work/train-$v.tsv"
		printf 'run %d %s\twall %s\tsecs %s\titer %s\tobjective %s\n' \
		    "$i" "$v" $(tail -n 1 "$work/train-$v.tsv") >&2
	done
	i=$((i + 1))
done
wall0=$(col "$work/train-none.tsv" 1)
secs0=$(col "$work/train-none.tsv" 2)
for v in $variants; do
	f=$work/train-$v.tsv
	[ "$v" = none ] && k=none || k=E$v
	wall=$(col "$f" 1)
	iter=$(col "$f" 3)
	printf '%s_wall\t%s\n%s_secs\t%s\n%s_iter\t%s\n%s_objective\t%s\n' \
	    "$k" "$wall" "$k" "$(col "$f" 2)" "$k" "$iter" \
	    "$k" "$(tail -n 1 "$f" | cut -f 4)"
	[ "$v" = none ] && continue
	# One checkpoint every v iterations and one at the end.
	n=$(awk -v i="$iter" -v e="$v" 'BEGIN { print int(i / e) + 1 }')
	printf '%s_checkpoints\t%s\n%s_ratio_wall\t%s\n%s_ratio_secs\t%s\n' \
	    "$k" "$n" "$k" "$(ratio "$wall" "$wall0")" \
	    "$k" "$(ratio "$(col "$f" 2)" "$secs0")"
	awk -v a="$wall" -v b="$wall0" -v n="$n" -v k="$k" \
	    'BEGIN { printf "%s_ms_per_checkpoint\t%.2f\n", k, (a - b) / n * 1000 }'
done
# Checkpoints must not change the answer: one iteration count and one
# objective over every run.
match=$(cut -f 3,4 "$work"/train-*.tsv | sort -u | wc -l)
[ "$match" -eq 1 ] && match=yes || match=no
printf 'answers_match\t%s\n' "$match"

# 2. A large model: load, checkpoint writes, verify.
big=$work/big
mkdir "$big" || exit 73
t0=$(bench_now)
awk -v n="$weights" 'BEGIN {
	srand(1)
	for (i = 0; i < n; i++) {
		f += 1 + int(rand() * 6)
		w = rand() * 2 - 1
		printf "%d\t%.6g\n", f, w == 0 ? 0.5 : w
	}
}' | "$mkmodel" -i 1000 -l 1 "$big/model.psm" || bench_die "ps-mkmodel failed"
echo "model: $weights weights, $(bench_file_bytes "$big/model.psm") bytes," \
    "made in $(bench_elapsed "$t0" "$(bench_now)") s" >&2
ps-shard-data -q -n 1 -o "$big/train" "$sample" ||
	bench_die "cannot shard '$sample'"
t0=$(bench_now)
spids= addrs=
k=0
while [ $k -lt "$servers" ]; do
	ps-server -v -i "$big/model.psm" -k "$big/ck" -r "$big/ring" \
	    >"$big/server-$k.out" 2>"$big/server-$k.err" &
	bench_pids="$bench_pids $!"
	spids="$spids $!"
	k=$((k + 1))
done
k=0
while [ $k -lt "$servers" ]; do
	bench_wait_line "$big/server-$k.out" '^listening ' 600
	addrs="$addrs $(sed -n 's/^listening //p' "$big/server-$k.out")"
	k=$((k + 1))
done
echo "servers listening after $(bench_elapsed "$t0" "$(bench_now)") s" >&2
# shellcheck disable=SC2086
ps-ring init -o "$big/ring" $addrs || bench_die "cannot write the ring"
t0=$(bench_now)
ps-worker -r "$big/ring" -n 1 -m 3 --checkpoint-every 1 \
    "$big/train-0.pss" >"$big/worker.tsv" 2>"$big/worker.err" ||
	{ cat "$big/worker.err" "$big"/server-*.err >&2; bench_die "ps-worker failed"; }
echo "job of 3 iterations with a checkpoint after each:" \
    "$(bench_elapsed "$t0" "$(bench_now)") s" >&2
rss=0
for p in $spids; do
	r=$(bench_hwm "$p")
	[ "${r:-0}" -gt "$rss" ] && rss=$r
done
# SIGTERM: a server finishes what it is writing before it exits.
for p in $spids; do kill -TERM "$p"; done
for p in $spids; do wait "$p"; done
bench_pids=
cat "$big"/server-*.err | sed -n 's/.*starting model .*: iteration [0-9]*, \([0-9]*\) weights, read and checked in \([0-9.]*\) s$/\1	\2/p' >"$big/load.tsv"
cat "$big"/server-*.err | sed -n 's/.*checkpoint \(.*\): part \([0-9]*\), \([0-9]*\) weights, written in \([0-9.]*\) s$/\1	\2	\3	\4/p' >"$big/write.tsv"
[ -s "$big/load.tsv" ] && [ -s "$big/write.tsv" ] ||
	bench_die "no load or write times in the servers' logs ($big)"
sed 's/^/load: weights, secs /' "$big/load.tsv" >&2
sed 's/^/write: version, part, weights, secs /' "$big/write.tsv" >&2
latest=$(ls -d "$big"/ck/v* | tail -n 1)
vweights=$(awk -F'\t' -v v="$latest" '$1 == v { n += $3 } END { print n }' "$big/write.tsv")
vbytes=$(cat "$latest"/part-*.psm "$latest"/MANIFEST | wc -c | tr -d ' ')
i=1
while [ $i -le "$rounds" ]; do
	bench_run "$big/verify.$i" ps-ckpt verify "$latest" ||
		bench_die "ps-ckpt verify fails on $latest: $(cat "$big/verify.$i.err")"
	bench_run "$big/seal.$i" ps-ckpt seal "$latest" ||
		bench_die "ps-ckpt seal fails on $latest: $(cat "$big/seal.$i.err")"
	echo "verify $(cat "$big/verify.$i.secs") s, seal $(cat "$big/seal.$i.secs") s" >&2
	i=$((i + 1))
done
vsecs=$(cat "$big"/verify.*.secs | bench_median)
printf 'big_weights\t%s\n' "$weights"
printf 'big_model_bytes\t%s\n' "$(bench_file_bytes "$big/model.psm")"
printf 'load_secs\t%s\n' "$(col "$big/load.tsv" 2)"
awk -F'\t' '{ print $1 / $2 }' "$big/load.tsv" | bench_median |
    awk '{ printf "load_keys_per_sec\t%.0f\n", $1 }'
printf 'write_part_secs\t%s\n' "$(col "$big/write.tsv" 4)"
awk -F'\t' '{ print $3 / $4 }' "$big/write.tsv" | bench_median |
    awk '{ printf "write_part_keys_per_sec\t%.0f\n", $1 }'
# A version's parts are written at once, one per server: its weights over
# its slowest part's time.
awk -F'\t' '{ n[$1] += $3; if ($4 > t[$1]) t[$1] = $4 }
    END { for (v in n) print n[v] / t[v] }' "$big/write.tsv" | bench_median |
    awk '{ printf "write_keys_per_sec\t%.0f\n", $1 }'
printf 'versions_written\t%s\n' "$(cut -f 1 "$big/write.tsv" | sort -u | wc -l)"
printf 'version_weights\t%s\nversion_bytes\t%s\n' "$vweights" "$vbytes"
printf 'server_peak_rss_kb\t%s\n' "$rss"
printf 'verify_secs\t%s\n' "$vsecs"
awk -v n="$vweights" -v s="$vsecs" 'BEGIN { printf "verify_keys_per_sec\t%.0f\n", n / s }'
printf 'verify_rss_kb\t%s\n' "$(cat "$big"/verify.*.rss | bench_median)"
printf 'seal_secs\t%s\n' "$(cat "$big"/seal.*.secs | bench_median)"

# 3. Time to the first progress line, cold and warm.
small=$(ls -d "$work/train-$(echo "$intervals" | cut -d' ' -f 1).1.ck")
i=1
while [ $i -le "$rounds" ]; do
	for v in cold warm warm_big; do
		d=$work/start-$v.$i
		case $v in
		cold) set -- ;;
		warm) set -- -I "$small" ;;
		warm_big) set -- -I "$big/ck" ;;
		esac
		t0=$(bench_now)
		"$pstrain" -q -s "$servers" -w "$workers" -j "$d" "$@" \
		    -o "$d.model" "$train" 2>"$d.err" &
		tp=$!
		train_pids=$tp
		until grep -q '^[0-9]' "$d/worker-0.tsv" 2>/dev/null; do
			kill -0 $tp 2>/dev/null || break
			sleep 0.01
		done
		first=$(bench_elapsed "$t0" "$(bench_now)")
		wait $tp || { tail -n 20 "$d.err" >&2; bench_die "ps-train ($v) failed"; }
		train_pids=
		wall=$(bench_elapsed "$t0" "$(bench_now)")
		tsv=$d.model/progress.tsv
		printf '%s\t%s\t%s\t%s\n' "$first" "$wall" "$(bench_last_of "$tsv" iter)" \
		    "$(bench_last_of "$tsv" objective)" >>"$work/start-$v.tsv"
		printf 'run %d %s\tfirst %s\twall %s\titer %s\tobjective %s\n' \
		    "$i" "$v" $(tail -n 1 "$work/start-$v.tsv") >&2
		rm -rf "$d" "$d.model"
	done
	i=$((i + 1))
done
first0=$(col "$work/start-cold.tsv" 1)
for v in cold warm warm_big; do
	f=$work/start-$v.tsv
	printf '%s_first_secs\t%s\n%s_wall\t%s\n%s_iter\t%s\n%s_objective\t%s\n' \
	    "$v" "$(col "$f" 1)" "$v" "$(col "$f" 2)" "$v" "$(col "$f" 3)" \
	    "$v" "$(tail -n 1 "$f" | cut -f 4)"
	[ "$v" = cold ] ||
		printf '%s_ratio_first\t%s\n' "$v" "$(ratio "$(col "$f" 1)" "$first0")"
done
