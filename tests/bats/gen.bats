#!/usr/bin/env bats
# gen.bats: the benchmark helpers of tests/bench: the synthetic data
# generator ps-gen-libsvm (deterministic, the requested shape, valid libsvm)
# and ps-objective (F(w) of a LIBLINEAR model).

load helper
bats_require_minimum_version 1.5.0

setup() {
	GEN=$PSKIT_BUILDDIR/tests/bench/ps-gen-libsvm
	OBJ=$PSKIT_BUILDDIR/tests/bench/ps-objective
}

@test "ps-gen-libsvm: --help to stdout, -V, bad usage exits 64" {
	run "$GEN" --help
	assert_success
	assert_line --index 0 --partial "usage: ps-gen-libsvm [-hUV]"
	run "$GEN" -V
	assert_success
	assert_output --regexp '^ps-gen-libsvm [0-9]+\.[0-9]+'
	run --separate-stderr "$GEN" -q
	assert_equal "$status" 64
	assert_equal "$output" ""
	[[ "$stderr" == *"usage: ps-gen-libsvm"* ]]
	run "$GEN" extra
	assert_equal "$status" 64
}

@test "ps-gen-libsvm: rejects bad numbers with a clear message" {
	run "$GEN" -f 5 -z 6
	assert_equal "$status" 64
	assert_output --partial "-z: '6' is not a number in 1..5"
	run "$GEN" -r 12x
	assert_equal "$status" 64
	assert_output --partial "-r: '12x'"
	run "$GEN" -n -1
	assert_equal "$status" 64
	run "$GEN" -k 11 -f 10
	assert_equal "$status" 64
}

@test "ps-gen-libsvm: the same seed gives the same bytes, another seed not" {
	"$GEN" -r 300 -f 2000 -z 8 -s 7 >"$BATS_TEST_TMPDIR/a" 2>/dev/null
	"$GEN" -r 300 -f 2000 -z 8 -s 7 >"$BATS_TEST_TMPDIR/b" 2>/dev/null
	"$GEN" -r 300 -f 2000 -z 8 -s 8 >"$BATS_TEST_TMPDIR/c" 2>/dev/null
	cmp "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
	run cmp -s "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/c"
	assert_failure
}

# pairs FILE: how many distinct feature pairs share a row of FILE.
pairs() {
	awk '{ for (i = 2; i <= NF; i++) { split($i, a, ":"); f[i] = a[1] }
	       for (i = 2; i <= NF; i++) for (j = i + 1; j <= NF; j++)
		       p[f[i] "," f[j]] = 1 }
	     END { n = 0; for (k in p) n++; print n }' "$1"
}

@test "ps-gen-libsvm: -c puts features in groups that occur together; -c 0 is the default" {
	"$GEN" -r 2000 -f 1000 -z 10 >"$BATS_TEST_TMPDIR/a" 2>/dev/null
	"$GEN" -r 2000 -f 1000 -z 10 -c 0 >"$BATS_TEST_TMPDIR/b" 2>/dev/null
	"$GEN" -r 2000 -f 1000 -z 10 -c 0.9 >"$BATS_TEST_TMPDIR/c" 2>/dev/null
	cmp "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
	# The same rows and non-zeros, but a quarter fewer distinct pairs.
	run awk '{ n += NF - 1 } END { print NR, n }' "$BATS_TEST_TMPDIR/c"
	assert_output "2000 20000"
	independent=$(pairs "$BATS_TEST_TMPDIR/a")
	grouped=$(pairs "$BATS_TEST_TMPDIR/c")
	echo "distinct pairs: $independent independent, $grouped with -c 0.9"
	[ "$grouped" -lt $((independent * 3 / 4)) ]
	run "$GEN" -c 1.5
	assert_failure 64
}

@test "ps-gen-libsvm: requested rows, features and non-zeros; summary on stderr" {
	run --separate-stderr "$GEN" -r 500 -f 300 -z 7 -s 3
	assert_success
	assert_equal "${#lines[@]}" 500
	[[ "$stderr" == "ps-gen-libsvm: 500 rows, 300 features, 3500 nnz, "*" positives" ]]
	run awk '{ if (NF - 1 != 7) bad++
		for (i = 2; i <= NF; i++) { split($i, p, ":"); if (p[1] < 1 || p[1] > 300) bad++ } }
		END { print bad + 0 }' <<<"$output"
	assert_output 0
}

@test "ps-gen-libsvm: labels +1/-1 (both), indices ascending, unit-norm positive values" {
	"$GEN" -r 2000 -f 5000 -z 12 >"$BATS_TEST_TMPDIR/d" 2>/dev/null
	run awk '{
		if ($1 == "+1") pos++; else if ($1 == "-1") neg++; else bad++
		prev = 0; ss = 0
		for (i = 2; i <= NF; i++) {
			split($i, p, ":")
			if (p[1] + 0 <= prev || p[2] + 0 <= 0 || p[2] ~ /[eE]/) bad++
			prev = p[1] + 0; ss += p[2] * p[2]
		}
		if (ss < 0.9999 || ss > 1.0001) bad++
	} END { printf "%d %d\n", bad, (pos > 100 && neg > 100) }' "$BATS_TEST_TMPDIR/d"
	assert_output "0 1"
}

@test "ps-gen-libsvm: -U keeps raw values (not unit norm)" {
	run sh -c "'$GEN' -U -r 200 -f 1000 -z 10 2>/dev/null | awk '{ ss = 0
		for (i = 2; i <= NF; i++) { split(\$i, p, \":\"); ss += p[2] * p[2] }
		if (ss < 0.99 || ss > 1.01) far++ } END { print far + 0 }'"
	assert_success
	(( output > 150 ))
}

@test "ps-gen-libsvm: feature popularity is skewed and frequent ids are spread" {
	"$GEN" -r 3000 -f 20000 -z 10 -s 5 >"$BATS_TEST_TMPDIR/e" 2>/dev/null
	# Counts per feature id, most frequent first.
	cut -d' ' -f2- "$BATS_TEST_TMPDIR/e" | tr ' ' '\n' | cut -d: -f1 |
	    sort -n | uniq -c | sort -rn >"$BATS_TEST_TMPDIR/counts"
	top=$(head -n 1 "$BATS_TEST_TMPDIR/counts" | awk '{ print $1 }')
	median=$(awk '{ c[NR] = $1 } END { print c[int((NR + 1) / 2)] }' "$BATS_TEST_TMPDIR/counts")
	# The top feature is in more than a tenth of the rows, a typical one in few.
	(( top > 300 ))
	(( median < 10 ))
	# The ten most frequent ids are not the ten smallest.
	maxid=$(head -n 10 "$BATS_TEST_TMPDIR/counts" | awk '$2 > m { m = $2 } END { print m }')
	(( maxid > 1000 ))
}

@test "ps-gen-libsvm: labels follow the planted weights; -n 0 is noise-free" {
	# One feature per row, all planted: without noise a feature always
	# gets the label of its weight's sign, with noise it does not.
	"$GEN" -r 2000 -f 50 -z 1 -k 50 -n 0 >"$BATS_TEST_TMPDIR/f0" 2>/dev/null
	"$GEN" -r 2000 -f 50 -z 1 -k 50 -n 2 >"$BATS_TEST_TMPDIR/f2" 2>/dev/null
	clashes='{ split($2, p, ":"); if ((p[1] in lab) && lab[p[1]] != $1) c++; lab[p[1]] = $1 }
		END { print c + 0 }'
	run awk "$clashes" "$BATS_TEST_TMPDIR/f0"
	assert_output 0
	run awk "$clashes" "$BATS_TEST_TMPDIR/f2"
	(( output > 100 ))
	# No planted weight: every margin is 0 and labels are fair coins.
	run sh -c "'$GEN' -r 3000 -f 50 -z 3 -k 0 -n 0 2>&1 >/dev/null"
	assert_output --regexp ' 3000 rows, 50 features, 9000 nnz, 1[0-9]{3} positives$'
}

@test "ps-objective: F(w) and nnz of a hand-made LIBLINEAR model" {
	printf 'solver_type L1R_LR\nnr_class 2\nlabel 1 -1\nnr_feature 3\nbias -1\nw\n1 \n-2 \n0 \n' \
	    >"$BATS_TEST_TMPDIR/m"
	printf '1 1:1\n-1 2:0.5 4:7\n' >"$BATS_TEST_TMPDIR/x"
	# Both rows have y <w, x> = 1: F = 2 log(1 + e^-1) + lambda * 3.
	run "$OBJ" -l 0.5 "$BATS_TEST_TMPDIR/m" "$BATS_TEST_TMPDIR/x"
	assert_success
	assert_line --index 0 "objective	loss	l1	nnz	rows	accuracy"
	run awk -F'\t' 'NR == 2 { d = $1 - (2 * log(1 + exp(-1)) + 1.5)
		print (d < 1e-12 && d > -1e-12), $4, $5, $6 }' <<<"$output"
	assert_output "1 2 2 1.000000"
}

@test "ps-objective -d: the dual value of the scaled sigmoids and the gap, by hand" {
	printf 'solver_type L1R_LR\nnr_class 2\nlabel 1 -1\nnr_feature 3\nbias -1\nw\n1 \n-2 \n0 \n' \
	    >"$BATS_TEST_TMPDIR/m"
	printf '1 1:1\n-1 2:0.5 4:7\n' >"$BATS_TEST_TMPDIR/x"
	# Both rows have y m = 1, so a = 1 / (1 + e); the largest gradient
	# sum is feature 4's, 7 a: with lambda 0.5 every a is scaled to
	# 0.5 / 7; with lambda 3 none is.  D = sum H(a), H the entropy.
	for l in 0.5 3; do
		run "$OBJ" -d -l "$l" "$BATS_TEST_TMPDIR/m" "$BATS_TEST_TMPDIR/x"
		assert_success
		assert_line --index 0 "objective	loss	l1	nnz	rows	accuracy	dual	dual_gap	rel_dual_gap"
		run awk -F'\t' -v l="$l" 'function h(a) { return -a * log(a) - (1 - a) * log(1 - a) }
		    NR == 2 { a = 1 / (1 + exp(1)); if (7 * a > l) a = l / 7
			d = $7 - 2 * h(a); g = $8 - ($1 - $7)
			print (d < 1e-12 && d > -1e-12), (g < 1e-5 * $8 && g > -1e-5 * $8), ($8 > 0) }' <<<"$output"
		assert_output "1 1 1"
	done
}

@test "ps-objective: bad data names file:line and exits 65; missing file 66" {
	printf 'solver_type L1R_LR\nnr_class 2\nlabel 1 -1\nnr_feature 1\nbias -1\nw\n1\n' \
	    >"$BATS_TEST_TMPDIR/m"
	printf '1 1:1\n-1 0:3\n' >"$BATS_TEST_TMPDIR/x"
	run "$OBJ" "$BATS_TEST_TMPDIR/m" "$BATS_TEST_TMPDIR/x"
	assert_equal "$status" 65
	assert_output --partial "$BATS_TEST_TMPDIR/x:2: bad feature index"
	printf 'w\n1\n' >"$BATS_TEST_TMPDIR/m2"
	run "$OBJ" "$BATS_TEST_TMPDIR/m2" "$BATS_TEST_TMPDIR/x"
	assert_equal "$status" 65
	run "$OBJ" "$BATS_TEST_TMPDIR/m" "$BATS_TEST_TMPDIR/nonexistent"
	assert_equal "$status" 66
	assert_output --partial "cannot open '$BATS_TEST_TMPDIR/nonexistent'"
}
