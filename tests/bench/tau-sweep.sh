#!/bin/sh
# tests/bench/tau-sweep.sh: how the bounded delay tau of ps-worker's DBPG
# (Algorithm 2) changes the time to reach 1e-3 of the optimum, with no
# disturbance and with one worker slowed down by SIGSTOP/SIGCONT.  Starts
# the job's processes itself (as scripts/ps-train does) so that it knows the
# workers' PIDs; runs all (tau, condition) pairs once per round, REPEATS
# rounds; prints key<TAB>value lines, a blank line and a TSV table of
# medians on stdout, per-run lines on stderr.  See tests/bench/README.
set -u

prog=tau-sweep.sh
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

# usage STATUS: print the usage (with help text when STATUS is 0) and exit.
usage() {
	cat <<USAGE
usage: tau-sweep.sh [-hk] [-b blocks] [-c conditions] [-e epsilon]
                    [-F fstar] [-i slow_id] [-l lambda] [-M max_secs]
                    [-m max_iter] [-O first] [-P period] [-p positive]
                    [-r repeats]
                    [-S stop_secs] [-s servers] [-t taus] [-w workers]
                    train.libsvm
USAGE
	if [ "$1" -eq 0 ]; then
		cat <<HELP

  -t taus        delays to run, space or comma separated (default
                 "0 1 2 4 8 16"; inf allowed); ratios are against the first
  -c conditions  none, slow or both (default "none slow")
  -s servers     ps-server processes (default 2)
  -w workers     ps-worker processes (default 2)
  -r repeats     rounds; each round runs every (tau, condition) (default 3)
  -i slow_id     the worker slowed down in condition slow (default 1)
  -S stop_secs   slow: SIGSTOP it for stop_secs, then SIGCONT (default 1),
  -O first       first first seconds after the workers start (default 0.5)
  -P period      and then every period seconds (default 3)
  -F fstar       the optimum objective, instead of running LIBLINEAR
  -l lambda      l1 penalty (default 1; LIBLINEAR runs with -c 1/lambda)
  -b blocks      blocks per pass (default: ps-train's rule, the mean
                 non-zeros per row in 1..256)
  -e epsilon     ps-worker's stopping threshold (default 1e-6)
  -m max_iter    ps-worker's iteration cap (default 100000)
  -M max_secs    kill a run after this many seconds (default 900)
  -p positive    label of the positive class (ps-shard-data --positive)
  -k             keep the work directory (shards, logs, progress TSVs)
  -h             print this help and exit

The gap reference is F* = min(LIBLINEAR's objective or -F, the best final
objective of any ps-worker run); the target is F* (1 + 1e-3).  Programs
are looked up in \$PSKIT_BUILDDIR, the current directory, then PATH.
HELP
	fi
	exit "$1"
}

taus='0 1 2 4 8 16' conds='none slow' servers=2 workers=2 repeats=3
slow_id=1 stop_secs=1 first=0.5 period=3 fstar='' lambda=1 blocks='' eps=1e-6
maxiter=100000 max_secs=900 positive='' keep=0
while getopts b:c:e:F:hi:kl:M:m:O:P:p:r:S:s:t:w: opt; do
	case $opt in
	b) blocks=$OPTARG ;;
	c) conds=$(echo "$OPTARG" | tr , ' ') ;;
	e) eps=$OPTARG ;;
	F) fstar=$OPTARG ;;
	h) usage 0 ;;
	i) slow_id=$OPTARG ;;
	k) keep=1 ;;
	l) lambda=$OPTARG ;;
	M) max_secs=$OPTARG ;;
	m) maxiter=$OPTARG ;;
	O) first=$OPTARG ;;
	P) period=$OPTARG ;;
	p) positive=$OPTARG ;;
	r) repeats=$OPTARG ;;
	S) stop_secs=$OPTARG ;;
	s) servers=$OPTARG ;;
	t) taus=$(echo "$OPTARG" | tr , ' ') ;;
	w) workers=$OPTARG ;;
	*) usage 64 >&2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage 64 >&2
train=$1

# bad WHAT VALUE: complain about an option value and exit 64.
bad() {
	echo "$prog: bad $1 '$2'" >&2
	usage 64 >&2
}
for n in "$repeats" "$servers" "$workers" "$max_secs" ${blocks:+"$blocks"}; do
	case $n in ''|*[!0-9]*|0) bad count "$n" ;; esac
done
case $slow_id in ''|*[!0-9]*) bad "worker id" "$slow_id" ;; esac
for t in $taus; do
	case $t in inf) ;; ''|*[!0-9]*) bad tau "$t" ;; esac
done
[ -n "$taus" ] || bad tau ""
for c in $conds; do
	case $c in none|slow) ;; *) bad condition "$c" ;; esac
done
[ -n "$conds" ] || bad condition ""
posnum() { awk -v x="$1" 'BEGIN { exit !(x ~ /^[0-9.eE+-]+$/ && x + 0 > 0) }'; }
posnum "$lambda" || bad lambda "$lambda"
posnum "$stop_secs" || bad "stop seconds" "$stop_secs"
posnum "$period" || bad period "$period"
[ "$first" = 0 ] || posnum "$first" || bad "first stop" "$first"
[ -z "$fstar" ] || posnum "$fstar" || bad fstar "$fstar"
awk -v s="$stop_secs" -v p="$period" 'BEGIN { exit !(s < p) }' ||
	bad "stop seconds (not below the period)" "$stop_secs"
case " $conds " in *" slow "*)
	[ "$slow_id" -lt "$workers" ] || bad "worker id (not below -w)" "$slow_id" ;;
esac
[ -r "$train" ] || { echo "$prog: cannot open '$train'" >&2; exit 66; }
case $train in /*) ;; *) train=$(pwd)/$train ;; esac

# Find the programs.
bench_status=69
# need NAME: the path of pskit program NAME, or exit 69.
need() {
	bench_find_prog "$1" || bench_die "$1 not found: run from the build" \
	    "directory or set PSKIT_BUILDDIR"
}
prog_ps_shard_data=$(need ps-shard-data) || exit
prog_ps_server=$(need ps-server) || exit
prog_ps_worker=$(need ps-worker) || exit
prog_ps_ring=$(need ps-ring) || exit
if [ -z "$fstar" ]; then
	command -v liblinear-train >/dev/null || bench_die "liblinear-train" \
	    "not found (Debian package liblinear-tools); or give -F fstar"
	objective=$(bench_find_prog ps-objective) ||
		objective=$(bench_find_prog ps-objective tests/bench) ||
		bench_die "ps-objective not found: build it with make, or set" \
		    "PSKIT_BUILDDIR; or give -F fstar"
fi
bench_status=1

# finished PID: true when PID has exited (a zombie not yet reaped, so that
# its PID cannot be reused while the slow loop may still signal it).
if [ -r /proc/$$/stat ]; then
	finished() {
		_st=Z
		{ read -r _a _b _st _c <"/proc/$1/stat"; } 2>/dev/null
		[ "$_st" = Z ]
	}
else
	finished() { ! kill -0 "$1" 2>/dev/null; }
fi

# Every process this script starts is in $pids (servers, workers) or is
# $helper (the SIGSTOP/SIGCONT loop); cleanup ends them by PID, waking the
# slowed worker first so that TERM reaches a running process.
pids='' helper='' victim=''
work=$(mktemp -d "${TMPDIR:-/tmp}/tau-sweep.XXXXXX") || exit 73
stop_all() {
	if [ -n "$helper" ]; then
		kill -TERM "$helper" 2>/dev/null
		wait "$helper" 2>/dev/null
		helper=
	fi
	[ -n "$victim" ] && kill -CONT "$victim" 2>/dev/null
	victim=
	for _p in $pids; do kill -TERM "$_p" 2>/dev/null; done
	_i=0
	while [ $_i -lt 40 ]; do
		_alive=0
		for _p in $pids; do finished "$_p" || _alive=1; done
		[ $_alive -eq 0 ] && break
		sleep 0.05
		_i=$((_i + 1))
	done
	for _p in $pids; do
		finished "$_p" || kill -KILL "$_p" 2>/dev/null
		wait "$_p" 2>/dev/null
	done
	pids=
}
cleanup() {
	trap - EXIT INT TERM HUP
	stop_all
	if [ $keep -eq 1 ]; then
		echo "$prog: work files kept in $work" >&2
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

# slow_loop PID FIRST STOP PERIOD LOG: SIGSTOP PID FIRST seconds from now
# and then every PERIOD seconds, SIGCONT it STOP seconds after each, and
# append a line to LOG at each SIGSTOP.  Run it in the background; on TERM
# it kills and reaps its own sleep, wakes PID and exits.
slow_loop() {
	trap - EXIT
	trap '' INT HUP		# the main shell's cleanup stops it with TERM
	_v=$1 _sl=''
	trap '[ -n "$_sl" ] && kill "$_sl" 2>/dev/null && wait "$_sl"
		kill -CONT "$_v" 2>/dev/null; exit 0' TERM
	_nap=$2 _rest=$(awk -v s="$3" -v p="$4" 'BEGIN { print p - s }')
	while :; do
		sleep "$_nap" & _sl=$!
		wait $_sl
		kill -STOP "$_v" 2>/dev/null || exit 0
		echo stop >>"$5"
		sleep "$3" & _sl=$!
		wait $_sl
		kill -CONT "$_v" 2>/dev/null || exit 0
		_nap=$_rest
	done
}

# Shard once; the shards do not depend on tau.
set -- ${positive:+--positive "$positive"}
if [ -z "$fstar" ]; then
	C=$(awk -v l="$lambda" 'BEGIN { printf "%.17g\n", 1 / l }')
	t0=$(bench_now)
	liblinear-train -s 6 -c "$C" -e 0.0001 "$train" "$work/ll.model" \
	    >"$work/ll.out" 2>&1 || { cat "$work/ll.out" >&2
		bench_die "liblinear-train failed"; }
	t1=$(bench_now)
	ll_obj=$("$objective" -l "$lambda" "$work/ll.model" "$train" |
	    awk -F'\t' 'NR == 2 { print $1 }')
	[ -n "$ll_obj" ] || bench_die "ps-objective failed on '$work/ll.model'"
	echo "$prog: liblinear-train -s 6 -c $C -e 0.0001: objective $ll_obj," \
	    "$(bench_elapsed "$t0" "$t1") s" >&2
	ref_src=liblinear ref_obj=$ll_obj
	# LIBLINEAR's positive class is the first label it met.
	if [ -z "$positive" ]; then
		positive=$(awk '$1 == "label" {
			if (!(($2 == 1 || $2 == -1 || $2 == 0) &&
			    ($3 == 1 || $3 == -1 || $3 == 0))) print $2
			exit }' "$work/ll.model")
		set -- ${positive:+--positive "$positive"}
	fi
else
	ref_src=given ref_obj=$fstar
fi
"$prog_ps_shard_data" -q -n "$workers" -o "$work/train" "$@" "$train" ||
	bench_die "cannot shard '$train'"
if [ -z "$blocks" ]; then
	blocks=$("$prog_ps_shard_data" --stats "$@" "$train" | awk -F'\t' '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		NR == 2 { rows = $col["rows"]; nnz = $col["nnz"]; f = $col["features"] }
		END { b = rows ? int(nnz / rows + 0.5) : 1
		      if (b > 256) b = 256; if (b > f) b = f; if (b < 1) b = 1
		      print b }')
fi
polls_max=$((max_secs * 20))

# run_job ROUND TAU COND: one job; worker 0's progress goes to
# $work/R.TAU.COND.tsv; appends "round tau cond status wall" to runs.tsv.
run_job() {
	_id=$1.$2.$3
	_j=$work/$_id
	mkdir -p "$_j" || exit 73
	_k=0 _addrs='' _spids=''
	while [ $_k -lt "$servers" ]; do
		"$prog_ps_server" -r "$_j/ring" >"$_j/server-$_k.out" \
		    2>"$_j/server-$_k.err" &
		pids="$pids $!"
		_spids="$_spids $!"
		_k=$((_k + 1))
	done
	_k=0
	while [ $_k -lt "$servers" ]; do
		_i=0
		until _a=$(sed -n 's/^listening //p' "$_j/server-$_k.out") &&
		    [ -n "$_a" ]; do
			[ $_i -ge 200 ] && { cat "$_j/server-$_k.err" >&2
				bench_die "server $_k did not start"; }
			sleep 0.05
			_i=$((_i + 1))
		done
		_addrs="$_addrs $_a"
		_k=$((_k + 1))
	done
	# shellcheck disable=SC2086 # one argument per address
	"$prog_ps_ring" init -o "$_j/ring" $_addrs || bench_die "cannot write the ring"
	_t0=$(bench_now)
	_k=0 _wpids=
	while [ $_k -lt "$workers" ]; do
		"$prog_ps_worker" -r "$_j/ring" -i $_k -n "$workers" -l "$lambda" \
		    -t "$2" -b "$blocks" -e "$eps" -m "$maxiter" \
		    "$work/train-$_k.pss" >"$_j/worker-$_k.tsv" \
		    2>"$_j/worker-$_k.err" &
		pids="$pids $!"
		_wpids="$_wpids $!"
		[ "$3" = slow ] && [ $_k -eq "$slow_id" ] && victim=$!
		_k=$((_k + 1))
	done
	if [ "$3" = slow ]; then
		slow_loop "$victim" "$first" "$stop_secs" "$period" "$_j/stops" \
		    2>/dev/null &
		helper=$!
	fi
	_n=0 _status=ok
	for _p in $_wpids; do
		while ! finished "$_p"; do
			[ $_n -ge $polls_max ] && { _status=timeout; break 2; }
			sleep 0.05
			_n=$((_n + 1))
		done
	done
	_t1=$(bench_now)
	if [ -n "$helper" ]; then
		kill -TERM "$helper" 2>/dev/null
		wait "$helper" 2>/dev/null
		helper=
	fi
	[ -n "$victim" ] && kill -CONT "$victim" 2>/dev/null
	victim=
	if [ $_status = ok ]; then
		for _p in $_wpids; do
			wait "$_p" || _status=failed
		done
		pids=$_spids	# the workers are reaped: never signal them again
	fi
	stop_all
	cp "$_j/worker-0.tsv" "$work/$_id.tsv"
	if [ $_status != ok ]; then
		for _f in "$_j"/worker-*.err "$_j"/server-*.err; do
			[ -s "$_f" ] && tail -n 5 "$_f" | sed "s|^|$prog: $_id ${_f##*/}: |" >&2
		done
	fi
	_stops=0
	[ -f "$_j/stops" ] && _stops=$(wc -l <"$_j/stops" | tr -d ' ')
	[ $keep -eq 1 ] || rm -rf "$_j"
	_wall=$(bench_elapsed "$_t0" "$_t1")
	printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$_status" "$_wall" \
	    >>"$work/runs.tsv"
	tail -n 1 "$work/$_id.tsv" | awk -F'\t' -v r="$1" -v t="$2" -v c="$3" \
	    -v s="$_status" -v w="$_wall" -v f="$ref_obj" -v src="$ref_src" \
	    -v n="$_stops" '{
		printf "round %s tau %s %s\t%s\twall %s\tstops %s\titers %s\tworker_secs %s\tfinal %s\tgap_vs_%s %.3g\n",
		    r, t, c, s, w, n, $1, $2, $3, src, ($3 - f) / f }' >&2
}

# reach TSV TARGET: "secs secs_pass iter_to iter_to_pass iters final": the
# secs of the first progress line with objective <= TARGET and of the first
# exact one (a pass start, iter % B == 0, or the final line), "never" when
# none, and their iters; then the last line's iter and objective.
reach() {
	awk -F'\t' -v t="$2" -v b="$blocks" '
	    NR == 1 { next }
	    { it = $1; obj = $3; secs = $2; ok = obj ~ /^[0-9]/ && obj + 0 <= t }
	    ok && r == "" { r = secs; ri = it }
	    ok && rp == "" && it % b == 0 { rp = secs; rpi = it }
	    END {
		if (rp == "" && ok) { rp = secs; rpi = it }
		if (it == "") { print "never never never never - -"; exit }
		printf "%s %s %s %s %s %s\n", r == "" ? "never" : r,
		    rp == "" ? "never" : rp, r == "" ? "never" : ri,
		    rp == "" ? "never" : rpi, it, obj
	    }' "$1"
}

# median_inf: the median of stdin's words, "never" counting as +infinity
# and "never" when the median falls on it; "-" for none.
median_inf() {
	awk '{ for (i = 1; i <= NF; i++) print ($i == "never" ? "inf" : $i) }' |
	    sort -g | awk '{ v[NR] = $1 }
	END {
		if (NR == 0) { print "-"; exit }
		a = v[int((NR + 1) / 2)]; b = v[int(NR / 2) + 1]
		if (a == "inf" || b == "inf") { print "never"; exit }
		printf "%.6g\n", (a + b) / 2
	}'
}

# m TAU COND N: the median (median_inf) of column N of all.tsv over the
# runs of (TAU, COND); N = 5 (wall) only over the runs that ended well.
m() {
	awk -F'\t' -v t="$1" -v c="$2" -v n="$3" \
	    '$2 == t && $3 == c && (n != 5 || $4 == "ok") { print $n }' \
	    "$work/all.tsv" | median_inf
}

# ratio A B: A / B to 3 digits, or "-".
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a == "never" && b != "never" && b != "-") print "inf"
		else if (a !~ /^[0-9.e+-]+$/ || b !~ /^[0-9.e+-]+$/ || b + 0 == 0) print "-"
		else printf "%.3g\n", a / b }'
}

echo "$prog: '$train': $servers servers, $workers workers, $blocks blocks," \
    "taus '$taus', conditions '$conds', $repeats rounds" >&2
: >"$work/runs.tsv"
r=1
while [ $r -le "$repeats" ]; do
	for t in $taus; do
		for c in $conds; do
			run_job $r "$t" "$c"
		done
	done
	r=$((r + 1))
done

# F*: the reference, or the best final objective of a run when lower.
best=$(while IFS="$(printf '\t')" read -r r t c s w; do
	[ "$s" = ok ] && tail -n 1 "$work/$r.$t.$c.tsv" | cut -f 3
done <"$work/runs.tsv" | grep '^[0-9]' | sort -g | head -n 1)
fstar=$(awk -v a="$ref_obj" -v b="${best:-}" 'BEGIN {
	printf "%.17g\n", (b != "" && b + 0 < a + 0) ? b : a }')
target=$(awk -v f="$fstar" 'BEGIN { printf "%.17g\n", f * (1 + 1e-3) }')

# One line per run: round tau cond status wall secs_to secs_to_pass
# iter_to iter_to_pass iters final.
while IFS="$(printf '\t')" read -r r t c s w; do
	if [ "$s" = ok ]; then
		# shellcheck disable=SC2046 # six words
		set -- $(reach "$work/$r.$t.$c.tsv" "$target")
	else
		set -- never never never never - -
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$r" "$t" "$c" "$s" "$w" "$@"
done <"$work/runs.tsv" >"$work/all.tsv"
echo "$prog: per run against F* = $fstar (round tau cond status wall" \
    "secs_to_1e-3 secs_to_1e-3_pass iters_to_1e-3 iters_to_1e-3_pass iters" \
    "final):" >&2
sed "s/^/$prog: /" "$work/all.tsv" >&2

printf 'data\t%s\nlambda\t%s\nservers\t%s\nworkers\t%s\nblocks\t%s\n' \
    "$train" "$lambda" "$servers" "$workers" "$blocks"
printf 'epsilon\t%s\nrepeats\t%s\ntaus\t%s\nconditions\t%s\n' \
    "$eps" "$repeats" "$taus" "$conds"
case " $conds " in *" slow "*)
	printf 'slow\tworker %s stopped %s s at %s s and every %s s after\n' \
	    "$slow_id" "$stop_secs" "$first" "$period" ;;
esac
printf '%s_objective\t%s\nbest_ps_final\t%s\nfstar\t%s\n' \
    "$ref_src" "$ref_obj" "${best:--}" "$fstar"
printf 'fstar_rule\tmin(%s objective, best final ps-worker objective of all runs)\n' \
    "$ref_src"
printf 'target\t%s\n' "$target"
printf 'ratio_base\ttau %s, same condition\n\n' "${taus%% *}"

printf 'tau\tcond\truns_ok\treached\tsecs_to_1e-3\tratio\tsecs_to_1e-3_pass\tratio_pass\titers_to_1e-3\titers_to_1e-3_pass\twall_secs\tratio_wall\titers\tfinal_objective\tfinal_gap\tslow_vs_none\n'
base_t=${taus%% *}
for t in $taus; do
	for c in $conds; do
		ok=$(awk -F'\t' -v t="$t" -v c="$c" '$2 == t && $3 == c && $4 == "ok"' \
		    "$work/all.tsv" | wc -l | tr -d ' ')
		hit=$(awk -F'\t' -v t="$t" -v c="$c" '$2 == t && $3 == c && $6 != "never"' \
		    "$work/all.tsv" | wc -l | tr -d ' ')
		s=$(m "$t" "$c" 6) sp=$(m "$t" "$c" 7) w=$(m "$t" "$c" 5)
		it=$(awk -F'\t' -v t="$t" -v c="$c" '$2 == t && $3 == c && $4 == "ok" { print $10 }' \
		    "$work/all.tsv" | bench_median)
		f=$(awk -F'\t' -v t="$t" -v c="$c" '$2 == t && $3 == c && $4 == "ok" { print $11 }' \
		    "$work/all.tsv" | bench_median)
		gap=$(awk -v f="$f" -v s="$fstar" 'BEGIN {
			if (f == "-") print "-"; else printf "%.3g\n", (f - s) / s }')
		vs=-
		[ "$c" = slow ] && vs=$(ratio "$s" "$(m "$t" none 6)")
		printf '%s\t%s\t%s/%s\t%s/%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
		    "$t" "$c" "$ok" "$repeats" "$hit" "$repeats" \
		    "$s" "$(ratio "$s" "$(m "$base_t" "$c" 6)")" \
		    "$sp" "$(ratio "$sp" "$(m "$base_t" "$c" 7)")" "$(m "$t" "$c" 8)" \
		    "$(m "$t" "$c" 9)" \
		    "$w" "$(ratio "$w" "$(m "$base_t" "$c" 5)")" \
		    "$it" "$f" "$gap" "$vs"
	done
done
