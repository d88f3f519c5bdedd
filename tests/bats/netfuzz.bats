#!/usr/bin/env bats
# netfuzz.bats: daemons under ps-framefuzz, random frames with valid
# checksums on several connections, with and without a worker's HELLO
# first: ps-server and ps-ring serve must live through a fixed-seed run
# and still answer a text command ("stats", "status").  The frames that
# crashed a daemon are kept in hostile.bats.

load helper

FRAMEFUZZ="$PSKIT_BUILDDIR/tests/tools/ps-framefuzz"

setup() {
	RING="$BATS_TEST_TMPDIR/ring"
}

teardown() {
	ps_reap
}

# start_server: a private ps-server; sets ADDR, HOST, PORT and PID.
start_server() {
	local line
	ps_start_daemon "$BATS_TEST_TMPDIR/server.out" ps-server
	PID=$PS_LAST_PID
	line=$(ps_wait_line "$BATS_TEST_TMPDIR/server.out" '^listening ' 10) || return 1
	ADDR=${line#listening } HOST=${ADDR%:*} PORT=${ADDR##*:}
}

# start_ring: a private coordinator on $RING; sets ADDR, HOST, PORT, PID.
start_ring() {
	start_coord
	PID=$COORD_PID ADDR=$COORD HOST=${COORD%:*} PORT=${COORD##*:}
}

# fuzz [OPTION...]: ps-framefuzz on $ADDR for 4 s, the frames of a crash
# in $BATS_TEST_TMPDIR/crash.hex.
fuzz() {
	"$FRAMEFUZZ" -t 4 -o "$BATS_TEST_TMPDIR/crash.hex" "$@" "$ADDR"
}

# assert_alive [COMMAND PATTERN]: the daemon $PID runs and answers the
# text COMMAND (default stats) with a line matching PATTERN.
assert_alive() {
	local cmd=${1:-stats} pat=${2:-'^STAT '}
	kill -0 "$PID"
	run sh -c "printf '$cmd\r\nquit\r\n' | timeout 5 nc -N $HOST $PORT"
	assert_success
	assert_line --regexp "$pat"
}

@test "ps-server lives through random frames, with and without hello" {
	start_server
	run fuzz -s 1
	assert_success
	assert_output --regexp 'ps-framefuzz: [0-9]+ frames .* closes by the daemon'
	assert_alive
	run fuzz -H -s 2 -c 3
	assert_success
	assert_alive
}

@test "ps-ring serve lives through random frames, with and without hello" {
	start_ring
	run fuzz -s 1
	assert_success
	assert_alive status '^ring'
	run fuzz -H -s 2 -c 3
	assert_success
	assert_alive status '^ring'
}

@test "ps-framefuzz: usage and exit codes" {
	run "$FRAMEFUZZ"
	assert_failure 64
	assert_output --partial 'usage: ps-framefuzz'
	run "$FRAMEFUZZ" -c 0 127.0.0.1:1
	assert_failure 64
	run "$FRAMEFUZZ" -t 1 127.0.0.1:1
	assert_failure 69
	run "$FRAMEFUZZ" --help
	assert_success
}
