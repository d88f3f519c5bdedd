#!/usr/bin/env bats
# auth.bats: servers off loopback need a shared secret and every connection
# proves it (the HMAC handshake of pskit(7), Security): a job with the
# secret trains as one without; wrong, missing and unusable secrets, other
# first frames, text and silence are refused, logged with the peer and
# counted.  127.0.0.2 stands for "not 127.0.0.1": Linux routes 127/8 to lo.

load helper

FRAMETOOL="$PSKIT_BUILDDIR/tests/tools/ps-frametool"

setup() {
	SECRET="$BATS_TEST_TMPDIR/secret"
	secret_file "$SECRET" 'correct horse battery staple'
	ps-shard-data -q -n 2 -o "$BATS_TEST_TMPDIR/train" \
	    "$PSKIT_SRCDIR/scripts/sample/a9a-sample.libsvm"
}

teardown() {
	ps_reap
}

# secret_file PATH TEXT [MODE]: write TEXT and a newline, mode 0600 or MODE.
secret_file() {
	(umask 077 && printf '%s\n' "$2" >"$1")
	chmod "${3:-600}" "$1"
}

# run_job OUT [OPTION...]: two workers on the ring with the options; worker
# 0's progress to OUT; fails unless both succeed.
run_job() {
	local out=$1 pid
	shift
	ps_start_daemon "$out.w1" ps-worker -r "$BATS_TEST_TMPDIR/ring" \
	    -i 1 -n 2 -b 4 "$@" "$BATS_TEST_TMPDIR/train-1.pss"
	pid=$PS_LAST_PID
	ps-worker -r "$BATS_TEST_TMPDIR/ring" -i 0 -n 2 -b 4 "$@" \
	    "$BATS_TEST_TMPDIR/train-0.pss" >"$out"
	ps_wait_pid "$pid" 30
	[ "$PS_WAIT_STATUS" -eq 0 ]
}

# secret_stats ADDR: the server's STAT lines, asked after the handshake.
secret_stats() {
	"$FRAMETOOL" -a "$SECRET" "$1" stats
}

@test "a job on 127.0.0.2 with a secret matches the same job on loopback without" {
	start_servers 2
	run_job "$BATS_TEST_TMPDIR/plain.tsv"
	plain=$(final_objective "$BATS_TEST_TMPDIR/plain.tsv")
	ps_reap
	start_servers 2 -l 127.0.0.2:0 -a "$SECRET"
	[[ "$SERVER_ADDRS" =~ ^\ 127\.0\.0\.2:[0-9]+\ 127\.0\.0\.2:[0-9]+$ ]]
	run_job "$BATS_TEST_TMPDIR/auth.tsv" -a "$SECRET"
	auth=$(final_objective "$BATS_TEST_TMPDIR/auth.tsv")
	echo "without $plain with $auth"
	[ "$plain" = "$auth" ]
	set -- $SERVER_ADDRS
	run secret_stats "$1"
	assert_line --partial 'STAT auth_failures 0'
	assert_line --partial 'STAT job_active 0'
}

@test "a worker with the wrong secret is refused: exit 77, logged and counted" {
	start_servers 1 -l 127.0.0.2:0 -a "$SECRET"
	secret_file "$BATS_TEST_TMPDIR/wrong" 'incorrect horse battery staple'
	run ps-worker -a "$BATS_TEST_TMPDIR/wrong" -r "$BATS_TEST_TMPDIR/ring" \
	    "$BATS_TEST_TMPDIR/train-0.pss"
	assert_failure 77
	assert_output --partial 'authentication failed: refused by the peer: wrong secret'
	assert_output --partial "${SERVER_ADDRS# }"
	ps_wait_line "$BATS_TEST_TMPDIR/server-0.out.err" \
	    '^ps-server: 127\.0\.0\.[0-9]+:[0-9]+: authentication failed: wrong secret$' 5
	run secret_stats "${SERVER_ADDRS# }"
	assert_line --partial 'STAT auth_failures 1'
	assert_line --partial 'STAT job_active 0'
}

@test "a worker without a secret is refused by a server with one" {
	start_servers 1 -l 127.0.0.2:0 -a "$SECRET"
	run ps-worker -r "$BATS_TEST_TMPDIR/ring" "$BATS_TEST_TMPDIR/train-0.pss"
	assert_failure 77
	assert_output --partial 'authentication failed: the peer asks for a secret and none was given'
	ps_wait_line "$BATS_TEST_TMPDIR/server-0.out.err" \
	    '^ps-server: 127\.0\.0\.[0-9]+:[0-9]+: authentication failed: ' 5
	run secret_stats "${SERVER_ADDRS# }"
	assert_line --partial 'STAT auth_failures 1'
}

@test "a worker with a secret gives up on a server without one after 5 s" {
	start_servers 1
	run timeout 20 ps-worker -a "$SECRET" -r "$BATS_TEST_TMPDIR/ring" \
	    "$BATS_TEST_TMPDIR/train-0.pss"
	assert_failure 77
	assert_output --partial 'authentication failed: no challenge within 5 s'
}

@test "ps-server off 127.0.0.1 without -a exits 64" {
	for addr in 127.0.0.2:0 0.0.0.0:0 '*:0' '[::]:0'; do
		run ps-server -l "$addr"
		assert_failure 64
		assert_output --partial "listening on '$addr' needs a secret (-a file)"
		assert_output --partial 'usage: ps-server'
	done
}

@test "a secret file open to group or others is refused, naming its mode" {
	chmod 644 "$SECRET"
	run ps-server -l 127.0.0.2:0 -a "$SECRET"
	assert_failure 66
	assert_output --partial "secret '$SECRET' is open to group or others (mode 0644)"
	chmod 640 "$SECRET"
	run ps-worker -a "$SECRET" -r ring shard
	assert_failure 66
	assert_output --partial '(mode 0640)'
}

@test "a secret shorter than 16 bytes, or a missing file, is refused" {
	secret_file "$SECRET" 'fifteen bytes!!'
	run ps-server -l 127.0.0.2:0 -a "$SECRET"
	assert_failure 66
	assert_output --partial "secret in '$SECRET' is 15 bytes; at least 16 are needed"
	run ps-server -a "$BATS_TEST_TMPDIR/nonesuch"
	assert_failure 66
	assert_output --partial "cannot read secret '$BATS_TEST_TMPDIR/nonesuch': No such file"
}

@test "a peer that connects and stays silent is closed after 5 s" {
	start_servers 1 -l 127.0.0.2:0 -a "$SECRET"
	start=$SECONDS
	run "$FRAMETOOL" -w 9 "${SERVER_ADDRS# }" silent
	assert_success			# the server closed the connection
	took=$((SECONDS - start))
	echo "closed after $took s"
	[ "$took" -ge 4 ] && [ "$took" -le 7 ]
	ps_wait_line "$BATS_TEST_TMPDIR/server-0.out.err" \
	    ': authentication failed: no answer within 5 s$' 2
}

@test "frames and text before the handshake are refused; text after it is served" {
	start_servers 1 -l 127.0.0.2:0 -a "$SECRET"
	addr=${SERVER_ADDRS# }
	run "$FRAMETOOL" "$addr" good-hello
	assert_success
	refute_output --partial 'HELLO_OK'
	ps_wait_line "$BATS_TEST_TMPDIR/server-0.out.err" \
	    ': authentication failed: HELLO before authenticating' 5
	run "$FRAMETOOL" "$addr" stats
	assert_success
	refute_output --partial 'STAT'
	ps_wait_line "$BATS_TEST_TMPDIR/server-0.out.err" \
	    ': authentication failed: a text line before authenticating' 5
	run "$FRAMETOOL" -a "$SECRET" "$addr" good-hello
	assert_output --partial 'HELLO_OK'
	run secret_stats "$addr"
	assert_line --partial 'STAT auth_failures 2'
}
