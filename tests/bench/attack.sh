#!/bin/sh
# tests/bench/attack.sh: a ps-server's peak memory under two attacks from
# a local peer (bench-attack), with its memory limits, and with another
# ps-server binary for comparison (an older build, say):
#
#  halfframes  CONNS connections each send BYTES of a 64 MiB frame and stop
#              (default 1000 and 32 MiB, half of it; the server's -c is
#              raised to match)
#  freshkeys   an sgd worker pushes TOTAL fresh keys, PER_PUSH at a time
#              (default 100000000 and 1000000), against --max-keys KEYS
#              (default 10000000)
#
# For each it prints the server's peak RSS (VmHWM, polled), its RSS once
# the attack ended, and what bench-attack saw.
#
#   tests/bench/attack.sh [-b other-ps-server] [-c conns] [-m bytes]
#       [-k keys] [-t total] [-p per-push] [halfframes|freshkeys ...]
#
# The other binary gets no limit options (an older one has none), so run
# it only with sizes this machine's memory can take: 24 connections and
# 20 million keys take about 1.5 and 2.8 GB there.
set -u
prog=attack.sh
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

other= conns=1000 bytes=$((32 << 20)) maxkeys=10000000 total=100000000
per=1000000
while getopts b:c:k:m:p:t: opt; do
	case $opt in
	b) other=$OPTARG ;;
	c) conns=$OPTARG ;;
	m) bytes=$OPTARG ;;
	k) maxkeys=$OPTARG ;;
	p) per=$OPTARG ;;
	t) total=$OPTARG ;;
	*) echo "usage: $prog [-b ps-server] [-c conns] [-m bytes] [-k keys] [-t total] [-p per-push] [attack ...]" >&2; exit 64 ;;
	esac
done
shift $((OPTIND - 1))
attacks=${*:-halfframes freshkeys}
server=$(bench_find_prog ps-server) || bench_die "no ps-server (set PSKIT_BUILDDIR)"
attack=$(bench_find_prog bench-attack tests/bench) || bench_die "no bench-attack"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/attack.XXXXXX") || exit 1
spid=
trap '[ -n "$spid" ] && kill -KILL "$spid" 2>/dev/null; rm -rf "$tmp"' EXIT

# run_one LABEL ATTACK SERVER [OPTION...]: start the server, attack it,
# print one line of figures.
run_one() {
	label=$1 what=$2 bin=$3; shift 3
	"$bin" -c $((conns + 16)) "$@" >"$tmp/out" 2>"$tmp/err" &
	spid=$!
	i=0
	until addr=$(sed -n 's/^listening //p' "$tmp/out" 2>/dev/null) && [ -n "$addr" ]; do
		[ $i -ge 100 ] && bench_die "$label: the server did not start"
		sleep 0.05; i=$((i + 1))
	done
	start=$(bench_now)
	if [ "$what" = halfframes ]; then
		"$attack" halfframes "$addr" "$conns" "$bytes" >"$tmp/res" &
	else
		"$attack" freshkeys "$addr" "$total" "$per" >"$tmp/res" &
	fi
	apid=$! peak=0
	while kill -0 "$apid" 2>/dev/null; do
		h=$(bench_hwm "$spid"); [ -n "$h" ] && peak=$h
		sleep 0.1
	done
	wait "$apid"
	end=$(bench_now)
	sleep 1
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$spid/status" 2>/dev/null)
	h=$(bench_hwm "$spid"); [ -n "$h" ] && peak=$h
	alive=yes; kill -0 "$spid" 2>/dev/null || alive=no
	printf '%s\t%s\tpeak_rss_mb\t%d\trss_after_mb\t%d\tseconds\t%s\talive\t%s\t%s\n' \
	    "$label" "$what" $((peak / 1024)) $((${rss:-0} / 1024)) \
	    "$(bench_elapsed "$start" "$end")" "$alive" "$(cat "$tmp/res")"
	kill -TERM "$spid" 2>/dev/null; wait "$spid" 2>/dev/null; spid=
}

for a in $attacks; do
	case $a in
	halfframes) run_one this halfframes "$server" ;;
	freshkeys) run_one this freshkeys "$server" --max-keys "$maxkeys" ;;
	*) bench_die "unknown attack '$a'" ;;
	esac
	[ -z "$other" ] || run_one other "$a" "$other"
done
