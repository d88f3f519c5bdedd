#!/usr/bin/env bats
# limits.bats: ps-server's limits on what one peer may cost it: the frame
# size (-m, --max-frame), checked from the header before the payload is
# read, and the connection count (-c).  Each refusal closes only that
# connection, is logged with the peer and counted; other connections go on.

load helper

FRAMETOOL="$PSKIT_BUILDDIR/tests/tools/ps-frametool"

teardown() {
	exec 5>&- 6>&-
	ps_reap
}

# start_server [OPTION...]: a server with the options; sets ADDR, HOST, PORT.
start_server() {
	local line
	ps_start_daemon "$BATS_TEST_TMPDIR/server.out" ps-server "$@"
	line=$(ps_wait_line "$BATS_TEST_TMPDIR/server.out" '^listening ' 10) || return 1
	ADDR=${line#listening } HOST=${ADDR%:*} PORT=${ADDR##*:}
}

# fd_stats FD: ask for stats on the connection open on FD; print the lines
# up to END, without their CRs.  Fails if END does not come within 5 s.
fd_stats() {
	local line
	printf 'stats\r\n' >&"$1"
	while IFS= read -r -t 5 line <&"$1"; do
		line=${line%$'\r'}
		printf '%s\n' "$line"
		[ "$line" = END ] && return 0
	done
	return 1
}

@test "--max-frame: a payload at or under the limit is read whole, one over it refused from its header" {
	start_server -m 4096
	exec 5<>"/dev/tcp/$HOST/$PORT"
	# Read and decoded whole: then refused for its padding (a pull
	# carries no blob), not for its size.
	for size in 4095 4096; do
		run "$FRAMETOOL" "$ADDR" script <<<"PULL,current keys=1 size=$size"
		assert_line --regexp "^ERROR .*current pull: $((size - 1)) blob bytes, at most 0 expected"
	done
	# Only the header of a 4097-byte payload: refused before the payload.
	start=$SECONDS
	run "$FRAMETOOL" -s 4097 -w 5 "$ADDR" oversize
	assert_success			# the server closed the connection...
	[ $((SECONDS - start)) -le 2 ]	# ...at once, not waiting for more
	ps_wait_line "$BATS_TEST_TMPDIR/server.out.err" \
	    '^ps-server: 127\.0\.0\.1:[0-9]+: frame too large \(4097 bytes, limit 4096\)$' 5
	run "$FRAMETOOL" "$ADDR" script <<<'PULL,current keys=1 size=4097'
	assert_success
	refute_output --partial 'PULL_REPLY'
	# The connection opened before is still served.
	run fd_stats 5
	assert_success
	assert_line 'STAT rejected_frames 4'
	assert_line 'STAT rejected_connections 0'
}

@test "--max-frame outside 4096 to 67108864 bytes is a usage error" {
	for bad in 4095 67108865 0 -1 4k ''; do
		run ps-server -m "$bad"
		assert_failure 64
		assert_output --partial "ps-server: bad frame limit '$bad' (expected 4096 to 67108864)"
		assert_output --partial 'usage: ps-server'
	done
	run ps-server --max-frame 67108864 --help
	assert_success
}

@test "-c 2: a third connection is refused at once, logged and counted; the first two still work" {
	start_server -c 2
	exec 5<>"/dev/tcp/$HOST/$PORT" 6<>"/dev/tcp/$HOST/$PORT"
	start=$SECONDS
	run "$FRAMETOOL" -w 5 "$ADDR" silent
	assert_success			# the server closed it...
	[ $((SECONDS - start)) -le 2 ]	# ...at once
	ps_wait_line "$BATS_TEST_TMPDIR/server.out.err" \
	    '^ps-server: 127\.0\.0\.1:[0-9]+: refused: 2 connections already$' 5
	run fd_stats 5
	assert_success
	assert_line 'STAT curr_connections 2'
	assert_line 'STAT total_connections 3'
	assert_line 'STAT rejected_connections 1'
	run fd_stats 6
	assert_success
	assert_line 'STAT rejected_connections 1'
}
