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
