#!/usr/bin/env bats
# newton.bats: ps-train -A newton, the distributed proximal Newton method
# (ps-worker(1)): within 1e-3 of LIBLINEAR's optimum as an independent
# evaluator scores the exported model, the same model from two runs, a
# warm start, checkpoints, the options it refuses, and ps-train's choice
# of it without -A.  A server killed under a newton job is
# failover.bats's, a worker killed rejoin.bats's.

load helper
bats_require_minimum_version 1.5.0

# The two sets, where liblinear_ref (helper.bash) looks for them.
setup_file() {
	export BATS_FILE_TMPDIR
	for set in a9a w8a; do ps_data $set >/dev/null; done
}

teardown() {
	ps_reap
}

# scored MODEL DATA: F of model directory MODEL on DATA, by awk from its
# LIBLINEAR export, not by the job's own report.
scored() {
	ps-ckpt export -f liblinear -o "$BATS_TEST_TMPDIR/export" "$1" &&
	    ll_objective "$BATS_TEST_TMPDIR/export" "$2" 1
}

# bats test_tags=quality
@test "newton: a9a and w8a end within 1e-3 of LIBLINEAR's optimum" {
	for set in a9a w8a; do
		ref=$(liblinear_ref $set)
		run ps-train -q -A newton -o "$BATS_TEST_TMPDIR/$set" \
		    "$BATS_FILE_TMPDIR/$set"
		assert_success
		ours=$(scored "$BATS_TEST_TMPDIR/$set" "$BATS_FILE_TMPDIR/$set")
		said=$(final_objective "$BATS_TEST_TMPDIR/$set/progress.tsv")
		iters=$(tsv_last "$BATS_TEST_TMPDIR/$set/progress.tsv" iter)
		gap=$(rel_gap "$ours" "$ref")
		echo "$set: scored $ours, reported $said, liblinear $ref," \
		    "gap $gap, $iters iterations"
		awk -v g="$gap" 'BEGIN { exit !(g < 1e-3) }'
		# The job's own F is the model's.
		awk -v a="$ours" -v b="$said" \
		    'BEGIN { d = (a - b) / b; exit !(d < 1e-6 && d > -1e-6) }'
		[ "$iters" -lt 60 ]
	done
}

@test "newton: two runs give the same model" {
	for run in 1 2; do
		ps-train -q -A newton -w 3 -s 2 -o "$BATS_TEST_TMPDIR/m$run" \
		    "$BATS_FILE_TMPDIR/a9a"
		ps-ckpt dump "$BATS_TEST_TMPDIR/m$run" >"$BATS_TEST_TMPDIR/d$run"
	done
	[ -s "$BATS_TEST_TMPDIR/d1" ]
	cmp "$BATS_TEST_TMPDIR/d1" "$BATS_TEST_TMPDIR/d2"
}

# The cold run stops about 3e-5 from the optimum; the warm one, whose
# first KKT violation is already small, stops on the change alone
# (epsilon / 1000): 6 iterations on this machine.
@test "newton: a warm start from its own model stops within a few iterations" {
	ps-train -q -A newton -o "$BATS_TEST_TMPDIR/cold" "$BATS_FILE_TMPDIR/w8a"
	cold=$(tsv_last "$BATS_TEST_TMPDIR/cold/progress.tsv" iter)
	run ps-train -q -A newton -I "$BATS_TEST_TMPDIR/cold" \
	    -o "$BATS_TEST_TMPDIR/warm" "$BATS_FILE_TMPDIR/w8a"
	assert_success
	warm=$(tsv_last "$BATS_TEST_TMPDIR/warm/progress.tsv" iter)
	a=$(scored "$BATS_TEST_TMPDIR/cold" "$BATS_FILE_TMPDIR/w8a")
	b=$(scored "$BATS_TEST_TMPDIR/warm" "$BATS_FILE_TMPDIR/w8a")
	echo "cold $cold iterations to $a, warm $warm to $b"
	[ "$warm" -lt "$cold" ] && [ "$warm" -le 7 ]
	awk -v a="$a" -v b="$b" 'BEGIN { exit !(b <= a * (1 + 1e-6)) }'
}

@test "newton: checkpoints every 3 iterations, the last one the final model" {
	ck=$BATS_TEST_TMPDIR/ck
	run ps-train -q -A newton -c "$ck" -E 3 -o "$BATS_TEST_TMPDIR/m" \
	    "$BATS_FILE_TMPDIR/a9a"
	assert_success
	run ps-ckpt ls "$ck"
	assert_success
	echo "$output"
	[ "$(echo "$output" | grep -c complete)" -ge 3 ]
	ps-ckpt dump "$ck" >"$BATS_TEST_TMPDIR/last"
	ps-ckpt dump "$BATS_TEST_TMPDIR/m" | cmp - "$BATS_TEST_TMPDIR/last"
}

@test "newton: filters other than keycache and lz4, and -m past its rounds exit 64" {
	shard=$BATS_TEST_TMPDIR/s
	ps-shard-data -q -n 1 -o "$shard" "$BATS_FILE_TMPDIR/w8a"
	printf 'pskit-ring 1\n' >"$BATS_TEST_TMPDIR/ring"
	run ps-worker -A newton -F kkt -r "$BATS_TEST_TMPDIR/ring" "$shard-0.pss"
	assert_failure 64
	assert_output --partial "-A newton takes only the keycache and lz4 filters"
	run ps-worker -A newton -m 2000000000 -r "$BATS_TEST_TMPDIR/ring" "$shard-0.pss"
	assert_failure 64
	assert_output --partial "-A newton runs at most 715827882 iterations (-m)"
}

@test "without -A: newton on a set of at most 1024 features, dbpg with more or with an option of dbpg's" {
	local sample=$PSKIT_SRCDIR/scripts/sample/a9a-sample.libsvm
	pick() {
		run ps-train -q -o "$BATS_TEST_TMPDIR/m" "$@"
		assert_success
		tsv_last_key algorithm
	}
	tsv_last_key() { printf '%s\n' "$output" | awk -F'\t' -v k="$1" '$1 == k { print $2 }'; }
	[ "$(pick "$sample")" = newton ]
	[ "$(pick -F keycache,lz4 "$sample")" = newton ]
	[ "$(pick -t 1 "$sample")" = dbpg ]
	[ "$(pick -b 3 "$sample")" = dbpg ]
	[ "$(pick -F kkt "$sample")" = dbpg ]
	[ "$(pick --momentum 0 "$sample")" = dbpg ]
	[ "$(pick -A dbpg "$sample")" = dbpg ]
	# 1025 features, one a row, and one row with them all: dbpg.
	awk 'BEGIN { for (j = 1; j <= 1025; j++) print (j % 2 ? "+1" : "-1"), j ":1"
	    s = "+1"; for (j = 1; j <= 1025; j++) s = s " " j ":0.5"; print s }' \
	    >"$BATS_TEST_TMPDIR/wide"
	[ "$(pick "$BATS_TEST_TMPDIR/wide")" = dbpg ]
	head -n 1024 "$BATS_TEST_TMPDIR/wide" >"$BATS_TEST_TMPDIR/narrow"
	[ "$(pick "$BATS_TEST_TMPDIR/narrow")" = newton ]
}
