#!/usr/bin/env bats
# train-live.bats: every ps-train job runs on its own coordinator: its
# first line on stderr names the job directory and the coordinator,
# ps-ring status and watch show the running job's servers and workers
# given either (with -a, the secret from the job directory), nothing it
# started outlives it (done, failed or stopped), and a job with 2
# servers or more keeps one replica by default.

load helper

SAMPLE="$PSKIT_SRCDIR/scripts/sample/a9a-sample.libsvm"

setup() {
	JOB="$BATS_TEST_TMPDIR/job"
	TRAIN=
	COORD_AUTH=()			# ps-ring's -a for wait_status (helper.bash)
}

# The job's processes, by the PIDs ps-train wrote: ps-train stops them
# itself on SIGTERM; any still there after 10 s are killed.
teardown() {
	local pid i=0
	if [ -n "$TRAIN" ] && kill -0 "$TRAIN" 2>/dev/null; then
		kill -TERM "$TRAIN" 2>/dev/null || true
		while kill -0 "$TRAIN" 2>/dev/null && [ "$i" -lt 200 ]; do
			sleep 0.05
			i=$((i + 1))
		done
	fi
	for pid in $(cat "$JOB"/*.pid 2>/dev/null); do
		kill -KILL "$pid" 2>/dev/null || true
	done
	ps_reap
}

# train [OPTION...]: a long ps-train job on the sample in the background
# (at most 120 s), job files in $JOB, stderr in $BATS_TEST_TMPDIR/t.out.err;
# sets TRAIN and, once the first line names it, COORD.
train() {
	local line
	ps_start_daemon "$BATS_TEST_TMPDIR/t.out" timeout 120 \
	    ps-train -q -j "$JOB" -A dbpg -e 0 -m 100000000 "$@" \
	    -o "$BATS_TEST_TMPDIR/model" "$SAMPLE"
	TRAIN=$PS_LAST_PID
	line=$(ps_wait_line "$BATS_TEST_TMPDIR/t.out.err" '^ps-train: job ' 20) ||
		return 1
	echo "$line"
	COORD=$(echo "$line" | sed -n 's/.*, coordinator \([0-9.:]*\) .*/\1/p')
	[ -n "$COORD" ]
}

# wait_live: poll the coordinator's status (wait_status, helper.bash)
# until 2 servers and 2 workers are live.
wait_live() {
	wait_status '$1 == "ring" && $5 == 2 && $6 == 2' 20
}

# lists_job: the status in $output shows the job: a ring of 2 servers,
# both live, and 2 live workers.
lists_job() {
	assert_success
	assert_line --regexp '^ring	[0-9]+	[0-9]+	2	2	2$'
	[ "$(echo "$output" | grep -Ec '^server	[01]	127\.0\.0\.1:[0-9]+	live	')" -eq 2 ]
	[ "$(echo "$output" | grep -Ec '^worker	[01]	127\.0\.0\.1:[0-9]+	live	')" -eq 2 ]
}

# none_alive: no process whose PID ps-train wrote in $JOB still runs.  A
# zombie has ended: once ps-train is gone, reaping it is init's (a loaded
# machine's init may be a moment late: CI once saw one here).
none_alive() {
	local f pid st
	for f in "$JOB"/*.pid; do
		pid=$(cat "$f")
		st=$(ps -o stat= -p "$pid" 2>/dev/null) || continue
		if [ "${st#Z}" = "$st" ]; then
			echo "${f##*/}: $pid still runs: $(ps -o args= -p "$pid")"
			return 1
		fi
	done
}

@test "a running job names its coordinator; status by address and by job directory lists its servers and workers" {
	train -s 2 -w 2
	assert_equal "$(head -n 1 "$BATS_TEST_TMPDIR/t.out.err")" \
	    "ps-train: job $JOB, coordinator $COORD (ps-ring status -a $JOB/secret -C $COORD)"
	[ "$(cat "$JOB/coordinator")" = "$COORD" ]
	COORD_AUTH=(-a "$JOB/secret")
	wait_live
	run ps-ring status -a "$JOB/secret" -C "$COORD"
	lists_job
	run ps-ring status "$JOB"
	lists_job
	run ps-ring status -j "$JOB"
	assert_success
	assert_line --regexp '^\{"type":"worker","id":1,"addr":"127\.0\.0\.1:[0-9]+","state":"live",'
	run ps-ring watch -n 1 "$JOB"
	assert_success
	assert_line --regexp '^worker +0 +127\.0\.0\.1:[0-9]+ +live '
	# Stopped by SIGTERM (or Ctrl-C), it ends every process it started.
	kill -TERM "$TRAIN"
	ps_wait_pid "$TRAIN" 20
	[ "$PS_WAIT_STATUS" -ne 0 ]
	[ -f "$JOB/coordinator.pid" ]
	none_alive
	[ ! -e "$JOB/coordinator" ]
	run ps-ring status "$JOB"
	assert_failure 66
}

@test "by default the job's secret is in its directory, mode 0600, and status jobdir proves it; a stranger gets nothing" {
	train -s 2 -w 2
	[ "$(stat -c %a "$JOB/secret")" = 600 ]
	grep -q "(ps-ring status -a $JOB/secret -C $COORD)" "$BATS_TEST_TMPDIR/t.out.err"
	COORD_AUTH=(-a "$JOB/secret")
	wait_live
	run ps-ring status "$JOB"
	assert_success
	assert_line --regexp '^worker	1	127\.0\.0\.1:[0-9]+	live	'
	run ps-ring status -C "$COORD"
	assert_failure 77
	run ps-ring status -a "$JOB/secret" -C "$COORD"
	assert_success
	# A local process without the secret: no stats from a server, no
	# HELLO taken (ps-server -a; pskit(7), Security).
	server=$(ps-ring status "$JOB" | awk -F'\t' '$1 == "server" { print $3; exit }')
	run sh -c 'printf "stats\r\n" | timeout 5 nc -q 2 "${1%:*}" "${1##*:}"' sh "$server"
	refute_output --partial STAT
}

@test "--no-auth: no secret, and status by address needs none" {
	train --no-auth -s 2 -w 2
	[ ! -e "$JOB/secret" ]
	grep -q "(ps-ring status -C $COORD)" "$BATS_TEST_TMPDIR/t.out.err"
	wait_live
	run ps-ring status -C "$COORD"
	lists_job
}

@test "after a job, done or failed, no process it started remains" {
	run timeout 120 ps-train -q -j "$JOB" -m 30 -o "$BATS_TEST_TMPDIR/model" "$SAMPLE"
	assert_success
	assert_line --index 0 --regexp "^ps-train: job $JOB, coordinator 127\.0\.0\.1:[0-9]+ "
	# ps-train itself, ps-shard-data (emptied once it is done), the
	# coordinator, 2 servers, 2 workers
	[ "$(ls "$JOB"/*.pid | wc -l)" -eq 7 ]
	[ ! -s "$JOB/shard-data.pid" ]
	none_alive
	[ ! -e "$JOB/coordinator" ]
	# A worker that dies with -r 0 fails the job; the coordinator goes too.
	JOB="$BATS_TEST_TMPDIR/job2"
	train -r 0 -s 2 -w 2
	ps_wait_line "$JOB/worker-0.tsv" '^20	' 20
	kill -9 "$(cat "$JOB/worker-1.pid")"
	ps_wait_pid "$TRAIN" 20
	[ "$PS_WAIT_STATUS" -ne 0 ]
	none_alive
}

@test "a second SIGTERM while ps-train stops its job does not cut the clean-up short" {
	# timeout(1) sends its TERM both to ps-train and to its process
	# group: ps-train gets two, the second while it handles the first.
	train -s 2 -w 2
	COORD_AUTH=(-a "$JOB/secret")
	wait_live
	local pid
	pid=$(cat "$JOB/ps-train.pid")
	kill -TERM "$pid"
	sleep 0.003
	kill -TERM "$pid"
	ps_wait_pid "$TRAIN" 20
	[ "$PS_WAIT_STATUS" -ne 0 ]
	none_alive
	[ ! -e "$JOB/coordinator" ]
	grep -q "^ps-train: job files kept in $JOB\$" "$BATS_TEST_TMPDIR/t.out.err"
}

# A trap runs under the redirections of the compound command it comes in:
# a TERM inside "{ read -r v <F; } 2>/dev/null" lost both ps-train's
# "terminated" and its clean-up's messages (one CI run in many).
@test "no compound command in the scripts sends stderr away, where a signal's messages would go" {
	run grep -nE '^[^#]*(^|[[:space:];])(\}|done|fi|esac)[[:space:]]*2>' \
	    "$PSKIT_SRCDIR/scripts/ps-train" "$PSKIT_SRCDIR/scripts/ps-retrain"
	assert_output ''
}

@test "a job on 2 servers or more keeps one replica by default, the ones -R asks for else" {
	local args
	for args in '-s 2:1' '-s 3:1' '-s 2 -R 0:0' '-s 3 -R 2:2' '-s 1:0' \
	    '-s 2 -A sgd -W --epochs=2:1' '-s 3 -R 2 -A sgd -W --epochs=2:2'; do
		rm -rf "$BATS_TEST_TMPDIR/model"
		# shellcheck disable=SC2086
		run timeout 120 ps-train -q -m 30 ${args%:*} -o "$BATS_TEST_TMPDIR/model" "$SAMPLE"
		echo "$args: $output"
		assert_success
		grep -qx "replicas ${args#*:}" "$BATS_TEST_TMPDIR/model/ring"
	done
	run ps-train -h
	assert_line --partial '(default 1 with 2 servers or'
}

# bats test_tags=timing
@test "kill -9 of ps-train: every daemon of the job is gone within a second, and its temporary directory soon after" {
	local tmp=$BATS_TEST_TMPDIR/tmp d p i=0
	mkdir "$tmp"
	ps_start_daemon "$BATS_TEST_TMPDIR/t.out" env TMPDIR="$tmp" \
	    ps-train -q -A dbpg -e 0 -m 100000000 -o "$BATS_TEST_TMPDIR/model" "$SAMPLE"
	until d=$(ls -d "$tmp"/ps-train.* 2>/dev/null) && [ -f "$d/worker-1.pid" ]; do
		[ "$i" -lt 400 ] || return 1
		sleep 0.05
		i=$((i + 1))
	done
	cat "$d"/*.pid >"$BATS_TEST_TMPDIR/job.pids"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/job.pids")" -eq 6 ]
	kill -KILL "$(cat "$d/ps-train.pid")"
	for p in $(cat "$BATS_TEST_TMPDIR/job.pids"); do
		gone_within 1 "$p"
	done
	i=0
	while [ -e "$d" ]; do
		[ "$i" -lt 120 ] || { ls -la "$d"; return 1; }
		sleep 0.05
		i=$((i + 1))
	done
}

@test "the next run removes the directory a killed run left, and only such" {
	local tmp=$BATS_TEST_TMPDIR/tmp dead
	mkdir -p "$tmp/ps-train.dead1" "$tmp/ps-train.live1" "$tmp/ps-train.other"
	sh -c 'exit 0' & dead=$!
	wait "$dead"
	echo "$dead" >"$tmp/ps-train.dead1/ps-train.pid"
	echo $$ >"$tmp/ps-train.live1/ps-train.pid"	# bats: alive, not ps-train
	run env TMPDIR="$tmp" ps-train -q -m 5 -o "$BATS_TEST_TMPDIR/model" "$SAMPLE"
	assert_success
	assert_line "ps-train: removed '$tmp/ps-train.dead1', left by a run that was killed"
	assert_line "ps-train: removed '$tmp/ps-train.live1', left by a run that was killed"
	[ ! -e "$tmp/ps-train.dead1" ] && [ ! -e "$tmp/ps-train.live1" ]
	[ -d "$tmp/ps-train.other" ]	# no ps-train.pid: not ours to judge
	[ "$(ls "$tmp")" = ps-train.other ]
}

@test "a job directory kept with -k outlives the next run" {
	local tmp=$BATS_TEST_TMPDIR/tmp kept
	mkdir "$tmp"
	run env TMPDIR="$tmp" ps-train -q -k -m 2 -o "$BATS_TEST_TMPDIR/m1" "$SAMPLE"
	assert_success
	kept=$(ls -d "$tmp"/ps-train-kept.*)
	assert_line "ps-train: job files kept in $kept"
	[ -f "$kept/worker-0.tsv" ] && [ -f "$kept/ps-train.pid" ]
	run env TMPDIR="$tmp" ps-train -q -m 2 -o "$BATS_TEST_TMPDIR/m2" "$SAMPLE"
	assert_success
	refute_output --partial removed
	[ "$(ls "$tmp")" = "${kept##*/}" ] && [ -f "$kept/worker-0.tsv" ]
}

@test "a job directory used again (-j) gives the new job's model alone: no part, progress line or summary of the last" {
	local job=$BATS_TEST_TMPDIR/job
	run ps-train -q -s 3 -m 4 -j "$job" -o "$BATS_TEST_TMPDIR/m3" "$SAMPLE"
	assert_success
	run ps-train -q --tsv -s 2 -m 3 -j "$job" -o "$BATS_TEST_TMPDIR/m2" "$SAMPLE"
	assert_success
	assert_line --regexp '^iterations	4$'	# 0 to 3
	[ "$(ls "$BATS_TEST_TMPDIR/m2")" = "$(printf 'part-0.psm\npart-1.psm\nprogress.tsv\nring')" ]
	run ps-ckpt info "$BATS_TEST_TMPDIR/m2"
	assert_success
	assert_line --regexp '^servers	2$'
	# A header and iterations 0 to 3, once each.
	[ "$(cut -f1 "$BATS_TEST_TMPDIR/m2/progress.tsv" | tr '\n' ' ')" = "iter 0 1 2 3 " ]
	[ "$(grep -c '^iter' "$job/worker-0.tsv")" -eq 1 ]
	run ps-train -q -j "$job" -I "$job/model" -o "$BATS_TEST_TMPDIR/m4" "$SAMPLE"
	[ "$status" -eq 64 ]
	assert_output --partial "is in the job directory's model/"
	[ ! -e "$BATS_TEST_TMPDIR/m4" ]
}
