#!/usr/bin/env bats
# hostile.bats: frames that crashed a daemon, kept as regression cases.
# Each sends its bytes as found (hex, checksums right) to a fresh ps-server,
# with and without the -a handshake before them, and checks that the server
# refused them with an ERROR naming the reason, is still alive and still
# serves.

load helper

FRAMETOOL="$PSKIT_BUILDDIR/tests/tools/ps-frametool"

setup() {
	SECRET="$BATS_TEST_TMPDIR/secret"
	printf 'a secret for the hostile tests\n' >"$SECRET"
	chmod 600 "$SECRET"
}

teardown() {
	ps_reap
}

# start_server [OPTION...]: a server with the options; sets ADDR and PID.
start_server() {
	local line
	ps_start_daemon "$BATS_TEST_TMPDIR/server.out" ps-server "$@"
	PID=$PS_LAST_PID
	line=$(ps_wait_line "$BATS_TEST_TMPDIR/server.out" '^listening ' 10) || return 1
	ADDR=${line#listening }
}

# survives [-a] REASON HEX: a fresh server (with a secret given -a) is sent
# the frames HEX; it answers an ERROR matching REASON and lives on.
survives() {
	local auth=()
	if [ "$1" = -a ]; then
		auth=(-a "$SECRET"); shift
	fi
	start_server "${auth[@]}"
	run "$FRAMETOOL" "${auth[@]}" "$ADDR" hex <<<"$2"
	assert_success			# closed by the server, not crashed
	assert_line --regexp "^ERROR .*$1"
	kill -0 "$PID"
	run "$FRAMETOOL" "${auth[@]}" "$ADDR" stats
	assert_output --partial 'STAT rejected_frames 1'
	kill -0 "$PID"
}

# A PULL with CURRENT|NOKEYS and nkeys 1, no payload, no HELLO: the server
# indexed a NULL key list (round_pull_current) and died of SIGSEGV.
CURRENT_NOKEYS=50534b31010506000000000000000000010000000000000001000000010000000000000000000000000000000000000064cba09e

@test "a CURRENT pull with NOKEYS and a key count is refused, not a crash" {
	survives 'current pull: flag NOKEYS not expected' "$CURRENT_NOKEYS"
}

@test "the same frame after a correct handshake is refused, not a crash" {
	survives -a 'current pull: flag NOKEYS not expected' "$CURRENT_NOKEYS"
}

# HELLOs whose worker count is a fraction or NaN (aux 0 and 1: worker 1 of
# 1.5, worker 2 of NaN) passed the range checks, and the server wrote past
# the job's array of workers: a heap overflow that ASan reports and a
# plain build silently survives.
HELLO_FRACTION=50534b3101010200000000000000000000000000000000000000000000000000060000003000000030000000abceb77c569b5261000000000000f03f000000000000f83f0000000000000000000000000000f03f0000000000000000000000000000f03f
HELLO_NAN=50534b31010102000000000000000000000000000000000000000000000000000600000030000000300000009c148f11786e790e0000000000000040000000000000f87f0000000000000000000000000000f03f0000000000000000000000000000f03f

@test "a HELLO for worker 1 of 1.5 is refused, not a heap overflow" {
	survives 'malformed hello: worker 1 of 1.5' "$HELLO_FRACTION"
}

@test "a HELLO for worker 2 of NaN is refused, not a heap overflow" {
	survives 'malformed hello: worker 2 of nan' "$HELLO_NAN"
}

@test "a server that crashes leaves one line naming the signal, and ps-train names it" {
	local job=$BATS_TEST_TMPDIR/job
	# Without a replica the crash ends the job (server-fault.bats: with
	# one, the job goes on).
	ps_start_daemon "$BATS_TEST_TMPDIR/train.out" ps-train -q -A dbpg -R 0 -e 0 \
	    -m 1000000 -j "$job" -o "$BATS_TEST_TMPDIR/model" \
	    "$PSKIT_SRCDIR/scripts/sample/a9a-sample.libsvm"
	ps_wait_line "$job/worker-0.tsv" '^[0-9]' 20
	kill -SEGV "$(cat "$job/server-0.pid")"
	ps_wait_pid "$PS_LAST_PID" 20
	[ "$PS_WAIT_STATUS" -ne 0 ]
	[ ! -e "$BATS_TEST_TMPDIR/model" ]
	run cat "$BATS_TEST_TMPDIR/train.out.err"
	# A sanitizer build names __asan_init, its runtime linked in or not.
	if grep -q __asan_init "$(command -v ps-server)"; then
		# ASan keeps the signal for its own report (crash.h), and
		# exits with a status.
		assert_line --regexp '^ps-train: server 0 exited with status [0-9]+$'
		assert_output --partial 'AddressSanitizer'
		return
	fi
	assert_line 'ps-train: server 0 killed by SIGSEGV'
	assert_line --regexp '^server-0.err: ps-server: fatal signal SIGSEGV; last message: (PUSH|PULL) flags 0x[0-9a-f]{2} from 127\.0\.0\.1:[0-9]+$'
}
