#!/usr/bin/env bats
# trace.bats: the push history of a job (ps-train --trace DIR, the
# daemons' --trace file) and its check (tests/chaos/check-trace): a job
# leaves a trace that passes, and the checker names each broken promise
# in a trace edited to break it: a round applied twice, an acknowledged
# round applied nowhere, one applied only on a server that died before
# replicating it (unless a replica that lived on held it, or one that
# died too sent the keys on to one that lived on), a round applied to a
# key on a server that has no copy of the key's last acknowledged round,
# an sgd push applied twice to a key or after it was refused; a round
# pushed again by a worker that came back and answered without being
# applied promises no new key.

load helper

SAMPLE="$PSKIT_SRCDIR/scripts/sample/a9a-sample.libsvm"
CHECK="$PSKIT_SRCDIR/tests/chaos/check-trace"

setup() {
	T="$BATS_TEST_TMPDIR/trace"
	X="$BATS_TEST_TMPDIR/edited"
}

# edit FILE: copy the trace to X, where FILE is then rewritten by the
# caller (stdin replaces it).
edit() {
	rm -rf "$X"
	cp -R "$T" "$X"
	cat >"$X/$1"
}

# addr_of F: the address of the server whose trace is F.
addr_of() {
	awk -F'\t' '$2 == "start" { print $3 }' "$T/$1"
}

# The round of the first apply with keys in trace file F (the ring, and so
# which server holds which key, changes from run to run).
round_of() {
	awk -F'\t' '$2 == "apply" && $6 != "" { print $4; exit }' "$T/$1"
}

@test "a dbpg job with a replica leaves a trace the checker passes" {
	run ps-train -q -A dbpg -s 2 -R 1 --trace "$T" -o "$BATS_TEST_TMPDIR/m" "$SAMPLE"
	assert_success
	for f in server-0 server-1 worker-0 worker-1; do
		[ -s "$T/$f.trace" ]
	done
	grep -q $'\tstart\t127.0.0.1:' "$T/server-0.trace"
	grep -q $'\tapply\t0\t0\t' "$T/server-0.trace"
	grep -q $'\tack\t127.0.0.1:' "$T/worker-1.trace"
	grep -q $'\tend\t0$' "$T/server-1.trace"
	run "$CHECK" "$T"
	assert_success
	assert_output ''
}

@test "the checker finds a round applied twice and one lost" {
	ps-train -q -A dbpg -s 2 --trace "$T" -o "$BATS_TEST_TMPDIR/m" "$SAMPLE" 2>/dev/null
	"$CHECK" "$T"
	local r
	r=$(round_of server-0.trace)
	{ cat "$T/server-0.trace"
	  awk -F'\t' -v r="$r" '$2 == "apply" && $4 == r' "$T/server-0.trace"; } |
	    edit server-0.trace
	run "$CHECK" "$X"
	assert_failure 1
	assert_line --regexp "^round $r of key [0-9]+ applied twice: server-0.trace and server-0.trace\$"
	r=$(round_of server-1.trace)
	awk -F'\t' -v r="$r" '!($2 == "apply" && $4 == r)' "$T/server-1.trace" |
	    edit server-1.trace
	run "$CHECK" "$X"
	assert_failure 1
	assert_line --regexp "^round $r of key [0-9]+ acknowledged to worker-[01].trace but applied on no server that kept it\$"
}

@test "a round applied on a server that died before replicating it is lost" {
	ps-train -q -A dbpg -s 2 --trace "$T" -o "$BATS_TEST_TMPDIR/m" "$SAMPLE" 2>/dev/null
	# As if server 0 died before round r reached its replicas: no
	# "replicated" for it, no clean end, and server 1 held nothing of
	# server 0's from round r on (a later round's copy of the same keys
	# would carry round r's application).
	local r
	r=$(round_of server-0.trace)
	awk -F'\t' -v r="$r" '!($2 == "replicated" && $4 == r) && $2 != "end"' \
	    "$T/server-0.trace" | edit server-0.trace
	awk -F'\t' -v r="$r" '!($2 == "held" && $4 >= r + 0)' \
	    "$T/server-1.trace" >"$X/server-1.trace"
	run "$CHECK" "$X"
	assert_failure 1
	assert_line --regexp "^round $r of key [0-9]+ acknowledged to worker-[01].trace but applied on no server that kept it\$"
	refute_line --regexp "^round $((r + 1)) of key"
	# A replica that held round r of those keys from another primary
	# (after a ring change, say) keeps nothing of server 0's.
	cp "$X/server-1.trace" "$BATS_TEST_TMPDIR/server-1.trace"
	held_from() {
		awk -F'\t' -v r="$r" -v a="$1" 'BEGIN { OFS = "\t" }
		    $2 == "apply" && $4 == r { print $1, "held", $3, $4, a, $6 }' \
		    "$T/server-0.trace" >>"$X/server-1.trace"
	}
	held_from 127.0.0.1:1
	run "$CHECK" "$X"
	assert_failure 1
	# But a replica that ended cleanly held the round's result for those
	# keys from server 0 (its REPLICATE_OK lost with the primary): they
	# live on there.
	cp "$BATS_TEST_TMPDIR/server-1.trace" "$X/server-1.trace"
	held_from "$(addr_of server-0.trace)"
	run "$CHECK" "$X"
	assert_success
	assert_output ''
	# Or it died too, but sent those keys on, as after round r or later
	# (a resync), to a server that ended cleanly.
	grep -v $'\tend\t' "$X/server-1.trace" >"$BATS_TEST_TMPDIR/server-1.trace"
	cp "$BATS_TEST_TMPDIR/server-1.trace" "$X/server-1.trace"
	run "$CHECK" "$X"
	assert_failure 1
	assert_line --regexp "^round $r of key [0-9]+ acknowledged to worker-[01].trace but applied on no server that kept it\$"
	{ printf '0\tstart\t127.0.0.1:2\n'
	  awk -F'\t' -v r="$r" -v a="$(addr_of server-1.trace)" \
	      'BEGIN { OFS = "\t" }
	      $2 == "apply" && $4 == r { print $1, "copy", $3, $4 + 5, a, $6 }' \
	      "$T/server-0.trace"
	  printf '9e9\tend\t0\n'; } >"$X/server-2.trace"
	run "$CHECK" "$X"
	assert_success
	assert_output ''
}

@test "a round applied to a key on a server without the key's last state is found" {
	ps-train -q -A dbpg -s 2 --trace "$T" -o "$BATS_TEST_TMPDIR/m" "$SAMPLE" 2>/dev/null
	# Server 1, which held no copy of server 0's keys, applies a later
	# round to one of them (a handoff it dropped): the weight starts
	# again from zero.
	local r key a last
	r=$(round_of server-0.trace)
	key=$(awk -F'\t' -v r="$r" '$2 == "apply" && $4 == r { sub(/,.*/, "", $6); print $6 }' \
	    "$T/server-0.trace")
	last=$(awk -F'\t' -v k="$key" '$2 == "apply" && ("," $6 ",") ~ ("," k ",") { t = $4 } END { print t }' \
	    "$T/server-0.trace")
	grep -v $'\theld\t' "$T/server-1.trace" >"$BATS_TEST_TMPDIR/server-1.trace"
	{ cat "$BATS_TEST_TMPDIR/server-1.trace"
	  printf '9e9\tapply\t0\t999999\t3\t%s\n' "$key"; } | edit server-1.trace
	run "$CHECK" "$X"
	assert_failure 1
	assert_line "round 999999 of key $key applied on server-1.trace to its state after round -1, not after round $last, acknowledged"
	# Handed over as after that round, it is whole.
	a=$(addr_of server-0.trace)
	{ cat "$BATS_TEST_TMPDIR/server-1.trace"
	  printf '9e9\ttook\t0\t%s\t%s\t%s\n' "$last" "$a" "$key"
	  printf '9e9\tapply\t0\t999999\t3\t%s\n' "$key"; } | edit server-1.trace
	run "$CHECK" "$X"
	assert_success
}

@test "a round a worker pushed again, answered without being applied, promises no new key" {
	ps-train -q -A dbpg -s 2 --trace "$T" -o "$BATS_TEST_TMPDIR/m" "$SAMPLE" 2>/dev/null
	local r addr
	r=$(round_of server-0.trace)
	addr=$(awk -F'\t' '$2 == "start" { print $3 }' "$T/server-0.trace")
	# Worker 0, come back, pushed round r to server 0 again with a key
	# no push of round r named, and was answered.
	{ cat "$T/worker-0.trace"
	  printf '9e9\tpush\t%s\t0\t%s\t999999\n' "$addr" "$r"
	  printf '9e9\tack\t%s\t0\t%s\n' "$addr" "$r"; } | edit worker-0.trace
	run "$CHECK" "$X"
	assert_failure 1
	assert_line "round $r of key 999999 acknowledged to worker-0.trace but applied on no server that kept it"
	# Server 0 says it answered that push without applying it (it had
	# applied round r): the ack promises nothing of its keys.
	cat "$T/server-0.trace" >"$BATS_TEST_TMPDIR/server-0.trace"
	printf '9e9\tagain\t0\t0\t%s\n' "$r" >>"$BATS_TEST_TMPDIR/server-0.trace"
	cp "$BATS_TEST_TMPDIR/server-0.trace" "$X/server-0.trace"
	run "$CHECK" "$X"
	assert_success
}

@test "the checker finds an sgd push applied twice to a key, or after it was refused" {
	ps-train -q -A sgd -W '--epochs 1' --trace "$T" \
	    -o "$BATS_TEST_TMPDIR/m" "$SAMPLE" 2>/dev/null
	"$CHECK" "$T"
	local p
	p=$(awk -F'\t' '$2 == "push" { print; exit }' "$T/server-0.trace")
	{ cat "$T/server-0.trace"; echo "$p"; } | edit server-0.trace
	run "$CHECK" "$X"
	assert_failure 1
	assert_line --regexp '^server-0.trace: sgd push [0-9]+ of worker [01] applied twice to key [0-9]+$'
	# Sent again after a ring change, a push may go to other keys.
	echo "$p" | awk -F'\t' -v OFS='\t' '{ $6 = "999999"; print }' |
	    cat "$T/server-0.trace" - | edit server-0.trace
	run "$CHECK" "$X"
	assert_success
	echo "$p" | awk -F'\t' -v OFS='\t' '{ print $1, "refused", $3, $4, $5 }' |
	    cat - "$T/server-0.trace" | edit server-0.trace
	run "$CHECK" "$X"
	assert_failure 1
	assert_line --regexp 'sgd push [0-9]+ of worker [01] applied after it was refused'
}

@test "ps-train --trace into a directory it cannot make fails before the job" {
	run ps-train -q --trace /proc/nope/trace -o "$BATS_TEST_TMPDIR/m" "$SAMPLE"
	assert_failure 73
	assert_output --partial "--trace '/proc/nope/trace'"
	[ ! -e "$BATS_TEST_TMPDIR/m" ]
	run "$CHECK" "$BATS_TEST_TMPDIR"
	assert_failure 66
}
