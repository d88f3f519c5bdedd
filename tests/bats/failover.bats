#!/usr/bin/env bats
# failover.bats: ring changes during a job run on the coordinator's ring
# with replicas (k = 1).  A server killed with kill -9: the workers take
# the next ring over, send what was not answered again, and finish, at
# tau 0 with the fault-free objective to 1e-9 (nothing acknowledged lost,
# nothing applied twice: only the order of the servers' l1 sums may
# differ), with delay and filters within 1e-3 of it.  A
# server added with `ps-ring add` or drained with `ps-ring remove`: the old
# primaries hand their segments over before the ring switches, and the job
# again ends at the fault-free objective to 1e-9.  A worker that loses a
# server and gets no new ring gives up after its timeout.

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

# cluster RUN [OPTION]: a coordinator with k = 1 and three servers (the
# third with OPTION, e.g. --standby), outputs under $BATS_TEST_TMPDIR/RUN;
# sets COORD, COORD_PID, PID_0..PID_2 and ADDR_0..ADDR_2.
cluster() {
	local saved=$BATS_TEST_TMPDIR rc=0 n=3
	[ -z "${2:-}" ] || n=2
	mkdir -p "$BATS_TEST_TMPDIR/$1"
	BATS_TEST_TMPDIR=$BATS_TEST_TMPDIR/$1
	RING=$BATS_TEST_TMPDIR/ring
	# A 2 s heartbeat timeout: a loaded machine must not kill healthy
	# servers here (kill -9 is seen at once, by the closed connection).
	start_coord -k 1 -t 2000 && start_cserver 0 -v && start_cserver 1 -v &&
	    start_cserver 2 -v ${2:-} &&
	    wait_status "\$1 == \"ring\" && \$3 == $n" || rc=1
	BATS_TEST_TMPDIR=$saved
	return $rc
}

# workers RUN [OPTION...]: both workers on the cluster; sets W0, W1.
# -e 0 -m 1000: the job runs on well past the faults (at iterations 150
# to 300; the default -e ends it near 170), the same length every time.
# At -m 400 a kill at 300 could land after the job's end: the last 100
# iterations took less than the wait's poll and the kill (the failover
# check then failed with the right objective).
workers() {
	local run=$1 k
	shift
	for k in 0 1; do
		ps_start_daemon "$BATS_TEST_TMPDIR/$run/w$k.tsv" timeout 180 \
		    ps-worker -v -C "$COORD" -i $k -n 2 -b 14 -e 0 -m 1000 "$@" \
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

# same OURS [TOL]: OURS is the fault-free objective to TOL relative
# (default 1e-9).
same() {
	awk -v a="$1" -v b="$clean" -v t="${2:-1e-9}" \
	    'BEGIN { d = (a - b) / b; exit !(d < t && d > -t) }'
}

# fault_free [OPTION...]: the job on a fresh cluster; its objective in
# $clean.  The job without options, the same in three tests (tau 0:
# the same objective every time), runs once for the file: the first test
# that needs it keeps its objective in $BATS_FILE_TMPDIR for the others.
fault_free() {
	local kept=$BATS_FILE_TMPDIR/clean.objective
	if [ $# -eq 0 ] && [ -s "$kept" ]; then
		clean=$(cat "$kept")
		return
	fi
	cluster clean && workers clean "$@" && finish clean &&
	    clean=$(final_objective "$BATS_TEST_TMPDIR/clean/w0.tsv") || return 1
	[ $# -ne 0 ] || echo "$clean" >"$kept"
}

# stat ADDR NAME: one counter of a server's stats.
stat() {
	printf 'stats\r\nquit\r\n' | timeout 5 nc -N "${1%:*}" "${1##*:}" |
	    awk -v n="$2" '$1 == "STAT" && $2 == n { print $3 }' | tr -d '\r'
}

# change RUN: start the workers on cluster RUN, and once worker 0
# reported iteration 150 run `ps-ring ARGS... -C coordinator ADDR`.
change() {
	local run=$1 addr=$2
	shift 2
	workers "$run" && ps_wait_line "$BATS_TEST_TMPDIR/$run/w0.tsv" '^150	' 120 >/dev/null &&
	    ps-ring "$@" -C "$COORD" "$addr" && finish "$run" &&
	    ours=$(final_objective "$BATS_TEST_TMPDIR/$run/w0.tsv")
}

@test "kill -9 of a server at tau 0: the job ends at the fault-free objective" {
	fault_free
	for victim in 1 2; do
		cluster "kill$victim"
		workers "kill$victim"
		kill_at "kill$victim" $((victim * 150)) "$victim"
		finish "kill$victim"
		d=$BATS_TEST_TMPDIR/kill$victim
		ours=$(final_objective "$d/w0.tsv")
		echo "server $victim killed: $ours, fault-free $clean"
		same "$ours"
		same "$(final_objective "$d/w1.tsv")"
		grep -h 'ring version' "$d/w0.tsv.err" "$d/w1.tsv.err"
		grep -q 'ring version 3 -> 4: 3 -> 2 servers' "$d/w0.tsv.err"
		grep -E 'first reply under ring version 4 [0-9.]+ ms' "$d/w1.tsv.err"
	done
}

@test "kill -9 of a server during a newton job: it ends at the fault-free objective" {
	# -e 0 -m 120: long enough for the kill to land mid-job.
	opts="-A newton -e 0 -m 120"
	fault_free $opts
	cluster nkill
	workers nkill $opts
	kill_at nkill 40 1
	finish nkill
	d=$BATS_TEST_TMPDIR/nkill
	ours=$(final_objective "$d/w0.tsv")
	echo "server 1 killed: $ours, fault-free $clean"
	same "$ours"
	same "$(final_objective "$d/w1.tsv")"
	[ "$(tsv_last "$d/w0.tsv" iter)" -eq 120 ]
	grep -q 'ring version 3 -> 4: 3 -> 2 servers' "$d/w0.tsv.err"
}

@test "with delay 2, sigmod, lz4 and a test set, a killed server costs less than 1e-3" {
	a9t=$(ps_data a9a.t) || skip "no a9a.t"
	ps-shard-data -q -n 1 -o "$BATS_TEST_TMPDIR/test" "$a9t"
	opts="-t 2 -F kkt,sigmod,keycache,lz4 -T $BATS_TEST_TMPDIR/test-0.pss"
	fault_free $opts
	cluster kill
	workers kill $opts
	kill_at kill 200 0
	finish kill
	ours=$(final_objective "$BATS_TEST_TMPDIR/kill/w0.tsv")
	gap=$(rel_gap "$ours" "$clean")
	auc=$(tsv_last "$BATS_TEST_TMPDIR/kill/w0.tsv" test_auc)
	echo "fault-free $clean, with a kill $ours, gap $gap, test AUC $auc"
	awk -v g="$gap" 'BEGIN { exit !(g < 1e-3 && g > -1e-3) }'
	awk -v a="$auc" 'BEGIN { exit !(a > 0.89) }'
	grep -q 'ring version 3 -> 4' "$BATS_TEST_TMPDIR/kill/w1.tsv.err"
}

@test "a server added mid-job takes its segments over first; the objective is the fault-free one" {
	fault_free
	cluster add --standby
	change add "$ADDR_2" add
	echo "with a server added: $ours, fault-free $clean"
	same "$ours"
	grep -q 'ring version 2 -> 3: 2 -> 3 servers' "$BATS_TEST_TMPDIR/add/w1.tsv.err"
	grep -E 'handing [0-9]+ keys over' "$BATS_TEST_TMPDIR"/add/server-[01].out.err
	taken=$(stat "$ADDR_2" handoff_keys_in)
	echo "the new server took $taken keys"
	[ "$taken" -gt 0 ]
}

@test "a server removed mid-job hands its keys over; the objective is the fault-free one" {
	fault_free
	cluster rm
	change rm "$ADDR_1" remove
	echo "with a server removed: $ours, fault-free $clean"
	same "$ours"
	grep -q 'ring version 3 -> 4: 3 -> 2 servers' "$BATS_TEST_TMPDIR/rm/w0.tsv.err"
	grep -E 'handing [0-9]+ keys over' "$BATS_TEST_TMPDIR/rm/server-1.out.err"
	# It left quietly: no job aborted, and it still runs.
	! grep -q 'aborting the job' "$BATS_TEST_TMPDIR/rm/server-1.out.err"
	kill -0 "$PID_1"
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
	# The first worker to give up ends the job for the other.
	ps_wait_pid "$W1" 20
	[ "$PS_WAIT_STATUS" -eq 69 ]
	grep -E "published no ring without it within 2 s|no answer for 2 s" \
	    "$BATS_TEST_TMPDIR"/lost/w[01].tsv.err ||
		{ cat "$BATS_TEST_TMPDIR"/lost/w[01].tsv.err; false; }
}
