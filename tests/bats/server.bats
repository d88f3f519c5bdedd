#!/usr/bin/env bats
# server.bats: ps-server as a daemon: start-up, the text stats command,
# malformed frames (each closes only that connection, with a logged reason),
# signals and command-line errors.  The limits (-m, -c) are limits.bats'.

load helper

FRAMETOOL="$PSKIT_BUILDDIR/tests/tools/ps-frametool"

setup() {
	ps_start_daemon "$BATS_TEST_TMPDIR/server.out" ps-server -v -o "$BATS_TEST_TMPDIR/part.psm"
	SERVER_PID=$PS_LAST_PID
	line=$(ps_wait_line "$BATS_TEST_TMPDIR/server.out" '^listening ' 10)
	ADDR=${line#listening }
	HOST=${ADDR%:*}
	PORT=${ADDR##*:}
}

teardown() {
	ps_reap
}

stats() {
	printf 'stats\r\nquit\r\n' | timeout 5 nc -N "$HOST" "$PORT"
}

@test "ps-server listens on loopback and prints the port" {
	[[ "$ADDR" =~ ^127\.0\.0\.1:[0-9]+$ ]]
	[ "$PORT" -gt 0 ]
}

@test "stats answers STAT lines ending with END" {
	run stats
	assert_success
	assert_line --partial 'STAT keys 0'
	assert_line --partial 'STAT job_active 0'
	assert_line --regexp '^STAT pid [0-9]+'
	assert_line --regexp '^END'
}

# bad_frame KIND: send one malformed frame; the server must close that
# connection, log the reason after the peer's address, and keep serving.
bad_frame() {
	run "$FRAMETOOL" "$ADDR" "$1"
	assert_success			# the server closed the connection
	ps_wait_line "$BATS_TEST_TMPDIR/server.out.err" \
	    "^ps-server: 127\.0\.0\.1:[0-9]+: .*$2" 5
	kill -0 "$SERVER_PID"
	run stats
	assert_line --partial 'STAT rejected_frames 1'
}

@test "a frame with a bad magic is refused" {
	bad_frame bad-magic 'magic'
}

@test "a frame with an unsupported version is refused" {
	bad_frame bad-version 'version'
}

@test "a frame with a bad header checksum is refused" {
	bad_frame bad-header-crc 'checksum'
}

@test "a frame with a bad payload checksum is refused" {
	bad_frame bad-payload-crc 'checksum'
}

@test "an oversized frame is refused before it is read" {
	bad_frame oversize 'too large'
}

@test "a truncated frame is refused" {
	bad_frame truncated 'truncated'
}

@test "a frame of unknown type is refused" {
	bad_frame unknown-type 'unknown message type'
}

@test "a key list to cache without its keys is refused (it crashed the server)" {
	bad_frame bad-keycache 'key list to cache without keys'
}

@test "binary garbage is refused" {
	run "$FRAMETOOL" "$ADDR" garbage
	assert_success
	kill -0 "$SERVER_PID"
	run stats
	assert_line --partial 'STAT job_active 0'
}

@test "a well-formed hello is answered and the server keeps the job open" {
	run "$FRAMETOOL" "$ADDR" good-hello
	assert_output --partial 'HELLO_OK'
}

@test "SIGTERM ends the server cleanly and writes its model part" {
	kill -TERM "$SERVER_PID"
	ps_wait_pid "$SERVER_PID" 5
	[ "$PS_WAIT_STATUS" -eq 0 ]
	[ -s "$BATS_TEST_TMPDIR/part.psm" ]
	run ps-ckpt info "$BATS_TEST_TMPDIR/part.psm"
	assert_success
}

@test "ps-server rejects bad command lines with 64" {
	run ps-server -c nope
	assert_failure 64
	assert_output --partial 'usage: ps-server'
	run ps-server extra
	assert_failure 64
	run ps-server --help
	assert_success
	assert_output --partial 'usage: ps-server'
	run ps-server -V
	assert_output --regexp '^ps-server [0-9]'
}

@test "ps-server cannot bind a busy port: exit 69" {
	run timeout 5 ps-server -l "$ADDR"
	assert_failure 69
	assert_output --partial "$ADDR"
}

@test "SIGUSR1 writes the model part and the server goes on serving" {
	[ ! -e "$BATS_TEST_TMPDIR/part.psm" ]
	kill -USR1 "$SERVER_PID"
	i=0
	until [ -s "$BATS_TEST_TMPDIR/part.psm" ] || [ $i -ge 50 ]; do sleep 0.1; i=$((i + 1)); done
	run ps-ckpt info "$BATS_TEST_TMPDIR/part.psm"
	assert_success
	kill -0 "$SERVER_PID"
	run stats
	assert_line --regexp '^END'
}

@test "a malformed address or a port out of range in -l or -C exits 64" {
	for a in 127.0.0.1:99999 127.0.0.1:-1 127.0.0.1 '[::1:7000' '127.0.0.1:7x'; do
		run timeout 10 ps-server -l "$a"
		assert_failure 64
		assert_line --index 0 "ps-server: bad address '$a': expected host:port or [v6addr]:port, port 0-65535"
		assert_line --index 1 --partial 'usage: ps-server'
		run timeout 10 ps-server -C "$a"
		assert_failure 64
		assert_line --index 0 "ps-server: bad address '$a': expected host:port or [v6addr]:port, port 0-65535"
		run timeout 10 ps-worker -C "$a" "$BATS_TEST_TMPDIR/x.pss"
		assert_failure 64
		assert_line --index 0 "ps-worker: bad address '$a': expected host:port or [v6addr]:port, port 0-65535"
	done
}
