#!/usr/bin/env bats
# train.bats: end-to-end training against Debian's LIBLINEAR, a large
# model part, and the failure cases of a running job (a worker or a
# server dying, bad input).

load helper
bats_require_minimum_version 1.5.0

setup_file() {
	export BATS_FILE_TMPDIR
	ps_data a9a >/dev/null
	ps_data w8a >/dev/null
}

teardown() {
	ps_reap
}

# bats test_tags=quality
@test "ps-train matches LIBLINEAR on a9a within 1e-3 (2 servers, 2 workers, tau 0)" {
	ref=$(liblinear_ref a9a)
	run ps-train -q -s 2 -w 2 -o "$BATS_TEST_TMPDIR/model" "$BATS_FILE_TMPDIR/a9a"
	assert_success
	ours=$(final_objective "$BATS_TEST_TMPDIR/model/progress.tsv")
	gap=$(rel_gap "$ours" "$ref")
	echo "ours $ours liblinear $ref gap $gap"
	awk -v g="$gap" 'BEGIN { exit !(g < 1e-3) }'
	[ -f "$BATS_TEST_TMPDIR/model/part-0.psm" ]
	[ -f "$BATS_TEST_TMPDIR/model/part-1.psm" ]
}

# bats test_tags=quality
@test "ps-train matches LIBLINEAR on a9a with 1 server, 3 workers, tau 4" {
	ref=$(liblinear_ref a9a)
	run ps-train -q -s 1 -w 3 -t 4 -o "$BATS_TEST_TMPDIR/model" "$BATS_FILE_TMPDIR/a9a"
	assert_success
	ours=$(final_objective "$BATS_TEST_TMPDIR/model/progress.tsv")
	gap=$(rel_gap "$ours" "$ref")
	echo "ours $ours liblinear $ref gap $gap"
	awk -v g="$gap" 'BEGIN { exit !(g < 1e-3) }'
}

# bats test_tags=quality
@test "ps-train matches LIBLINEAR on w8a with 3 servers, 1 worker, tau 2" {
	ref=$(liblinear_ref w8a)
	run ps-train -q -s 3 -w 1 -t 2 -o "$BATS_TEST_TMPDIR/model" "$BATS_FILE_TMPDIR/w8a"
	assert_success
	ours=$(final_objective "$BATS_TEST_TMPDIR/model/progress.tsv")
	gap=$(rel_gap "$ours" "$ref")
	echo "ours $ours liblinear $ref gap $gap"
	awk -v g="$gap" 'BEGIN { exit !(g < 1e-3) }'
}

@test "the exported model scores like LIBLINEAR's on the test rows" {
	run ps-train -q -s 2 -w 2 -o "$BATS_TEST_TMPDIR/model" "$BATS_FILE_TMPDIR/w8a"
	assert_success
	run ps-ckpt export -f liblinear -o "$BATS_TEST_TMPDIR/m.liblinear" "$BATS_TEST_TMPDIR/model"
	assert_success
	run liblinear-predict "$BATS_FILE_TMPDIR/w8a" "$BATS_TEST_TMPDIR/m.liblinear" "$BATS_TEST_TMPDIR/pred"
	assert_success
	acc=$(echo "$output" | sed -n 's/^Accuracy = \([0-9.]*\)%.*/\1/p')
	echo "accuracy $acc"
	awk -v a="$acc" 'BEGIN { exit !(a > 97) }'
}

@test "progress TSV has a header, increasing iterations and test metrics" {
	head -n 3000 "$BATS_FILE_TMPDIR/a9a" > "$BATS_TEST_TMPDIR/train"
	tail -n 1000 "$BATS_FILE_TMPDIR/a9a" > "$BATS_TEST_TMPDIR/test"
	# stdout alone: stderr begins with the job's coordinator line.
	run --separate-stderr ps-train -s 1 -w 2 -T "$BATS_TEST_TMPDIR/test" -o "$BATS_TEST_TMPDIR/model" "$BATS_TEST_TMPDIR/train"
	assert_success
	assert_line --index 0 --regexp '^iter	secs	objective	rel_change	nnz	bytes_sent	bytes_recv	test_logloss	test_auc	kkt_rel	gap_est	msgs_sent	msgs_recv	kkt_in	kkt_out	skip_out	sigmod_in	sigmod_out	keycache_in	keycache_out	fp16_in	fp16_out	lz4_in	lz4_out$'
	tsv="$BATS_TEST_TMPDIR/model/progress.tsv"
	awk -F'\t' 'NR > 1 && $1 != NR - 2 { exit 1 }' "$tsv"
	auc=$(tail -n 1 "$tsv" | cut -f 9)
	echo "auc $auc"
	awk -v a="$auc" 'BEGIN { exit !(a > 0.85 && a <= 1) }'
}

@test "a worker killed mid-run stops the job with a message naming it" {
	start_servers 2
	ps-shard-data -q -n 2 -o "$BATS_TEST_TMPDIR/train" "$BATS_FILE_TMPDIR/a9a"
	ps_start_daemon "$BATS_TEST_TMPDIR/w0.tsv" ps-worker -r "$BATS_TEST_TMPDIR/ring" \
	    -i 0 -n 2 -b 14 -e 0 -m 1000000 "$BATS_TEST_TMPDIR/train-0.pss"
	w0=$PS_LAST_PID
	ps_start_daemon "$BATS_TEST_TMPDIR/w1.tsv" ps-worker -r "$BATS_TEST_TMPDIR/ring" \
	    -i 1 -n 2 -b 14 -e 0 -m 1000000 "$BATS_TEST_TMPDIR/train-1.pss"
	w1=$PS_LAST_PID
	ps_wait_line "$BATS_TEST_TMPDIR/w0.tsv" '^20	' 20
	kill -9 "$w1"
	ps_wait_pid "$w0" 10
	[ "$PS_WAIT_STATUS" -ne 0 ]
	grep -q 'worker 1 .* went away' "$BATS_TEST_TMPDIR/w0.tsv.err"
	# The servers keep serving.
	set -- $SERVER_PIDS
	kill -0 "$1"
}

@test "a server killed mid-run makes the workers exit, naming it" {
	start_servers 2
	ps-shard-data -q -n 1 -o "$BATS_TEST_TMPDIR/train" "$BATS_FILE_TMPDIR/a9a"
	ps_start_daemon "$BATS_TEST_TMPDIR/w0.tsv" ps-worker -r "$BATS_TEST_TMPDIR/ring" \
	    -b 14 -e 0 -m 1000000 "$BATS_TEST_TMPDIR/train-0.pss"
	w0=$PS_LAST_PID
	ps_wait_line "$BATS_TEST_TMPDIR/w0.tsv" '^20	' 20
	victim=$(echo $SERVER_PIDS | cut -d' ' -f2)
	kill -9 "$victim"
	ps_wait_pid "$w0" 10
	[ "$PS_WAIT_STATUS" -eq 69 ]
	grep -q 'server 1 (127.0.0.1:[0-9]*) went away' "$BATS_TEST_TMPDIR/w0.tsv.err"
}

@test "a worker refuses a corrupt shard with the reason" {
	start_servers 1
	ps-shard-data -q -n 1 -o "$BATS_TEST_TMPDIR/train" "$BATS_FILE_TMPDIR/a9a"
	f="$BATS_TEST_TMPDIR/train-0.pss"
	size=$(stat -c %s "$f")
	printf '\377' | dd of="$f" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
	run ps-worker -r "$BATS_TEST_TMPDIR/ring" "$f"
	assert_failure 65
	assert_output --partial "$f"
}

@test "ps-train on malformed data exits 65 and leaves no model" {
	printf '+1 1:1 2:x\n' > "$BATS_TEST_TMPDIR/bad"
	run ps-train -q -o "$BATS_TEST_TMPDIR/model" "$BATS_TEST_TMPDIR/bad"
	assert_failure 65
	assert_output --partial 'bad:1:'
	[ ! -e "$BATS_TEST_TMPDIR/model" ]
}

@test "ps-train and ps-worker reject bad command lines with 64" {
	run ps-train -s x foo
	assert_failure 64
	assert_output "ps-train: bad -s 'x': a whole number from 1 to 4096"
	run ps-worker -t -1 -r ring shard
	assert_failure 64
	assert_output --partial 'usage: ps-worker'
	run ps-worker shard
	assert_failure 64
	run ps-train -h
	assert_success
	assert_output --partial 'usage: ps-train'
}

@test "tau 0 with a fixed seed gives the same model twice" {
	head -n 4000 "$BATS_FILE_TMPDIR/a9a" > "$BATS_TEST_TMPDIR/train"
	run ps-train -q -m 150 -s 2 -w 2 -o "$BATS_TEST_TMPDIR/m1" "$BATS_TEST_TMPDIR/train"
	assert_success
	run ps-train -q -m 150 -s 2 -w 2 -o "$BATS_TEST_TMPDIR/m2" "$BATS_TEST_TMPDIR/train"
	assert_success
	ps-ckpt dump "$BATS_TEST_TMPDIR/m1" > "$BATS_TEST_TMPDIR/d1"
	ps-ckpt dump "$BATS_TEST_TMPDIR/m2" > "$BATS_TEST_TMPDIR/d2"
	[ -s "$BATS_TEST_TMPDIR/d1" ]
	cmp "$BATS_TEST_TMPDIR/d1" "$BATS_TEST_TMPDIR/d2"
	[ "$(final_objective "$BATS_TEST_TMPDIR/m1/progress.tsv")" = "$(final_objective "$BATS_TEST_TMPDIR/m2/progress.tsv")" ]
}

@test "a server saves more keys than it sorts at a time (65536) whole and by feature id: one server's part is two servers' together" {
	local d=$BATS_TEST_TMPDIR s nnz
	"$PSKIT_BUILDDIR/tests/bench/ps-gen-libsvm" -r 100000 -f 250000 -z 10 \
	    > "$d/train" 2>/dev/null
	for s in 1 2; do
		run ps-train -q -t 0 -S 1 -s "$s" -l 0.0001 -m 4 -o "$d/m$s" \
		    "$d/train"
		assert_success
	done
	run ps-ckpt info "$d/m1"
	assert_line --regexp '^parts	1$'
	nnz=$(awk -F '\t' '$1 == "nnz" { print $2 }' <<<"$output")
	[ "$nnz" -gt 65536 ]
	run ps-ckpt diff "$d/m1" "$d/m2"
	assert_success
	assert_line --regexp '^changed	0$'
	assert_line "nnz_b	$nnz"
}

@test "a server refuses keys that its ring gives to another server" {
	ps_start_daemon "$BATS_TEST_TMPDIR/s0.out" ps-server -r "$BATS_TEST_TMPDIR/server.ring"
	a0=$(ps_wait_line "$BATS_TEST_TMPDIR/s0.out" '^listening ' 10)
	ps_start_daemon "$BATS_TEST_TMPDIR/s1.out" ps-server -r "$BATS_TEST_TMPDIR/server.ring"
	a1=$(ps_wait_line "$BATS_TEST_TMPDIR/s1.out" '^listening ' 10)
	ps-ring init -v 64 -o "$BATS_TEST_TMPDIR/server.ring" ${a0#listening } ${a1#listening }
	# The worker's ring places the keys differently (other virtual nodes).
	ps-ring init -v 3 -o "$BATS_TEST_TMPDIR/worker.ring" ${a0#listening } ${a1#listening }
	ps-shard-data -q -o "$BATS_TEST_TMPDIR/train" "$BATS_FILE_TMPDIR/a9a"
	run timeout 20 ps-worker -r "$BATS_TEST_TMPDIR/worker.ring" -b 4 "$BATS_TEST_TMPDIR/train-0.pss"
	assert_failure 69
	assert_output --regexp 'key [0-9]+ belongs to server [01] \(127\.0\.0\.1:[0-9]+\), not to this one'
}

@test "a server refuses a worker that holds another ring version" {
	ps_start_daemon "$BATS_TEST_TMPDIR/s0.out" ps-server -r "$BATS_TEST_TMPDIR/server.ring"
	a0=$(ps_wait_line "$BATS_TEST_TMPDIR/s0.out" '^listening ' 10)
	ps-ring init -o "$BATS_TEST_TMPDIR/server.ring" ${a0#listening }
	sed 's/^version 1$/version 2/' "$BATS_TEST_TMPDIR/server.ring" > "$BATS_TEST_TMPDIR/worker.ring"
	ps-shard-data -q -o "$BATS_TEST_TMPDIR/train" "$BATS_FILE_TMPDIR/a9a"
	run timeout 20 ps-worker -r "$BATS_TEST_TMPDIR/worker.ring" "$BATS_TEST_TMPDIR/train-0.pss"
	assert_failure 69
	assert_output --partial 'the worker holds ring version 2'
}

@test "a server that hangs (SIGSTOP) is given up on after --timeout, naming it" {
	start_servers 2
	ps-shard-data -q -n 1 -o "$BATS_TEST_TMPDIR/train" "$BATS_FILE_TMPDIR/a9a"
	ps_start_daemon "$BATS_TEST_TMPDIR/w0.tsv" ps-worker -r "$BATS_TEST_TMPDIR/ring" \
	    --timeout 2 -b 14 -e 0 -m 1000000 "$BATS_TEST_TMPDIR/train-0.pss"
	w0=$PS_LAST_PID
	ps_wait_line "$BATS_TEST_TMPDIR/w0.tsv" '^20	' 20
	set -- $SERVER_PIDS
	kill -STOP "$2"
	ps_wait_pid "$w0" 10
	kill -CONT "$2"
	[ "$PS_WAIT_STATUS" -eq 69 ]
	grep -q 'no answer for 2 s from server 1 (127.0.0.1:[0-9]*)' "$BATS_TEST_TMPDIR/w0.tsv.err"
}

# check_rule TAU TRACE BLOCKS: every start obeys the task rule of tau, and
# pass starts wait for everything before them.
check_rule() {
	awk -v tau="$1" -v B="$3" '
	/iteration [0-9]+ starts/ {
		for (i = 1; i <= NF; i++) {
			if ($i == "iteration") t = $(i + 1)
			if ($i == "below") d = $(i + 1)
		}
		n++
		if (d < t - tau) { print "iteration " t " started with only " d " done"; bad = 1 }
		if (t % B == 0 && d != t) { print "pass start " t " did not wait: " d; bad = 1 }
		if (t - d > tau_seen) tau_seen = t - d
	}
	END { print n " starts, largest delay " tau_seen; exit bad || n == 0 }' "$2"
}

@test "consistency: no iteration starts before its tasks of t - tau - 1 finished" {
	start_servers 2
	ps-shard-data -q -n 2 -o "$BATS_TEST_TMPDIR/train" "$BATS_FILE_TMPDIR/w8a"
	for tau in 0 3 inf; do
		ps_start_daemon "$BATS_TEST_TMPDIR/w1.tsv" ps-worker -vv -r "$BATS_TEST_TMPDIR/ring" \
		    -i 1 -n 2 -b 12 -t "$tau" -m 240 "$BATS_TEST_TMPDIR/train-1.pss"
		run ps-worker -vv -r "$BATS_TEST_TMPDIR/ring" -i 0 -n 2 -b 12 -t "$tau" \
		    -m 240 "$BATS_TEST_TMPDIR/train-0.pss"
		assert_success
		echo "$output" > "$BATS_TEST_TMPDIR/trace-$tau"
		limit=$tau
		[ "$tau" = inf ] && limit=12
		run check_rule "$limit" "$BATS_TEST_TMPDIR/trace-$tau" 12
		echo "tau $tau: $output"
		assert_success
		ps_wait_pid "$PS_LAST_PID" 10
		[ "$PS_WAIT_STATUS" -eq 0 ]
	done
	# The delayed runs really overlapped iterations.
	run check_rule 0 "$BATS_TEST_TMPDIR/trace-3" 12
	assert_failure
}

@test "channels: two jobs train two vectors on the same servers at once" {
	start_servers 2
	head -n 3000 "$BATS_FILE_TMPDIR/a9a" > "$BATS_TEST_TMPDIR/train"
	ps-shard-data -q -n 1 -o "$BATS_TEST_TMPDIR/train" "$BATS_TEST_TMPDIR/train"
	ps_start_daemon "$BATS_TEST_TMPDIR/c0.tsv" ps-worker -r "$BATS_TEST_TMPDIR/ring" \
	    -b 8 -l 1 "$BATS_TEST_TMPDIR/train-0.pss"
	c0=$PS_LAST_PID
	ps_start_daemon "$BATS_TEST_TMPDIR/c3.tsv" ps-worker -r "$BATS_TEST_TMPDIR/ring" \
	    -c 3 -b 8 -l 4 "$BATS_TEST_TMPDIR/train-0.pss"
	c3=$PS_LAST_PID
	ps_wait_pid "$c0" 60
	[ "$PS_WAIT_STATUS" -eq 0 ]
	ps_wait_pid "$c3" 60
	[ "$PS_WAIT_STATUS" -eq 0 ]
	set -- $SERVER_PIDS
	kill -TERM "$1" "$2"
	ps_wait_pid "$1" 10
	ps_wait_pid "$2" 10
	# Each vector is saved on its own and matches its own job's answer.
	for k in 0 1; do
		[ -s "$BATS_TEST_TMPDIR/part-$k.psm" ]
		[ -s "$BATS_TEST_TMPDIR/part-$k.psm.ch3" ]
	done
	ps-ckpt export -f liblinear "$BATS_TEST_TMPDIR/part-0.psm" "$BATS_TEST_TMPDIR/part-1.psm" > "$BATS_TEST_TMPDIR/m0"
	ps-ckpt export -f liblinear "$BATS_TEST_TMPDIR/part-0.psm.ch3" "$BATS_TEST_TMPDIR/part-1.psm.ch3" > "$BATS_TEST_TMPDIR/m3"
	f0=$(ll_objective "$BATS_TEST_TMPDIR/m0" "$BATS_TEST_TMPDIR/train" 1)
	f3=$(ll_objective "$BATS_TEST_TMPDIR/m3" "$BATS_TEST_TMPDIR/train" 4)
	gap0=$(rel_gap "$f0" "$(final_objective "$BATS_TEST_TMPDIR/c0.tsv")")
	gap3=$(rel_gap "$f3" "$(final_objective "$BATS_TEST_TMPDIR/c3.tsv")")
	awk -v a="$gap0" -v b="$gap3" 'BEGIN { exit !(a < 1e-6 && b < 1e-6) }'
	# lambda 4 gives the sparser model.
	n0=$(ps-ckpt dump "$BATS_TEST_TMPDIR"/part-[01].psm | wc -l)
	n3=$(ps-ckpt dump "$BATS_TEST_TMPDIR"/part-[01].psm.ch3 | wc -l)
	[ "$n3" -gt 0 ] && [ "$n3" -lt "$n0" ]
}
