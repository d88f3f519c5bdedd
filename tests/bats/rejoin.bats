#!/usr/bin/env bats
# rejoin.bats: a dbpg worker that dies mid-job (kill -9).  ps-train starts
# it again on its shard; the servers waited for it and it resumes from
# their weights, so at tau 0 the job ends after the same iterations at
# the fault-free objective to 1e-7 (rounding: most runs match every
# digit), and with delay and filters within 1e-3, worker 0's progress
# still one table.  A newton worker goes again from the start of the
# iteration it died in, with the same pushes: the job takes the same
# steps, to the same model.  A worker that does not come back within --rejoin ends the
# job, named; ps-train -r 0 keeps the old rule: a dead worker ends it.
# A worker started again while its first run, stopped as on a host cut
# off, still holds its connections takes their place at the servers.

load helper

# Jobs that run on well past the iterations a test kills a worker at (the
# default stop ends an a9a job near iteration 170, under a second; 1000
# iterations take 0.6 s, where a kill at line 650 under the suite's load
# could come late).
LONG=(-e 0 -m 2000)

setup_file() {
	export BATS_FILE_TMPDIR
	ps_data a9a >/dev/null
}

teardown() {
	ps_reap
}

# train RUN [OPTION...]: ps-train -A dbpg (unless OPTION has its own -A)
# on $DATA (a9a) in the background, job files in $BATS_TEST_TMPDIR/RUN,
# its stderr in RUN.err; sets TRAIN.
train() {
	local run=$1
	shift
	ps_start_daemon "$BATS_TEST_TMPDIR/$run.out" timeout 300 \
	    ps-train -q -j "$BATS_TEST_TMPDIR/$run" \
	    -o "$BATS_TEST_TMPDIR/$run.model" -A dbpg "$@" \
	    "$BATS_FILE_TMPDIR/${DATA:-a9a}"
	TRAIN=$PS_LAST_PID
}

# children: ps-train's children (under timeout), recorded for ps_reap.
children() {
	local tp
	tp=$(ps -o pid= --ppid "$TRAIN" | awk "NR == 1 { print \$1 }")
	ps -o pid= --ppid "$tp" | tee -a "$BATS_TEST_TMPDIR/pids" >/dev/null
}

# kill_worker RUN ID LINES: once worker 0 printed LINES lines, kill -9
# worker ID of ps-train's job RUN.
kill_worker() {
	local tsv="$BATS_TEST_TMPDIR/$1/worker-0.tsv" tp pid i=0
	until [ -f "$tsv" ] && [ "$(wc -l <"$tsv")" -ge "$3" ]; do
		[ "$i" -lt 1200 ] || { echo "no line $3 in $tsv" >&2; return 1; }
		sleep 0.05
		i=$((i + 1))
	done
	children
	tp=$(ps -o pid= --ppid "$TRAIN" | awk "NR == 1 { print \$1 }")
	for i in 1 2 3 4 5 6 7 8 9 10; do
		pid=$(ps -o pid=,args= --ppid "$tp" | awk -v id=" -i $2 " \
		    '/ps-worker/ && index($0, id) { print $1 }')
		[ -z "$pid" ] || break
		sleep 0.1	# just started again
	done
	[ -n "$pid" ] || { echo "no worker $2 running" >&2;
		ps -o pid,ppid,args --ppid "$tp" >&2
		tail -n 3 "$tsv" >&2
		cat "$BATS_TEST_TMPDIR/$1.out.err" >&2; return 1; }
	echo "kill -9 worker $2 (pid $pid) at line $3"
	kill -9 "$pid"
}

# finish RUN: ps-train exits 0; print its summary.
finish() {
	ps_wait_pid "$TRAIN" 300 || return 1
	cat "$BATS_TEST_TMPDIR/$1.out.err"
	[ "$PS_WAIT_STATUS" -eq 0 ]
}

# one_table TSV: one header, then iterations 0, 1, 2, ... without gaps.
one_table() {
	awk -F'\t' 'NR == 1 { if ($1 != "iter") exit 1; next }
	    $1 != NR - 2 { print "line " NR ": iteration " $1; exit 1 }' "$1"
}

@test "a worker killed at tau 0 is started again and the job ends at the fault-free objective" {
	train clean "${LONG[@]}"
	finish clean
	want=$(final_objective "$BATS_TEST_TMPDIR/clean.model/progress.tsv")
	train killed "${LONG[@]}"
	kill_worker killed 1 200
	finish killed
	grep -Eq '^ps-train: worker 1 killed by SIGKILL at [0-9.]+ s; recovered in [0-9.]+ s \(started again\)$' \
	    "$BATS_TEST_TMPDIR/killed.out.err"
	got=$(final_objective "$BATS_TEST_TMPDIR/killed.model/progress.tsv")
	gap=$(rel_gap "$got" "$want")
	echo "fault-free $want killed $got gap $gap"
	# The same iterations; the objective to rounding (the restarted
	# worker's margins are summed afresh): most runs match every digit.
	[ "$(tsv_last "$BATS_TEST_TMPDIR/killed.model/progress.tsv" iter)" = \
	    "$(tsv_last "$BATS_TEST_TMPDIR/clean.model/progress.tsv" iter)" ]
	awk -v g="$gap" 'BEGIN { exit !(g < 1e-7 && g > -1e-7) }'
	one_table "$BATS_TEST_TMPDIR/killed.model/progress.tsv"
	grep -q 'went away.*waiting up to 30 s' \
	    "$BATS_TEST_TMPDIR"/killed/server-0.err
}

@test "a worker killed in pass 10 runs again from pass 8's voting iteration; the fault-free objective" {
	# Pass 10's start skips the periodic reset of the KKT active set when
	# pass 9 began with all features (dbpg.c, rule 4): a worker restarted
	# there needs pass 8's agreed vote (rule 6).  40 blocks of 300k rows,
	# one server (a light job beside the suite's others): pass 10
	# (iterations 400-439) lasts 0.06 s or more, so that a kill once
	# iteration 400 is printed lands in it even on a loaded machine.
	"$PSKIT_BUILDDIR/tests/bench/ps-gen-libsvm" -r 300000 -f 300000 \
	    -z 10 -s 7 >"$BATS_FILE_TMPDIR/gen300k" 2>/dev/null
	local opts=(-s 1 -b 40 -e 0 -m 480 -W -v) job pid r t0 i=0
	DATA=gen300k train clean "${opts[@]}"
	finish clean
	DATA=gen300k train killed "${opts[@]}"
	job=$BATS_TEST_TMPDIR/killed
	until [ -s "$job/worker-1.pid" ] && [ -f "$job/worker-0.tsv" ]; do
		[ "$((i += 1))" -lt 3000 ] || { echo "no worker 1" >&2; return 1; }
		sleep 0.01
	done
	pid=$(cat "$job/worker-1.pid")
	until [ "$(wc -l <"$job/worker-0.tsv")" -ge 402 ]; do
		[ "$((i += 1))" -lt 6000 ] || { echo "no line 402" >&2; return 1; }
		sleep 0.01
	done
	kill -9 "$pid"
	finish killed
	read -r r t0 < <(sed -n 's/.*resume this worker at iteration \([0-9]*\); running iterations from \([0-9]*\) again.*/\1 \2/p' \
	    "$job/worker-1.err")
	echo "resumed at $r, from $t0"
	[ "$(( (r - 1) / 40 ))" -eq 10 ]
	[ "$t0" -eq 321 ]
	[ "$(tsv_last "$BATS_TEST_TMPDIR/killed.model/progress.tsv" iter)" = \
	    "$(tsv_last "$BATS_TEST_TMPDIR/clean.model/progress.tsv" iter)" ]
	gap=$(rel_gap "$(final_objective "$BATS_TEST_TMPDIR/killed.model/progress.tsv")" \
	    "$(final_objective "$BATS_TEST_TMPDIR/clean.model/progress.tsv")")
	echo "gap $gap"
	awk -v g="$gap" 'BEGIN { exit !(g < 1e-7 && g > -1e-7) }'
}

@test "worker 0 killed twice under tau 2 with filters: within 1e-3, its progress one table" {
	local opts=(-t 2 -F kkt,sigmod,keycache,lz4 -T "$BATS_FILE_TMPDIR/a9a.t"
	    -e 0 -m 2000)
	ps_data a9a.t >/dev/null
	train clean "${opts[@]}"
	finish clean
	want=$(final_objective "$BATS_TEST_TMPDIR/clean.model/progress.tsv")
	train killed "${opts[@]}"
	kill_worker killed 0 250
	kill_worker killed 0 650
	finish killed
	[ "$(grep -c 'worker 0 killed by SIGKILL at .*; recovered in ' \
	    "$BATS_TEST_TMPDIR/killed.out.err")" -eq 2 ]
	tsv="$BATS_TEST_TMPDIR/killed.model/progress.tsv"
	got=$(final_objective "$tsv")
	gap=$(rel_gap "$got" "$want")
	auc=$(tail -n 1 "$tsv" | cut -f 9)
	echo "fault-free $want killed $got gap $gap test auc $auc"
	awk -v g="$gap" -v a="$auc" \
	    'BEGIN { exit !(g < 1e-3 && g > -1e-3 && a > 0.89) }'
	one_table "$tsv"
}

@test "a worker that does not come back within --rejoin ends the job, named" {
	ps-shard-data -q -n 2 -o "$BATS_TEST_TMPDIR/train" "$BATS_FILE_TMPDIR/a9a"
	start_servers 2
	for k in 0 1; do
		ps_start_daemon "$BATS_TEST_TMPDIR/w$k.tsv" ps-worker \
		    -r "$BATS_TEST_TMPDIR/ring" -i $k -n 2 -b 14 --rejoin 1 --timeout 30 \
		    "${LONG[@]}" "$BATS_TEST_TMPDIR/train-$k.pss"
		eval "w$k=$PS_LAST_PID"
	done
	ps_wait_line "$BATS_TEST_TMPDIR/w0.tsv" '^200	' 60
	kill -9 "$w1"
	ps_wait_pid "$w0" 30
	cat "$BATS_TEST_TMPDIR/w0.tsv.err"
	[ "$PS_WAIT_STATUS" -eq 69 ]
	grep -q 'worker 1 went away [0-9.]* s ago and did not come back' \
	    "$BATS_TEST_TMPDIR/w0.tsv.err"
}

@test "ps-train -r 0: a worker that dies ends the job, naming it" {
	train killed -r 0 "${LONG[@]}"
	kill_worker killed 1 200
	ps_wait_pid "$TRAIN" 120
	cat "$BATS_TEST_TMPDIR/killed.out.err"
	[ "$PS_WAIT_STATUS" -ne 0 ]
	grep -q 'worker 1 (127.0.0.1:[0-9]*) went away' \
	    "$BATS_TEST_TMPDIR/killed.out.err"
	! grep -q 'started again' "$BATS_TEST_TMPDIR/killed.out.err"
	[ ! -e "$BATS_TEST_TMPDIR/killed.model" ]
}

@test "a worker started again while its stopped run still holds its connections takes its place" {
	local s="$PSKIT_SRCDIR/scripts/sample/a9a-sample.libsvm" w=(-b 14 -e 0 -m 6000)
	ps-shard-data -q -n 2 -o "$BATS_TEST_TMPDIR/train" "$s"
	start_servers 2
	for k in 0 1; do
		ps_start_daemon "$BATS_TEST_TMPDIR/w$k.tsv" ps-worker -r "$BATS_TEST_TMPDIR/ring" \
		    -i $k -n 2 --rejoin 30 "${w[@]}" "$BATS_TEST_TMPDIR/train-$k.pss"
		eval "w$k=$PS_LAST_PID"
	done
	ps_wait_line "$BATS_TEST_TMPDIR/w0.tsv" '^500	' 60
	# Stopped, as on a host cut off: no FIN, its connections stand.
	kill -STOP "$w1"
	run timeout 60 ps-worker -r "$BATS_TEST_TMPDIR/ring" -i 1 -n 2 \
	    --rejoin 30 "${w[@]}" "$BATS_TEST_TMPDIR/train-1.pss"
	assert_success
	ps_wait_pid "$w0" 60
	[ "$PS_WAIT_STATUS" -eq 0 ]
	grep -q 'worker 1 (.*) went away: replaced by a new connection from ' \
	    "$BATS_TEST_TMPDIR"/server-*.out.err
	# The same job without the stop.
	ps_reap
	start_servers 2
	ps_start_daemon "$BATS_TEST_TMPDIR/c0.tsv" ps-worker -r "$BATS_TEST_TMPDIR/ring" \
	    -i 0 -n 2 "${w[@]}" "$BATS_TEST_TMPDIR/train-0.pss"
	run timeout 60 ps-worker -r "$BATS_TEST_TMPDIR/ring" -i 1 -n 2 "${w[@]}" \
	    "$BATS_TEST_TMPDIR/train-1.pss"
	assert_success
	ps_wait_pid "$PS_LAST_PID" 60
	got=$(final_objective "$BATS_TEST_TMPDIR/w0.tsv")
	want=$(final_objective "$BATS_TEST_TMPDIR/c0.tsv")
	echo "objective $got, without the stop $want"
	[ "$(tsv_last "$BATS_TEST_TMPDIR/w0.tsv" iter)" = "$(tsv_last "$BATS_TEST_TMPDIR/c0.tsv" iter)" ]
	awk -v g="$(rel_gap "$got" "$want")" 'BEGIN { exit !(g < 1e-7 && g > -1e-7) }'
}

# same_run CLEAN KILLED: the two jobs' progress tables have the same
# iterations with the same objectives (to rounding: the servers' l1
# parts are added in the order they answer), and their models the same
# weights.
same_run() {
	local a="$BATS_TEST_TMPDIR/$1.model" b="$BATS_TEST_TMPDIR/$2.model"
	paste "$a/progress.tsv" "$b/progress.tsv" | awk -F'\t' -v n="$(head -n 1 "$a/progress.tsv" | awk -F'\t' '{ print NF }')" '
	    NR > 1 { k++; d = $3 - $(n + 3); if (d < 0) d = -d
		if ($1 != $(n + 1) || d > 1e-12 * $3) { print "iteration " $1 ": " $3 " and " $(n + 3); bad = 1 } }
	    END { exit bad || k < 2 }'
	[ "$(wc -l <"$a/progress.tsv")" = "$(wc -l <"$b/progress.tsv")" ]
	run ps-ckpt diff "$a" "$b"
	assert_success
	assert_line --index 0 $'changed\t0'
	assert_line --index 2 $'max_abs_distance\t0'
}

@test "newton: workers 1 and 0 killed mid-job are started again; the same steps to the same model" {
	local DATA=spamassassin.train opts=(-A newton -e 0 -m 14)
	ps_data spamassassin.train >/dev/null
	train clean "${opts[@]}"
	finish clean
	train killed "${opts[@]}"
	kill_worker killed 1 3
	kill_worker killed 0 8
	finish killed
	[ "$(grep -c 'worker [01] killed by SIGKILL at .*; recovered in ' \
	    "$BATS_TEST_TMPDIR/killed.out.err")" -eq 2 ]
	same_run clean killed
	one_table "$BATS_TEST_TMPDIR/killed.model/progress.tsv"
}
