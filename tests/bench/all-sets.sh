#!/bin/sh
# all-sets.sh: ps-train against LIBLINEAR (-s 6 -c 1/lambda -e 0.0001) on
# every binary data set in ../shared/data, for several numbers of servers,
# workers and tau.  Prints TSV: set, servers, workers, tau, LIBLINEAR's
# objective, ours, relative gap, our seconds, LIBLINEAR's seconds.
#
# usage: tests/bench/all-sets.sh [-l lambda] [configs...]
#   a config is S:W:TAU (default: 1:1:0 2:2:0 2:3:4 3:2:2)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${PSKIT_BUILDDIR:-$top/build}
data=${PSKIT_DATA:-$top/../shared/data}
lambda=1
[ "${1:-}" = -l ] && { lambda=$2; shift 2; }
configs=${*:-1:1:0 2:2:0 2:3:4 3:2:2}
PATH=$build:$top/scripts:$PATH
export PATH
work=$(mktemp -d "${TMPDIR:-/tmp}/all-sets.XXXXXX")
trap 'rm -rf "$work"' EXIT
c=$(awk -v l="$lambda" 'BEGIN { printf "%.17g", 1 / l }')

printf 'set\tservers\tworkers\ttau\tliblinear_obj\tpskit_obj\trel_gap\tpskit_secs\tliblinear_secs\n'
for spec in a9a: w8a: mushrooms:1 news20.half.unit.binary: news20.half.binary: spamassassin.train:; do
	name=${spec%%:*} pos=${spec#*:}
	xz -dc "$data/$name.xz" >"$work/$name"
	llin=$work/$name
	if [ -n "$pos" ]; then	# LIBLINEAR takes the first label it meets as positive
		awk -v p="$pos" '{ $1 = ($1 == p) ? "+1" : "-1"; print }' "$work/$name" >"$work/$name.pm"
		llin=$work/$name.pm
	fi
	t0=$(date +%s.%N)
	liblinear-train -s 6 -c "$c" -e 0.0001 "$llin" "$work/$name.model" >/dev/null
	t1=$(date +%s.%N)
	ref=$("$build/tests/bench/ps-objective" -l "$lambda" "$work/$name.model" "$llin" | awk 'NR == 2 { print $1 }')
	for cfg in $configs; do
		s=${cfg%%:*} rest=${cfg#*:} w=${rest%%:*} tau=${rest#*:}
		t2=$(date +%s.%N)
		rm -rf "$work/model"
		if ps-train -q -s "$s" -w "$w" -t "$tau" -l "$lambda" ${pos:+-p "$pos"} \
		    -o "$work/model" "$work/$name" 2>"$work/err"; then
			ours=$(tail -n 1 "$work/model/progress.tsv" | cut -f 3)
		else
			ours=nan
			sed "s/^/$name $cfg: /" "$work/err" >&2
		fi
		t3=$(date +%s.%N)
		awk -v n="$name" -v s="$s" -v w="$w" -v t="$tau" -v r="$ref" -v o="$ours" \
		    -v a="$t0" -v b="$t1" -v x="$t2" -v y="$t3" 'BEGIN {
			printf "%s\t%s\t%s\t%s\t%.10g\t%.10g\t%.3g\t%.2f\t%.2f\n",
			    n, s, w, t, r, o, (o - r) / r, y - x, b - a }'
	done
	rm -f "$work/$name" "$work/$name.pm"
done
