#!/usr/bin/env bats
# coord-fault.bats: a ps-train job survives the loss of its coordinator.
# kill -9 of the coordinator (from outside, by the PID in the job
# directory) in the middle of a dbpg and of an sgd job: ps-train starts
# another on the same address and ring file, the servers and workers go on
# with the ring they hold and register again, the job exits 0 with the
# answer of the same job without the fault, and ps-train says on stderr
# when it happened and how long the recovery took.  A coordinator stopped
# for good (SIGSTOP) is found hung and replaced, in a dbpg and in an sgd
# job; one stopped for longer than its timeout and then woken declares
# nobody dead.  The recovery figures go to fd 3.

load helper

# The dbpg job of every dbpg test but the last: a9a to 3000 iterations (no
# stop rule), about 4 s of work, so that a fault a second or two after the
# workers start finds it running (the default job may be done by then).
DBPG=(-A dbpg -e 0 -m 3000)

setup_file() {
	a9a=$(ps_data a9a) || return 0
	# The dbpg answer without a fault, for every dbpg test.
	ps-train -q --tsv --no-auth -o "$BATS_FILE_TMPDIR/ref.model" "${DBPG[@]}" "$a9a" \
	    >/dev/null 2>"$BATS_FILE_TMPDIR/ref.err" 3>&-
	awk -F'\t' '$1 == "objective" { print $2 }' "$BATS_FILE_TMPDIR/ref.err" \
	    >"$BATS_FILE_TMPDIR/ref.objective"
}

setup() {
	A9A=$(ps_data a9a) || skip "no a9a"
	JOB=$BATS_TEST_TMPDIR/job
}

# The job's daemons, by the PIDs in its directory: a stopped coordinator
# is woken and every one killed, whatever became of ps-train.
teardown() {
	local f
	for f in "$JOB"/*.pid; do
		[ -f "$f" ] && [ "${f##*/}" != ps-train.pid ] &&
		    kill -CONT "$(cat "$f")" 2>/dev/null
	done
	ps_reap
	for f in "$JOB"/*.pid; do
		[ -f "$f" ] && [ "${f##*/}" != ps-train.pid ] &&
		    kill -KILL "$(cat "$f")" 2>/dev/null
	done
	return 0
}

# fault SIGNAL DELAY [PS-TRAIN OPTION...]: run a job in $JOB and send its
# coordinator SIGNAL DELAY seconds after the workers started (and, with
# WAKE set, SIGCONT WAKE seconds later); ps-train's exit status in
# $status, its stderr in $ERR, its stdout in $OUT.
fault() {
	local sig=$1 delay=$2 i=0 pid
	shift 2
	OUT=$BATS_TEST_TMPDIR/out.tsv ERR=$BATS_TEST_TMPDIR/out.tsv.err
	ps_start_daemon "$OUT" ps-train -q --tsv -j "$JOB" \
	    -o "$BATS_TEST_TMPDIR/model" "$@"
	pid=$PS_LAST_PID
	until [ -s "$JOB/worker-0.pid" ]; do
		[ "$i" -lt 400 ] || { cat "$ERR"; return 1; }
		sleep 0.05
		i=$((i + 1))
	done
	sleep "$delay"
	kill -0 "$(cat "$JOB/worker-0.pid")"	# the job is still running
	kill -"$sig" "$(cat "$JOB/coordinator.pid")"
	if [ -n "${WAKE:-}" ]; then
		sleep "$WAKE"
		kill -0 "$(cat "$JOB/worker-0.pid")"	# still running
		[ "$(ps -o stat= -p "$(cat "$JOB/coordinator.pid")" | cut -c1)" = T ]
		kill -CONT "$(cat "$JOB/coordinator.pid")"
	fi
	ps_wait_pid "$pid" 60
	status=$PS_WAIT_STATUS
	cat "$ERR"
}

# recovered HOW: the line ps-train prints for the coordinator's recovery;
# the figures go to fd 3.
recovered() {
	local line
	line=$(grep -E "^ps-train: the coordinator $1 at [0-9]+\.[0-9]{2} s; recovered in [0-9]+\.[0-9]{2} s \(ring version [0-9]+\)$" "$ERR")
	[ -n "$line" ]
	echo "# ${line#ps-train: }" >&3
}

# same_objective [REF]: the job's objective is the fault-free one (in
# the file REF, by default the default job's) within 1e-3.
same_objective() {
	local ours ref
	ours=$(awk -F'\t' '$1 == "objective" { print $2 }' "$ERR")
	ref=$(cat "${1:-$BATS_FILE_TMPDIR/ref.objective}")
	echo "objective $ours without the fault $ref"
	[ -n "$ours" ] && [ -n "$ref" ]
	awk -v a="$ours" -v b="$ref" 'BEGIN { d = (a - b) / b; exit !(d < 1e-3 && d > -1e-3) }'
}

@test "dbpg: kill -9 of the coordinator mid-job; a new one on its address, exit 0, the same objective" {
	fault KILL 1 "${DBPG[@]}" "$A9A"
	[ "$status" -eq 0 ]
	recovered "killed by SIGKILL"
	same_objective
	# Its servers and workers went on with the ring they held, the
	# servers with their weights, and registered with the new one.
	grep -q "it went away: serving ring version 2 until one answers there again" "$JOB/server-0.err"
	grep -q "it went away: training on ring version 2" "$JOB/worker-0.err"
	! grep -q 'dropped the weights' "$JOB"/server-*.err
	[ "$(grep -c '^ps-ring: listening on ' "$JOB/coordinator.err")" -eq 2 ]
	grep -q 'ring version 2: every server of it is back' "$JOB/coordinator.err"
	! grep -q 'is dead' "$JOB/coordinator.err"
}

# sgd_ref: the test AUC of the sgd job of 300 epochs without a fault, once
# per file; sets T to the test set.
sgd_ref() {
	T=$(ps_data a9a.t) || return 1
	[ -f "$BATS_FILE_TMPDIR/sgd.auc" ] ||
	    ps-train -q --tsv --no-auth -A sgd -W '--epochs 300' -T "$T" \
	    -o "$BATS_FILE_TMPDIR/sgd.model" "$A9A" 2>&1 >/dev/null 3>&- |
	    awk -F'\t' '$1 == "test_auc" { print $2 }' >"$BATS_FILE_TMPDIR/sgd.auc"
	cat "$BATS_FILE_TMPDIR/sgd.auc"
}

# same_auc: the sgd job's test AUC is the fault-free one's within 0.005,
# and every epoch ran.
same_auc() {
	local ours ref
	ours=$(awk -F'\t' '$1 == "test_auc" { print $2 }' "$ERR")
	ref=$(cat "$BATS_FILE_TMPDIR/sgd.auc")
	echo "test AUC $ours without the fault $ref"
	[ -n "$ours" ] && [ -n "$ref" ]
	awk -v a="$ours" -v b="$ref" 'BEGIN { exit !(a - b < 0.005 && b - a < 0.005) }'
	grep -qx "$(printf 'epochs\t300')" "$ERR"	# every epoch ran
}

@test "sgd: kill -9 of the coordinator mid-job; exit 0, the test AUC of the job without it" {
	sgd_ref >/dev/null || skip "no a9a.t"
	fault KILL 1 -A sgd -W '--epochs 300' -T "$T" "$A9A"
	[ "$status" -eq 0 ]
	recovered "killed by SIGKILL"
	same_auc
}

@test "sgd: a coordinator stopped for good is found hung and replaced; exit 0, the test AUC of the job without it" {
	sgd_ref >/dev/null || skip "no a9a.t"
	PS_TRAIN_COORD_HANG=1.5 fault STOP 0.5 -A sgd -W '--epochs 300' -T "$T" "$A9A"
	[ "$status" -eq 0 ]
	recovered "hung \(no answer for [0-9.]+ s\)"
	same_auc
}

@test "a coordinator stopped for good is found hung and replaced; exit 0, the same objective" {
	PS_TRAIN_COORD_HANG=1.5 fault STOP 0.5 "${DBPG[@]}" "$A9A"
	[ "$status" -eq 0 ]
	recovered "hung \(no answer for [0-9.]+ s\)"
	same_objective
}

@test "a coordinator stopped for longer than its timeout, then woken, declares nobody dead" {
	# Stopped 0.2 s after the workers start, woken 1 s later: twice
	# its timeout, and well before the job ends: a9a to 5000 iterations
	# (no stop rule) is about 3 s of work (2000 took 1.25 s, and ended
	# before the wake), where the default job may be done by then.
	local long=(-A dbpg -e 0 -m 5000)
	ps-train -q --tsv --no-auth -o "$BATS_TEST_TMPDIR/ref.model" \
	    "${long[@]}" "$A9A" 2>&1 >/dev/null 3>&- |
	    awk -F'\t' '$1 == "objective" { print $2 }' >"$BATS_TEST_TMPDIR/ref"
	PS_TRAIN_COORD_TIMEOUT=500 PS_TRAIN_COORD_HANG=30 WAKE=1 \
	    fault STOP 0.2 "${long[@]}" "$A9A"
	[ "$status" -eq 0 ]
	! grep -q '^ps-train: the coordinator' "$ERR"
	same_objective "$BATS_TEST_TMPDIR/ref"
	grep -Eq 'this coordinator did not run for [0-9]+ ms' "$JOB/coordinator.err"
	! grep -q 'is dead' "$JOB/coordinator.err"
	grep -q 'ring version 2 published' "$JOB/coordinator.err"
	! grep -q 'ring version 3' "$JOB/coordinator.err"
}
