#!/usr/bin/env bats
# failover.bats: a server killed with kill -9 during a job run on the
# coordinator's ring with replicas (k = 1).  The workers take the next
# ring over, send what was not answered again, and finish: at tau 0 with
# exactly the fault-free objective (nothing acknowledged lost, nothing
# applied twice), with delay and filters within 1e-3 of it.  Also: a
# worker that loses a server and gets no new ring gives up after its
# timeout, naming the coordinator.

load helper

setup() {
	RING="$BATS_TEST_TMPDIR/ring"
	STOPPED=
	PS_PIDS_FILE=$BATS_TEST_TMPDIR/pids
	a9a=$(ps_data a9a) || skip "no a9a"
	[ -f "$BATS_FILE_TMPDIR/train-1.pss" ] ||
	    ps-shard-data -q -n 2 -o "$BATS_FILE_TMPDIR/train" "$a9a"
}

teardown() {
	[ -z "$STOPPED" ] || kill -CONT $STOPPED 2>/dev/null || true
	ps_reap
}

# cluster RUN: a coordinator with k = 1 and three servers, outputs under
# $BATS_TEST_TMPDIR/RUN; sets COORD, COORD_PID and PID_0..PID_2.
cluster() {
	local saved=$BATS_TEST_TMPDIR rc=0
	mkdir -p "$BATS_TEST_TMPDIR/$1"
	BATS_TEST_TMPDIR=$BATS_TEST_TMPDIR/$1
	RING=$BATS_TEST_TMPDIR/ring
	start_coord -k 1 && start_cserver 0 -v && start_cserver 1 -v &&
	    start_cserver 2 -v && wait_status '$1 == "ring" && $3 == 3' || rc=1
	BATS_TEST_TMPDIR=$saved
	return $rc
}

# workers RUN [OPTION...]: both workers on the cluster; sets W0, W1.
workers() {
	local run=$1 k
	shift
	for k in 0 1; do
		ps_start_daemon "$BATS_TEST_TMPDIR/$run/w$k.tsv" timeout 180 \
		    ps-worker -v -C "$COORD" -i $k -n 2 -b 14 "$@" \
		    "$BATS_FILE_TMPDIR/train-$k.pss"
		eval "W$k=$PS_LAST_PID"
	done
}

# finish RUN: both workers exit 0 within 180 s.
finish() {
	ps_wait_pid "$W0" 180 && [ "$PS_WAIT_STATUS" -eq 0 ] || {
		tail -n 5 "$BATS_TEST_TMPDIR/$1/w0.tsv.err"; return 1; }
	ps_wait_pid "$W1" 180 && [ "$PS_WAIT_STATUS" -eq 0 ] || {
		tail -n 5 "$BATS_TEST_TMPDIR/$1/w1.tsv.err"; return 1; }
}

# kill_at RUN ITER K: kill -9 server K once worker 0 reported ITER.
kill_at() {
	ps_wait_line "$BATS_TEST_TMPDIR/$1/w0.tsv" "^$2	" 120 >/dev/null || return 1
	eval "kill -9 \$PID_$3"
}

@test "kill -9 of a server at tau 0: the job ends at exactly the fault-free objective" {
	cluster clean
	workers clean
	finish clean
	clean=$(final_objective "$BATS_TEST_TMPDIR/clean/w0.tsv")
	for victim in 1 2; do
		cluster "kill$victim"
		workers "kill$victim"
		kill_at "kill$victim" $((victim * 150)) "$victim"
		finish "kill$victim"
		d=$BATS_TEST_TMPDIR/kill$victim
		ours=$(final_objective "$d/w0.tsv")
		echo "server $victim killed: $ours, fault-free $clean"
		[ "$ours" = "$clean" ]
		[ "$(final_objective "$d/w1.tsv")" = "$clean" ]
		grep -q 'ring version 3 -> 4: 3 -> 2 servers' "$d/w0.tsv.err"
		grep -E 'first reply under ring version 4 [0-9.]+ ms' "$d/w1.tsv.err"
	done
}

@test "with delay 2, sigmod, lz4 and a test set, a killed server costs less than 1e-3" {
	a9t=$(ps_data a9a.t) || skip "no a9a.t"
	ps-shard-data -q -n 1 -o "$BATS_TEST_TMPDIR/test" "$a9t"
	opts="-t 2 -F kkt,sigmod,keycache,lz4 -T $BATS_TEST_TMPDIR/test-0.pss"
	cluster clean
	workers clean $opts
	finish clean
	cluster kill
	workers kill $opts
	kill_at kill 200 0
	finish kill
	clean=$(final_objective "$BATS_TEST_TMPDIR/clean/w0.tsv")
	ours=$(final_objective "$BATS_TEST_TMPDIR/kill/w0.tsv")
	gap=$(rel_gap "$ours" "$clean")
	auc=$(tsv_last "$BATS_TEST_TMPDIR/kill/w0.tsv" test_auc)
	echo "fault-free $clean, with a kill $ours, gap $gap, test AUC $auc"
	awk -v g="$gap" 'BEGIN { exit !(g < 1e-3 && g > -1e-3) }'
	awk -v a="$auc" 'BEGIN { exit !(a > 0.89) }'
	grep -q 'ring version 3 -> 4' "$BATS_TEST_TMPDIR/kill/w1.tsv.err"
}

@test "a worker that loses a server and gets no new ring gives up after its timeout" {
	cluster lost
	workers lost --timeout 2
	ps_wait_line "$BATS_TEST_TMPDIR/lost/w0.tsv" '^50	' 60 >/dev/null
	kill -STOP "$COORD_PID"
	STOPPED=$COORD_PID
	kill -9 "$PID_1"
	ps_wait_pid "$W0" 20
	[ "$PS_WAIT_STATUS" -eq 69 ]
	grep -E "went away.*waiting for the coordinator's next ring" "$BATS_TEST_TMPDIR/lost/w0.tsv.err"
	grep -E "published no ring without it within 2 s|no answer for 2 s" "$BATS_TEST_TMPDIR/lost/w0.tsv.err"
}
