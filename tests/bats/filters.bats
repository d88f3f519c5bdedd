#!/usr/bin/env bats
# filters.bats: the traffic filters of ps-worker -F, one by one and stacked:
# each cuts what it should (its counters drop) and the answer stays within
# 1e-3 of LIBLINEAR's, or bit for bit the same for the lossless ones; a
# server that lost a cached key list gets the keys again.

load helper

setup_file() {
	export BATS_FILE_TMPDIR
	ps_data w8a >/dev/null
	# 4 blocks give key lists of about 37 keys per server (keycache >= 16).
	liblinear-train -s 6 -c 1 -e 0.0001 "$BATS_FILE_TMPDIR/w8a" \
	    "$BATS_FILE_TMPDIR/w8a.llmodel" >/dev/null
	ll_objective "$BATS_FILE_TMPDIR/w8a.llmodel" "$BATS_FILE_TMPDIR/w8a" 1 \
	    >"$BATS_FILE_TMPDIR/w8a.llobj"
}

teardown() {
	ps_reap
}

# train NAME FILTERS [ps-train options]: a w8a job; progress in $BATS_TEST_TMPDIR/NAME.
train() {
	local name=$1 filters=$2
	shift 2
	ps-train -q -s 2 -w 2 -b 4 -F "$filters" "$@" -o "$BATS_TEST_TMPDIR/$name" \
	    "$BATS_FILE_TMPDIR/w8a"
}

# shared NAME FILTERS: train NAME, once for the file: the jobs without
# filters and with kkt alone, which several tests compare against.
shared() {
	[ -d "$BATS_FILE_TMPDIR/$1" ] ||
	    BATS_TEST_TMPDIR=$BATS_FILE_TMPDIR train "$1" "$2"
	ln -s "$BATS_FILE_TMPDIR/$1" "$BATS_TEST_TMPDIR/$1"
}

# within NAME: the job's final objective is within 1e-3 of LIBLINEAR's.
within() {
	local gap
	gap=$(rel_gap "$(final_objective "$BATS_TEST_TMPDIR/$1/progress.tsv")" \
	    "$(cat "$BATS_FILE_TMPDIR/w8a.llobj")")
	echo "$1: gap $gap"
	awk -v g="$gap" 'BEGIN { exit !(g < 1e-3) }'
}

# server_stats ADDR: the STAT lines of the server at host:port.
server_stats() {
	printf 'stats\r\nquit\r\n' | timeout 5 nc -N "${1%:*}" "${1##*:}" | tr -d '\r'
}

# col NAME COLUMN: a counter of the job's last progress line.
col() {
	tsv_last "$BATS_TEST_TMPDIR/$1/progress.tsv" "$2"
}

# bats test_tags=quality
@test "kkt: fewer features pushed, same answer within 1e-3" {
	shared none none
	shared kkt kkt
	within none
	within kkt
	[ "$(col none kkt_out)" -eq "$(col none kkt_in)" ]
	[ "$(col kkt kkt_out)" -lt "$(col kkt kkt_in)" ]
	[ "$(col kkt bytes_sent)" -lt "$(col none bytes_sent)" ]
	[ "$(col kkt bytes_recv)" -lt "$(col none bytes_recv)" ]
}

@test "keycache and lz4 are lossless: the same model bit for bit, fewer key bytes" {
	shared kkt kkt
	train cached kkt,keycache,lz4
	[ "$(final_objective "$BATS_TEST_TMPDIR/kkt/progress.tsv")" = \
	    "$(final_objective "$BATS_TEST_TMPDIR/cached/progress.tsv")" ]
	diff <(ps-ckpt dump "$BATS_TEST_TMPDIR"/kkt/part-*.psm) \
	    <(ps-ckpt dump "$BATS_TEST_TMPDIR"/cached/part-*.psm)
	[ "$(col cached keycache_out)" -lt $(( $(col cached keycache_in) / 2 )) ]
	[ "$(col cached lz4_out)" -le "$(col cached lz4_in)" ]
	[ "$(col cached bytes_sent)" -lt "$(col kkt bytes_sent)" ]
}

@test "sigmod with threshold 0 sends only changed weights and changes nothing" {
	shared kkt kkt
	train sig kkt,sigmod=0
	[ "$(final_objective "$BATS_TEST_TMPDIR/kkt/progress.tsv")" = \
	    "$(final_objective "$BATS_TEST_TMPDIR/sig/progress.tsv")" ]
	[ "$(col sig sigmod_out)" -lt "$(col sig sigmod_in)" ]
}

@test "sigmod, skip and fp16 each cut their part and stay within 1e-3" {
	train sig kkt,sigmod=0.01
	train skip kkt,skip
	train half kkt,fp16
	within sig
	within skip
	within half
	[ "$(col sig sigmod_out)" -lt "$(col sig sigmod_in)" ]
	[ "$(col skip skip_out)" -lt "$(col skip kkt_out)" ]
	[ "$(col half fp16_out)" -lt $(( $(col half fp16_in) * 6 / 10 )) ]
}

# bats test_tags=quality
@test "stacked filters: within 1e-3 at tau 0 and tau 2, far fewer bytes" {
	shared none none
	train lossless kkt,keycache,fp16,lz4
	train all all
	train all2 all -t 2
	within lossless
	within all
	within all2
	# A third fewer bytes sent: keys cached, values in half floats (the
	# KKT filter's share shrank when -e stopped ending runs past 1e-3).
	[ "$(col lossless bytes_sent)" -lt $(( $(col none bytes_sent) * 2 / 3 )) ]
	[ "$(col lossless bytes_recv)" -lt "$(col none bytes_recv)" ]
	[ "$(col all bytes_sent)" -lt "$(col none bytes_sent)" ]
}

@test "bad filter parameters are refused with 64" {
	for f in sigmod=-1 skip=1 skip=x kkt=1 all=2; do
		run ps-worker -F "$f" -r /dev/null x.pss
		assert_failure 64
		assert_output --partial "bad filter list '$f'"
	done
}

@test "a server that keeps no key lists asks for the keys again; same answer" {
	start_servers 2 -v -K 0
	ps-shard-data -q -n 1 -o "$BATS_TEST_TMPDIR/train" "$BATS_FILE_TMPDIR/w8a"
	run timeout 60 ps-worker -r "$BATS_TEST_TMPDIR/ring" -b 4 -F kkt,keycache \
	    "$BATS_TEST_TMPDIR/train-0.pss"
	assert_success
	echo "$output" | grep -v '^[a-z]' | tail -n 1 | cut -f 3 > "$BATS_TEST_TMPDIR/missed"
	set -- $SERVER_ADDRS
	stats=$(server_stats "$1")
	echo "$stats" | grep -q '^STAT keycache_misses [1-9]'
	grep -q 'push for round [0-9]* named an unknown key list; asked for its keys' \
	    "$BATS_TEST_TMPDIR/server-0.out.err"
	kill -TERM $SERVER_PIDS
	for pid in $SERVER_PIDS; do
		ps_wait_pid "$pid" 10
	done
	# start_servers reads the new servers' addresses from these files.
	rm -f "$BATS_TEST_TMPDIR"/server-*.out "$BATS_TEST_TMPDIR"/ring
	# The same job against servers that keep the lists gives the same answer.
	start_servers 2
	run timeout 60 ps-worker -r "$BATS_TEST_TMPDIR/ring" -b 4 -F kkt,keycache \
	    "$BATS_TEST_TMPDIR/train-0.pss"
	assert_success
	[ "$(echo "$output" | grep -v '^[a-z]' | tail -n 1 | cut -f 3)" = "$(cat "$BATS_TEST_TMPDIR/missed")" ]
}

@test "server stats report the filters' counters" {
	start_servers 1
	ps-shard-data -q -n 1 -o "$BATS_TEST_TMPDIR/train" "$BATS_FILE_TMPDIR/w8a"
	run timeout 60 ps-worker -r "$BATS_TEST_TMPDIR/ring" -b 4 -F all -m 40 \
	    "$BATS_TEST_TMPDIR/train-0.pss"
	assert_success
	stats=$(server_stats $SERVER_ADDRS)
	echo "$stats"
	for s in sigmod_entries_in sigmod_entries_out kkt_inactive_sent keycache_hits \
	    keycache_bytes_in_read keycache_bytes_out_read fp16_bytes_in_read \
	    fp16_bytes_out_read lz4_bytes_in_written lz4_bytes_out_written; do
		echo "$stats" | grep -q "^STAT $s [0-9]"
	done
	echo "$stats" | grep -q '^STAT keycache_hits [1-9]'
	in=$(echo "$stats" | awk '$2 == "fp16_bytes_in_read" { print $3 }')
	out=$(echo "$stats" | awk '$2 == "fp16_bytes_out_read" { print $3 }')
	[ "$out" -lt "$in" ]
}

@test "ps-worker rejects an unknown filter with 64" {
	run ps-worker -F kkt,bogus -r /dev/null x.pss
	assert_failure 64
	assert_output --partial "bad filter list 'kkt,bogus'"
}
