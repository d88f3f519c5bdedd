#!/usr/bin/env bats
# server-fault.bats: a dbpg job of ps-train, with its default replica
# (-R 1), survives any single server's death.  A server killed (kill -9 by
# the pid in the job directory) or stopped past the coordinator's
# heartbeat timeout (then killed by ps-train) mid-job: the coordinator's
# next ring gives its segments to their replicas, the workers move onto
# it, and ps-train starts another server, which joins the ring and takes
# segments over, so that a second fault later is survived too.  The job
# exits 0 with the fault-free objective after as many iterations (to
# rounding: the servers' l1 sums come in another order), one line on
# stderr says what failed, when, and how long the recovery took, and the
# model holds the parts of the last ring's servers.  A server and a worker killed at once are both replaced,
# within 1e-3 as for a worker alone (worker-fault.bats).  Without a
# replica (-R 0), or for sgd (not replicated), a server's death ends the
# job with 69, naming it.

load helper

setup_file() {
	export BATS_FILE_TMPDIR
	ps_data a9a >/dev/null
}

teardown() {
	[ -z "${STOPPED:-}" ] || kill -CONT "$STOPPED" 2>/dev/null || true
	ps_reap
}

# train RUN [OPTION...]: ps-train on a9a in the background, job files in
# $BATS_TEST_TMPDIR/RUN, its stderr in RUN.out.err; sets TRAIN.  A dbpg
# job runs 2000 iterations, not to its stop rule: a ring change may fall
# in the pass that would have stopped the job, which then does not count
# (stop.c), and the job stops passes later with another objective.  With
# a fixed count, the objective is the fault-free one's (to 1e-9) whenever
# no acknowledged update was lost or applied twice.
train() {
	local run=$1
	shift
	rm -rf "$BATS_TEST_TMPDIR/$run"
	ps_start_daemon "$BATS_TEST_TMPDIR/$run.out" timeout 90 \
	    ps-train -q -j "$BATS_TEST_TMPDIR/$run" -e 0 -m 2000 \
	    -o "$BATS_TEST_TMPDIR/$run.model" "$@" "$BATS_FILE_TMPDIR/a9a"
	TRAIN=$PS_LAST_PID
}

# finish RUN: wait for ps-train; print its stderr; its exit status in
# STATUS.
finish() {
	ps_wait_pid "$TRAIN" 90 || { echo "ps-train still runs"; return 1; }
	STATUS=$PS_WAIT_STATUS
	cat "$BATS_TEST_TMPDIR/$1.out.err"
}

# at_line RUN LINES: wait until worker 0 of job RUN printed LINES lines.
at_line() {
	ps_wait_lines "$BATS_TEST_TMPDIR/$1/worker-0.tsv" "$2" 30
}

# fault RUN K LINES SIGNAL: once worker 0 printed LINES lines, send SIGNAL
# to server K of job RUN, by the pid in the job directory; sets VICTIM.
fault() {
	at_line "$1" "$3" || return 1
	VICTIM=$(cat "$BATS_TEST_TMPDIR/$1/server-$2.pid")
	echo "kill -$4 server $2 (pid $VICTIM) at line $3"
	kill "-$4" "$VICTIM"
}

# recovered RUN K HOW: ps-train's line for server K's loss, with its
# recovery.
recovered() {
	grep -E "^ps-train: server $2 $3 at [0-9]+\.[0-9]{2} s; recovered in [0-9]+\.[0-9]{3} s \(ring version [0-9]+\)$" \
	    "$BATS_TEST_TMPDIR/$1.out.err"
}

# clean: the fault-free objective, once per file.
clean() {
	local f="$BATS_FILE_TMPDIR/clean"
	if [ ! -f "$f" ]; then
		train clean
		finish clean >/dev/null
		[ "$STATUS" -eq 0 ] || return 1
		final_objective "$BATS_TEST_TMPDIR/clean.model/progress.tsv" >"$f"
	fi
	cat "$f"
}

# same_answer RUN: the job's objective is the fault-free one to 1e-9.
same_answer() {
	local want got
	want=$(clean)
	got=$(final_objective "$BATS_TEST_TMPDIR/$1.model/progress.tsv")
	echo "objective: fault-free $want, $1 $got"
	awk -v g="$(rel_gap "$got" "$want")" 'BEGIN { exit !(g < 1e-9 && g > -1e-9) }'
}

# model_parts RUN: the model's part numbers, in order, on one line.
model_parts() {
	ls "$BATS_TEST_TMPDIR/$1.model" | sed -n 's/^part-\([0-9]*\)\.psm$/\1/p' |
	    sort -n | tr '\n' ' '
}

@test "a server killed mid-job: another takes its place; the fault-free objective" {
	clean >/dev/null
	train killed
	fault killed 1 800 9
	finish killed
	[ "$STATUS" -eq 0 ]
	recovered killed 1 'killed by SIGKILL'
	grep -q '^ps-train: server 1 killed by SIGKILL at .* s; its replicas serve its keys, another server starts in its place$' \
	    "$BATS_TEST_TMPDIR/killed.out.err"
	same_answer killed
	# The last ring is servers 0 and 2; the model holds their parts.
	[ "$(model_parts killed)" = "0 2 " ]
	run ps-ckpt info "$BATS_TEST_TMPDIR/killed.model"
	assert_success
	assert_line "$(printf 'parts\t2')"
	grep -q 'server .* joined' "$BATS_TEST_TMPDIR/killed/coordinator.err"
}

@test "both first servers killed one after the other: replicas restored in between; the fault-free objective" {
	clean >/dev/null
	train twice
	fault twice 0 500 9
	# The replacement joined: a ring of two again, every key replicated.
	i=0
	until grep -q "ring version 4: server .* joined" \
	    "$BATS_TEST_TMPDIR/twice/coordinator.err"; do
		[ $i -lt 200 ] || { echo "no server joined"; false; }
		sleep 0.05
		i=$((i + 1))
	done
	line=$(($(wc -l <"$BATS_TEST_TMPDIR/twice/worker-0.tsv") + 100))
	fault twice 1 "$line" 9
	finish twice
	[ "$STATUS" -eq 0 ]
	recovered twice 0 'killed by SIGKILL'
	recovered twice 1 'killed by SIGKILL'
	same_answer twice
	[ "$(model_parts twice)" = "2 3 " ]
}

@test "a server stopped past the heartbeat timeout is killed and replaced; the fault-free objective" {
	clean >/dev/null
	PS_TRAIN_COORD_TIMEOUT=1000 train hung
	fault hung 0 800 STOP
	STOPPED=$VICTIM
	finish hung
	[ "$STATUS" -eq 0 ]
	recovered hung 0 'hung \(no heartbeat; killed\)'
	grep -q "server .* is dead: no heartbeat for " \
	    "$BATS_TEST_TMPDIR/hung/coordinator.err"
	# ps-train killed the stopped process: it is gone, not left stopped.
	gone_within 5 "$VICTIM"
	same_answer hung
}

@test "a server and a worker killed at once: both replaced; the fault-free objective within 1e-3" {
	clean >/dev/null
	train both
	at_line both 800
	kill -9 "$(cat "$BATS_TEST_TMPDIR/both/server-1.pid")" \
	    "$(cat "$BATS_TEST_TMPDIR/both/worker-1.pid")"
	finish both
	[ "$STATUS" -eq 0 ]
	recovered both 1 'killed by SIGKILL'
	grep -Eq '^ps-train: worker 1 killed by SIGKILL at .*; recovered in .* \(started again\)$' \
	    "$BATS_TEST_TMPDIR/both.out.err"
	# The promise for a worker started again (worker-fault.bats): 1e-3.
	# Seen here: 1e-8 to 7e-7.
	want=$(clean)
	got=$(final_objective "$BATS_TEST_TMPDIR/both.model/progress.tsv")
	echo "objective: fault-free $want, both $got, gap $(rel_gap "$got" "$want")"
	awk -v g="$(rel_gap "$got" "$want")" 'BEGIN { exit !(g < 1e-3 && g > -1e-3) }'
	grep -q 'ring version 4: server .* joined' "$BATS_TEST_TMPDIR/both/coordinator.err"
}

@test "without a replica, or for sgd, a killed server ends the job with 69, naming it" {
	train bare -R 0
	fault bare 1 300 9
	finish bare
	[ "$STATUS" -eq 69 ]
	grep -q '^ps-train: server 1 killed by SIGKILL$' "$BATS_TEST_TMPDIR/bare.out.err"
	[ ! -e "$BATS_TEST_TMPDIR/bare.model" ]
	train sgd -A sgd -W '--epochs 20 --batch 10'
	fault sgd 0 3 9
	finish sgd
	[ "$STATUS" -eq 69 ]
	grep -q '^ps-train: server 0 killed by SIGKILL$' "$BATS_TEST_TMPDIR/sgd.out.err"
}
