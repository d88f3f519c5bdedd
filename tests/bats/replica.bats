#!/usr/bin/env bats
# replica.bats: with a ring of k replicas every round's result is held by
# the k servers after each key's segment before a worker sees it: the
# copies match the primaries' weights, the answer does not change, a
# stopped replica holds the job back, a lost one ends it naming itself, and
# a replica refuses keys it does not follow.

load helper

FRAMETOOL="$PSKIT_BUILDDIR/tests/tools/ps-frametool"

setup_file() {
	export BATS_FILE_TMPDIR
	ps_data a9a >/dev/null
	head -n 6000 "$BATS_FILE_TMPDIR/a9a" >"$BATS_FILE_TMPDIR/small"
	ps-shard-data -q -n 2 -o "$BATS_FILE_TMPDIR/train" \
	    "$BATS_FILE_TMPDIR/small"
}

teardown() {
	ps_reap
}

# job NAME [ps-worker options]: two workers on the ring, 150 iterations
# (the tests compare answers, not convergence); waits for both.
job() {
	local name=$1 w0 w1
	shift
	ps_start_daemon "$BATS_TEST_TMPDIR/$name-0.tsv" ps-worker \
	    -r "$BATS_TEST_TMPDIR/ring" -i 0 -n 2 -b 8 -m 150 "$@" \
	    "$BATS_FILE_TMPDIR/train-0.pss"
	w0=$PS_LAST_PID
	ps_start_daemon "$BATS_TEST_TMPDIR/$name-1.tsv" ps-worker \
	    -r "$BATS_TEST_TMPDIR/ring" -i 1 -n 2 -b 8 -m 150 "$@" \
	    "$BATS_FILE_TMPDIR/train-1.pss"
	w1=$PS_LAST_PID
	ps_wait_pid "$w0" 60
	JOB_STATUS=$PS_WAIT_STATUS
	ps_wait_pid "$w1" 60
	[ "$JOB_STATUS" -eq 0 ] && [ "$PS_WAIT_STATUS" -eq 0 ]
}

# stat_sum NAME: the sum of one STAT over every server.
stat_sum() {
	local a
	for a in $SERVER_ADDRS; do
		printf 'stats\r\nquit\r\n' | timeout 5 nc -N "${a%:*}" "${a##*:}"
	done | tr -d '\r' | awk -v n="$1" '$2 == n { s += $3 } END { printf "%.17g\n", s }'
}

# replicas_hold K: every key is held k more times, with the same weights.
replicas_hold() {
	local k=$1 keys rkeys l1 rl1
	keys=$(stat_sum keys)
	rkeys=$(stat_sum replica_keys)
	l1=$(stat_sum l1_norm)
	rl1=$(stat_sum replica_l1_norm)
	echo "keys $keys replica_keys $rkeys l1 $l1 replica_l1 $rl1"
	[ "$keys" -gt 0 ]
	[ "$rkeys" -eq $((k * keys)) ]
	awk -v a="$rl1" -v b="$l1" -v k="$k" \
	    'BEGIN { d = a - k * b; if (d < 0) d = -d; exit !(b > 0 && d <= 1e-9 * b) }'
	[ "$(stat_sum rounds_awaiting_replicas)" -eq 0 ]
}

@test "k=1: every key's result is on the next server, and the answer is unchanged" {
	start_servers 3 -r "$BATS_TEST_TMPDIR/ring"
	job plain
	plain=$(final_objective "$BATS_TEST_TMPDIR/plain-0.tsv")
	[ "$(stat_sum replicate_msgs_out)" -eq 0 ]
	ps_reap
	RING_OPTS="-k 1" start_servers 3 -r "$BATS_TEST_TMPDIR/ring"
	grep -qx 'replicas 1' "$BATS_TEST_TMPDIR/ring"
	job k1
	k1=$(final_objective "$BATS_TEST_TMPDIR/k1-0.tsv")
	echo "objective k=0 $plain, k=1 $k1"
	awk -v a="$plain" -v b="$k1" \
	    'BEGIN { d = (a - b) / b; if (d < 0) d = -d; exit !(d < 1e-9) }'
	replicas_hold 1
	[ "$(stat_sum replicate_msgs_in)" -eq "$(stat_sum replicate_msgs_out)" ]
	[ "$(stat_sum replicate_msgs_out)" -gt 0 ]
}

@test "k=2 on 3 servers: every key is on all three" {
	RING_OPTS="-k 2" start_servers 3 -r "$BATS_TEST_TMPDIR/ring"
	job k2
	replicas_hold 2
}

@test "a stopped replica holds rounds back until it resumes" {
	RING_OPTS="-k 1" start_servers 2 -r "$BATS_TEST_TMPDIR/ring"
	set -- $SERVER_PIDS
	ps_start_daemon "$BATS_TEST_TMPDIR/w.tsv" ps-worker \
	    -r "$BATS_TEST_TMPDIR/ring" -b 8 "$BATS_FILE_TMPDIR/train-0.pss"
	w=$PS_LAST_PID
	ps_wait_line "$BATS_TEST_TMPDIR/w.tsv" '^1	' 20
	kill -STOP "$2"
	sleep 0.3
	before=$(wc -l <"$BATS_TEST_TMPDIR/w.tsv")
	sleep 1
	after=$(wc -l <"$BATS_TEST_TMPDIR/w.tsv")
	kill -CONT "$2"
	echo "progress lines while stopped: $before -> $after"
	[ "$before" -eq "$after" ]
	ps_wait_pid "$w" 60
	[ "$PS_WAIT_STATUS" -eq 0 ]
}

@test "a replica killed mid-run ends the job with a message naming it" {
	RING_OPTS="-k 1" start_servers 2 -r "$BATS_TEST_TMPDIR/ring"
	set -- $SERVER_PIDS
	set -- $2 $SERVER_ADDRS
	ps_start_daemon "$BATS_TEST_TMPDIR/w.tsv" ps-worker \
	    -r "$BATS_TEST_TMPDIR/ring" -b 8 -e 0 -m 100000 \
	    "$BATS_FILE_TMPDIR/train-0.pss"
	w=$PS_LAST_PID
	ps_wait_line "$BATS_TEST_TMPDIR/w.tsv" '^20	' 20
	kill -KILL "$1"
	ps_wait_pid "$w" 20
	echo "worker exit $PS_WAIT_STATUS"
	[ "$PS_WAIT_STATUS" -eq 69 ]
	grep -E "replica $3 went away" "$BATS_TEST_TMPDIR/server-0.out.err"
	# The worker names the lost server, directly or as server 0's replica.
	cat "$BATS_TEST_TMPDIR/w.tsv.err"
	grep -E "replica $3|$3" "$BATS_TEST_TMPDIR/w.tsv.err"
}

@test "a replica refuses keys whose segment it does not follow" {
	RING_OPTS="-k 1" start_servers 2 -r "$BATS_TEST_TMPDIR/ring"
	set -- $SERVER_ADDRS
	# Server 1 follows every segment of server 0 (k = 1 of 2 servers) but
	# not its own: find a key of each.
	mine=$(seq 1 200 | ps-ring lookup "$BATS_TEST_TMPDIR/ring" |
	    awk -F'\t' -v a="$2" '$3 == a { print $1; exit }')
	theirs=$(seq 1 200 | ps-ring lookup "$BATS_TEST_TMPDIR/ring" |
	    awk -F'\t' -v a="$1" '$3 == a { print $1; exit }')
	run "$FRAMETOOL" "$2" script <<-EOF
	REPLICATE rv=1 ts=4 keys=$theirs vals=0.5,1,1,0.5,2
	EOF
	assert_output --partial 'REPLICATE_OK'
	run "$FRAMETOOL" "$2" script <<-EOF
	REPLICATE rv=1 ts=5 keys=$mine vals=0.5,1,1,0.5,2
	EOF
	assert_output --partial "this server is no replica of key $mine"
	run "$FRAMETOOL" "$2" script <<-EOF
	REPLICATE rv=7 ts=5 keys=$theirs vals=0.5,1,1,0.5,2
	EOF
	assert_output --partial 'ring version'
	run "$FRAMETOOL" "$2" script <<-EOF
	REPLICATE rv=1 ts=6 keys=$theirs vals=0.5,-1,1,0.5,2
	EOF
	assert_output --partial 'bad value -1'
	# A momentum streak is a whole number from 0 to 63 (6 bits of a key's
	# flags byte).
	run "$FRAMETOOL" "$2" script <<-EOF
	REPLICATE rv=1 ts=7 keys=$theirs vals=0.5,1,1,0.5,2.5
	EOF
	assert_output --partial 'bad value 2.5'
	run "$FRAMETOOL" "$2" script <<-EOF
	REPLICATE rv=1 ts=7 keys=$theirs vals=0.5,1,1,0.5,64
	EOF
	assert_output --partial 'bad value 64'
	# A KKT verdict (the gradient sum above the threshold) is 0 or 1.
	run "$FRAMETOOL" "$2" script <<-EOF
	REPLICATE rv=1 ts=8 keys=$theirs vals=0.5,1,0.25,0.5,2
	EOF
	assert_output --partial 'bad value 0.25'
}

@test "ps-train -R 1 trains to the same objective; sgd too; bad -R is refused" {
	run ps-train -q -m 150 -s 3 -R 1 -o "$BATS_TEST_TMPDIR/m1" "$BATS_FILE_TMPDIR/small"
	assert_success
	run ps-train -q -m 150 -s 3 -R 0 -o "$BATS_TEST_TMPDIR/m0" "$BATS_FILE_TMPDIR/small"
	assert_success
	a=$(final_objective "$BATS_TEST_TMPDIR/m0/progress.tsv")
	b=$(final_objective "$BATS_TEST_TMPDIR/m1/progress.tsv")
	echo "objective -R 0 $a, -R 1 $b"
	awk -v a="$a" -v b="$b" \
	    'BEGIN { d = (a - b) / b; if (d < 0) d = -d; exit !(d < 1e-9) }'
	run ps-train -s 2 -R 2 "$BATS_FILE_TMPDIR/small"
	assert_failure 64
	assert_output --partial 'a whole number below the 2 servers'
	# sgd with a replica (server-fault.bats: it survives a server).
	run ps-train -q -A sgd -W '--epochs 2' -s 2 -R 1 \
	    -o "$BATS_TEST_TMPDIR/s1" "$BATS_FILE_TMPDIR/small"
	assert_success
}

# save_all ADDR...: ask each server to write its model part now.
save_all() {
	local a
	for a in "$@"; do
		echo SAVE | "$FRAMETOOL" -n 1 "$a" script | grep -q SAVE_OK || return 1
	done
}

@test "a lost server's keys are taken over whole by its replicas under the next ring" {
	RING_OPTS="-k 1" start_servers 3 -v -r "$BATS_TEST_TMPDIR/ring"
	job before
	set -- $SERVER_ADDRS
	a0=$1 a1=$2 a2=$3
	save_all "$a0" "$a1" "$a2"
	ps-ckpt dump "$BATS_TEST_TMPDIR"/part-[012].psm | sort >"$BATS_TEST_TMPDIR/before"
	[ -s "$BATS_TEST_TMPDIR/before" ]
	set -- $SERVER_PIDS
	kill -KILL "$3"
	# Version 2 of the ring without server 2; a HELLO makes each server
	# load it.
	ps-ring init -k 1 -o "$BATS_TEST_TMPDIR/ring2" "$a0" "$a1"
	sed 's/^version 1$/version 2/' "$BATS_TEST_TMPDIR/ring2" >"$BATS_TEST_TMPDIR/ring.new"
	mv "$BATS_TEST_TMPDIR/ring.new" "$BATS_TEST_TMPDIR/ring"
	i=0
	for a in "$a0" "$a1"; do
		echo "HELLO,nokeys rv=2 aux=0,1,$i,2,2,1" | "$FRAMETOOL" -n 1 "$a" script |
		    grep -q HELLO_OK
		i=$((i + 1))
	done
	rm -f "$BATS_TEST_TMPDIR"/part-*.psm
	save_all "$a0" "$a1"
	ps-ckpt dump "$BATS_TEST_TMPDIR"/part-[01].psm | sort >"$BATS_TEST_TMPDIR/after"
	wc -l "$BATS_TEST_TMPDIR/before" "$BATS_TEST_TMPDIR/after"
	diff "$BATS_TEST_TMPDIR/before" "$BATS_TEST_TMPDIR/after"
	grep -E 'ring version 2, channel 0: serving [0-9]+ keys \([1-9][0-9]* taken over' \
	    "$BATS_TEST_TMPDIR/server-0.out.err" "$BATS_TEST_TMPDIR/server-1.out.err"
}

@test "replicas authenticate to each other off loopback" {
	secret=$BATS_TEST_TMPDIR/secret
	(umask 077; head -c 32 /dev/urandom | base64 >"$secret")
	RING_OPTS="-k 1" start_servers 2 -l 127.0.0.2:0 -a "$secret" \
	    -r "$BATS_TEST_TMPDIR/ring"
	job secret -a "$secret"
	! grep -h 'authentication failed\|went away' "$BATS_TEST_TMPDIR"/server-*.out.err
}
