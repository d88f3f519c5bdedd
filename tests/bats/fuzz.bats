#!/usr/bin/env bats
# fuzz.bats: the fuzz harnesses' corpus (tests/fuzz/corpus: the seeds and
# the inputs of bugs the fuzzers found) still passes every harness check,
# replayed by the plain programs of tests/fuzz/include.am, without
# libFuzzer; and tests/fuzz/run's command line.

load helper

# replay TARGET: run the target's whole corpus; at least one input.
replay() {
	run "$PSKIT_BUILDDIR/tests/fuzz/replay-$1" "$PSKIT_SRCDIR/tests/fuzz/corpus/$1"
	assert_success
	assert_line --regexp '^[1-9][0-9]* inputs$'
}

@test "the model part corpus replays clean" {
	replay model
}

@test "the MANIFEST corpus replays clean" {
	replay manifest
}

@test "the shard corpus replays clean" {
	replay shard
}

@test "the libsvm corpus replays clean" {
	replay libsvm
}

@test "the wire corpus replays clean" {
	replay wire
}

@test "the connection corpus replays clean" {
	replay conn
}

# The daemon harnesses: a sequence of frames through a daemon's dispatch.
@test "the ps-server dispatch corpus replays clean" {
	replay server
}

@test "the ps-worker receiving side corpus replays clean" {
	replay worker
}

@test "the coordinator dispatch corpus replays clean" {
	replay ring
}

@test "a replay of a missing file exits 66" {
	run "$PSKIT_BUILDDIR/tests/fuzz/replay-wire" "$BATS_TEST_TMPDIR/none"
	assert_failure 66
	assert_output --partial "cannot open"
}

@test "tests/fuzz/run: -h prints the targets, a bad target or time exits 64" {
	run "$PSKIT_SRCDIR/tests/fuzz/run" -h
	assert_success
	assert_line --partial 'usage: tests/fuzz/run'
	assert_line --partial 'model manifest shard libsvm wire conn server worker ring'
	run "$PSKIT_SRCDIR/tests/fuzz/run" nosuch
	assert_failure 64
	assert_line "run: unknown target 'nosuch'"
	run "$PSKIT_SRCDIR/tests/fuzz/run" -t 0 wire
	assert_failure 64
}
