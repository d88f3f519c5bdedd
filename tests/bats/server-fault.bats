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
# model holds the parts of the last ring's servers.  A server and a
# worker killed at once are both replaced, within 1e-3 as for a worker
# alone (worker-fault.bats).  An sgd job survives the same faults with
# its optimiser state on the replicas and ends within 0.005 of the
# fault-free job's test AUC, every epoch run.  Without a replica (-R 0)
# a server's death ends the job with 69, naming it.

load helper

setup_file() {
	export BATS_FILE_TMPDIR
	ps_data a9a >/dev/null
	ps_data a9a.t >/dev/null
}

teardown() {
	[ -z "${STOPPED:-}" ] || kill -CONT "$STOPPED" 2>/dev/null || true
	ps_reap
}

# train RUN [OPTION...]: ps-train on a9a in the background, job files in
# $BATS_TEST_TMPDIR/RUN, its stderr in RUN.out.err; sets TRAIN.  A dbpg
# job runs 4000 iterations (about 2.6 s alone: at 2000, a kill at line 800
# under the suite's load once came after the job's end), not to its stop
# rule: a ring change may fall
# in the pass that would have stopped the job, which then does not count
# (stop.c), and the job stops passes later with another objective.  With
# a fixed count, the objective is the fault-free one's (to 1e-9) whenever
# no acknowledged update was lost or applied twice.
train() {
	local run=$1
	shift
	rm -rf "$BATS_TEST_TMPDIR/$run"
	ps_start_daemon "$BATS_TEST_TMPDIR/$run.out" timeout 90 \
	    ps-train -q -j "$BATS_TEST_TMPDIR/$run" -A dbpg -e 0 -m 4000 \
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

# joined RUN: wait (up to 10 s) until a replacement joined job RUN's ring;
# else show what the coordinator, ps-train and the workers said.
joined() {
	local i=0 f
	until grep -q "ring version 4: server .* joined" \
	    "$BATS_TEST_TMPDIR/$1/coordinator.err"; do
		if [ $i -ge 200 ]; then
			echo "no server joined"
			for f in "$BATS_TEST_TMPDIR/$1.out.err" \
			    "$BATS_TEST_TMPDIR/$1"/coordinator.err \
			    "$BATS_TEST_TMPDIR/$1"/worker-*.err; do
				sed "s|^|${f##*/}: |" "$f"
			done
			return 1
		fi
		sleep 0.05
		i=$((i + 1))
	done
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
	joined twice
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

@test "without a replica a killed server ends the job with 69, naming it; sgd too" {
	train bare -R 0
	fault bare 1 300 9
	finish bare
	[ "$STATUS" -eq 69 ]
	grep -q '^ps-train: server 1 killed by SIGKILL$' "$BATS_TEST_TMPDIR/bare.out.err"
	[ ! -e "$BATS_TEST_TMPDIR/bare.model" ]
	train sgd -R 0 -A sgd -W '--epochs 20 --batch 10'
	fault sgd 0 3 9
	finish sgd
	[ "$STATUS" -eq 69 ]
	grep -q '^ps-train: server 0 killed by SIGKILL$' "$BATS_TEST_TMPDIR/sgd.out.err"
}

# An sgd job's options: mini-batches of 50 rows, so that the job (about
# 13,600 mini-batches, 200 progress lines) lasts long enough for a
# replacement server to join it.
SGD="--tsv -A sgd -W --batch=50 -T $BATS_FILE_TMPDIR/a9a.t"

# sgd_auc RUN: the test AUC of sgd job RUN (its stderr summary).
sgd_auc() {
	awk -F'\t' '$1 == "test_auc" { print $2 }' "$BATS_TEST_TMPDIR/$1.out.err"
}

# sgd_clean: the fault-free sgd job's test AUC, once per file.
sgd_clean() {
	local f="$BATS_FILE_TMPDIR/sgd-clean"
	if [ ! -f "$f" ]; then
		train sgdclean $SGD
		finish sgdclean >/dev/null
		[ "$STATUS" -eq 0 ] || return 1
		sgd_auc sgdclean >"$f"
	fi
	cat "$f"
}

# sgd_same RUN: job RUN exited 0 with every epoch run, and its test AUC
# is the fault-free one's within 0.005.
sgd_same() {
	local want got
	[ "$STATUS" -eq 0 ]
	grep -qx "$(printf 'epochs\t20')" "$BATS_TEST_TMPDIR/$1.out.err"
	want=$(sgd_clean)
	got=$(sgd_auc "$1")
	echo "test AUC: fault-free $want, $1 $got"
	[ -n "$got" ] && [ -n "$want" ]
	awk -v a="$got" -v b="$want" 'BEGIN { exit !(a - b < 0.005 && b - a < 0.005) }'
}

@test "sgd: a server killed mid-job: another takes its place; the fault-free test AUC" {
	sgd_clean >/dev/null
	train sgdkill $SGD
	fault sgdkill 1 40 9
	finish sgdkill
	sgd_same sgdkill
	recovered sgdkill 1 'killed by SIGKILL'
	grep -q 'ring version 4: server .* joined' "$BATS_TEST_TMPDIR/sgdkill/coordinator.err"
	[ "$(model_parts sgdkill)" = "0 2 " ]
	# The saved parts keep the optimiser state (z, n) of every key.
	ps-ckpt info "$BATS_TEST_TMPDIR/sgdkill.model" | grep -q '^optimizer	ftrl$'
}

@test "sgd: both first servers killed one after the other, and a server stopped: the fault-free test AUC" {
	sgd_clean >/dev/null
	train sgdtwice $SGD
	fault sgdtwice 0 40 9
	joined sgdtwice
	line=$(($(wc -l <"$BATS_TEST_TMPDIR/sgdtwice/worker-0.tsv") + 20))
	fault sgdtwice 1 "$line" 9
	finish sgdtwice
	sgd_same sgdtwice
	recovered sgdtwice 0 'killed by SIGKILL'
	recovered sgdtwice 1 'killed by SIGKILL'
	PS_TRAIN_COORD_TIMEOUT=1000 train sgdhung $SGD
	fault sgdhung 0 60 STOP
	STOPPED=$VICTIM
	finish sgdhung
	sgd_same sgdhung
	recovered sgdhung 0 'hung \(no heartbeat; killed\)'
}
