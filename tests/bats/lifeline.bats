#!/usr/bin/env bats
# lifeline.bats: a daemon started with -L (--lifeline) by a launcher that
# holds a pipe on its standard input goes when the launcher goes, however
# the launcher dies: by the pipe's end of file, and on Linux by the
# parent-death signal as well.

load helper

teardown() {
	ps_reap
}

# launch OUT CMD...: a launcher (a bash process) that holds a FIFO open
# for writing and starts CMD with the FIFO on its standard input and its
# own copy closed, as ps-train does; it then waits.  Sets LAUNCHER (its
# pid) and DAEMON (CMD's pid); CMD's stdout and stderr go to OUT, OUT.err.
launch() {
	local out=$1 fifo=$BATS_TEST_TMPDIR/lifeline.$RANDOM
	shift
	mkfifo "$fifo"
	bash -c 'fifo=$1 out=$2 then=$3; shift 3
		exec 9<>"$fifo"
		"$@" <"$fifo" 9>&- >"$out" 2>"$out.err" &
		echo $! >"$out.pid"
		eval "$then"' launcher "$fifo" "$out" "${THEN:-wait}" "$@" 3>&- &
	LAUNCHER=$!
	echo "$LAUNCHER" >>"$BATS_TEST_TMPDIR/pids"
	for _ in $(seq 100); do [ -s "$out.pid" ] && break; sleep 0.05; done
	DAEMON=$(cat "$out.pid")
	echo "$DAEMON" >>"$BATS_TEST_TMPDIR/pids"
}

@test "ps-server -L: gone within a second of its launcher's SIGKILL" {
	launch "$BATS_TEST_TMPDIR/server.out" ps-server -L -v
	ps_wait_line "$BATS_TEST_TMPDIR/server.out" '^listening ' 10
	kill -KILL "$LAUNCHER"
	gone_within 1 "$DAEMON"
}

@test "ps-server -L: the pipe's end of file alone shuts it down, saying why" {
	THEN='exec 9>&-; sleep 30' launch "$BATS_TEST_TMPDIR/server.out" \
	    ps-server -L -o "$BATS_TEST_TMPDIR/part.psm"
	ps_wait_line "$BATS_TEST_TMPDIR/server.out" '^listening ' 10
	gone_within 2 "$DAEMON"
	grep -q '^ps-server: the launcher is gone (standard input closed): shutting down$' \
	    "$BATS_TEST_TMPDIR/server.out.err"
	kill -0 "$LAUNCHER"		# the launcher still runs: no signal did it
	[ -f "$BATS_TEST_TMPDIR/part.psm" ]	# shut down as on SIGTERM
}

@test "ps-worker -L: a worker waiting on a stopped server exits 75 when its launcher goes" {
	printf '+1 1:1 2:1\n-1 1:1 3:1\n+1 2:1\n-1 3:1\n' >"$BATS_TEST_TMPDIR/tiny.libsvm"
	ps-shard-data -q -n 1 -o "$BATS_TEST_TMPDIR/train" "$BATS_TEST_TMPDIR/tiny.libsvm"
	start_servers 1
	kill -STOP $SERVER_PIDS
	THEN='sleep 1; exec 9>&-; wait $!; echo $? >"$out.status"' \
	    launch "$BATS_TEST_TMPDIR/worker.out" \
	    ps-worker -L -r "$BATS_TEST_TMPDIR/ring" "$BATS_TEST_TMPDIR/train-0.pss"
	gone_within 3 "$DAEMON"
	kill -CONT $SERVER_PIDS
	ps_wait_line "$BATS_TEST_TMPDIR/worker.out.status" '^75$' 2
	grep -q '^ps-worker: the launcher is gone (standard input closed)$' \
	    "$BATS_TEST_TMPDIR/worker.out.err"
}

@test "ps-ring serve -L: gone when its launcher's pipe closes" {
	THEN='exec 9>&-; sleep 30' launch "$BATS_TEST_TMPDIR/coord.out" \
	    ps-ring serve -L "$BATS_TEST_TMPDIR/ring"
	gone_within 2 "$DAEMON"
	grep -q 'the launcher is gone (standard input closed): shutting down$' \
	    "$BATS_TEST_TMPDIR/coord.out.err"
}

@test "-L with standard input not a pipe is a usage error, before anything is bound" {
	run ps-server -L </dev/null
	assert_failure 64
	assert_output --partial 'ps-server: --lifeline: standard input cannot be watched for the launcher (it must be a pipe, a socket or a terminal)'
	refute_output --partial listening
	run ps-worker -L -r /nonexistent x.pss </dev/null
	assert_failure 64
	run ps-ring serve -L "$BATS_TEST_TMPDIR/ring" </dev/null
	assert_failure 64
	[ ! -e "$BATS_TEST_TMPDIR/ring" ]
}
