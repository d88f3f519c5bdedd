#!/usr/bin/env bats
# ckpt.bats: ps-ckpt info/dump/export on model parts written by the test
# helper ps-mkmodel; LIBLINEAR accepts the export and predicts the sign of
# w.x; format 2 parts (optimiser state); corrupt, missing and disagreeing
# parts; bad command lines.

load helper
bats_require_minimum_version 1.5.0

MKMODEL="$PSKIT_BUILDDIR/tests/tools/ps-mkmodel"

# Two parts of a model from 2 servers at iteration 7, lambda 0.5.
setup() {
	M="$BATS_TEST_TMPDIR/model"
	mkdir -p "$M"
	printf '1\t0.5\n3\t-0.25\n5\t0\n10\t1e-3\n' |
	    "$MKMODEL" -s 0 -n 2 -i 7 -l 0.5 -r 2 "$M/part-0.psm"
	printf '2\t-1.5\n4\t2\n' |
	    "$MKMODEL" -s 1 -n 2 -i 7 -l 0.5 -r 2 "$M/part-1.psm"
	echo 'progress, not a part' >"$M/progress.tsv"
}

teardown() {
	ps_reap
}

@test "info summarises a model directory" {
	run ps-ckpt info "$M"
	assert_success
	assert_output "$(printf 'parts\t2\nservers\t2\niteration\t7\nlambda\t0.5
features_stored\t6\nnnz\t5\nl1_norm\t4.2510000000474975\nmax_abs_w\t2\nring_version\t2
format\t1')"
}

@test "info and dump accept part files as well as directories" {
	run ps-ckpt info "$M/part-1.psm" "$M/part-0.psm"
	assert_success
	assert_line "$(printf 'parts\t2')"
	run sh -c "ps-ckpt dump '$M/part-0.psm' 2>/dev/null"
	assert_success
	assert_output "$(printf '1\t0.5\n3\t-0.25\n10\t0.00100000005')"
	# One part of two: a warning on stderr, the data still on stdout.
	run ps-ckpt info "$M/part-0.psm"
	assert_success
	assert_line --partial 'warning: 1 part of a model from 2 servers'
}

@test "dump prints the non-zero weights merged and sorted" {
	run ps-ckpt dump "$M"
	assert_success
	assert_output "$(printf '1\t0.5\n2\t-1.5\n3\t-0.25\n4\t2\n10\t0.00100000005')"
	dump=$output
	run ps-ckpt export -f tsv "$M"
	assert_success
	[ "$output" = "$dump" ]
}

@test "export -f liblinear writes LIBLINEAR's model format" {
	run ps-ckpt export -f liblinear "$M"
	assert_success
	[ "${lines[0]}" = 'solver_type L1R_LR' ]
	[ "${lines[1]}" = 'nr_class 2' ]
	[ "${lines[2]}" = 'label 1 -1' ]
	[ "${lines[3]}" = 'nr_feature 10' ]
	[ "${lines[4]}" = 'bias -1' ]
	[ "${lines[5]}" = 'w' ]
	[ "${#lines[@]}" -eq 16 ]
	[ "${lines[6]}" = '0.5 ' ]
	[ "${lines[7]}" = '-1.5 ' ]
	[ "${lines[10]}" = '0 ' ]
	[ "${lines[15]}" = '0.0010000000474974513 ' ]
	run ps-ckpt export -n 20 -o "$BATS_TEST_TMPDIR/m.ll" "$M"
	assert_success
	assert_output ''
	grep -qx 'nr_feature 20' "$BATS_TEST_TMPDIR/m.ll"
	[ "$(sed '1,/^w$/d' "$BATS_TEST_TMPDIR/m.ll" | wc -l)" -eq 20 ]
}

@test "liblinear-predict accepts the export and predicts the sign of w.x" {
	# Rows over features 1..12 (11 and 12 beyond nr_feature 10).
	awk 'BEGIN { srand(3); for (i = 0; i < 200; i++) {
		printf "%d", (i % 2) ? 1 : -1
		for (j = 1; j <= 12; j++)
			if (rand() < 0.5) printf " %d:%.3f", j, rand() * 4 - 2
		printf "\n" } }' >"$BATS_TEST_TMPDIR/data"
	ps-ckpt export -o "$BATS_TEST_TMPDIR/m.ll" "$M"
	run liblinear-predict "$BATS_TEST_TMPDIR/data" "$BATS_TEST_TMPDIR/m.ll" "$BATS_TEST_TMPDIR/pred"
	assert_success
	assert_output --partial 'Accuracy = '
	ps-ckpt dump "$M" | awk -F'\t' -v data="$BATS_TEST_TMPDIR/data" '
	    { w[$1] = $2 }
	    END { while ((getline line < data) > 0) {
		n = split(line, f, " "); m = 0
		for (i = 2; i <= n; i++) { split(f[i], p, ":"); m += w[p[1]] * p[2] }
		print (m > 0) ? 1 : -1 } }' >"$BATS_TEST_TMPDIR/ours"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/ours")" -eq 200 ]
	[ "$(sort -u "$BATS_TEST_TMPDIR/ours" | wc -l)" -eq 2 ]
	cmp "$BATS_TEST_TMPDIR/ours" "$BATS_TEST_TMPDIR/pred"
}

@test "a corrupt part exits 65 naming the file and the offset" {
	printf '\377' | dd of="$M/part-1.psm" bs=1 seek=60 conv=notrunc 2>/dev/null
	run ps-ckpt info "$M"
	assert_failure 65
	assert_output "ps-ckpt: $M/part-1.psm: offset 76: record checksum mismatch"
	head -c 70 "$M/part-0.psm" >"$BATS_TEST_TMPDIR/short.psm"
	run ps-ckpt dump "$BATS_TEST_TMPDIR/short.psm"
	assert_failure 65
	assert_output --partial "$BATS_TEST_TMPDIR/short.psm: offset 70: truncated"
	echo 'not a model at all, but long enough to have a header and a trailer' >"$BATS_TEST_TMPDIR/text.psm"
	run ps-ckpt export "$BATS_TEST_TMPDIR/text.psm"
	assert_failure 65
	assert_output --partial "$BATS_TEST_TMPDIR/text.psm: offset 0: bad magic"
}

@test "parts that disagree exit 65" {
	printf '2\t1\n' | "$MKMODEL" -s 1 -n 2 -i 8 -l 0.5 "$BATS_TEST_TMPDIR/late.psm"
	run ps-ckpt info "$M/part-0.psm" "$BATS_TEST_TMPDIR/late.psm"
	assert_failure 65
	assert_output --partial "parts disagree: '$M/part-0.psm' has iteration 7 but '$BATS_TEST_TMPDIR/late.psm' has 8"
	printf '3\t1\n' | "$MKMODEL" -s 1 -n 2 -i 7 -l 0.5 "$BATS_TEST_TMPDIR/overlap.psm"
	run ps-ckpt dump "$M/part-0.psm" "$BATS_TEST_TMPDIR/overlap.psm"
	assert_failure 65
	assert_output --partial "parts disagree: feature 3 is in both"
}

# mkmodel2 DIR EPOCHS OPT: the model of setup() in format 2, one key with
# state and weight 0 more, and the optimiser's state for each key.
mkmodel2() {
	mkdir -p "$1"
	printf '1\t0.5\t-1\t4\n3\t-0.25\t2\t1\n5\t0\t0.5\t9\n10\t1e-3\t-3\t2\n' |
	    "$MKMODEL" -o "$3" -e "$2" -s 0 -n 2 -i 7 -l 0.5 -r 2 "$1/part-0.psm"
	printf '2\t-1.5\t6\t1\n4\t2\t-8\t16\n' |
	    "$MKMODEL" -o "$3" -e "$2" -s 1 -n 2 -i 7 -l 0.5 -r 2 "$1/part-1.psm"
}

@test "info shows a format 2 model's optimiser and epochs" {
	mkmodel2 "$BATS_TEST_TMPDIR/m2" 2.5 ftrl
	run ps-ckpt info "$BATS_TEST_TMPDIR/m2"
	assert_success
	assert_output "$(printf 'parts\t2\nservers\t2\niteration\t7\nlambda\t0.5
features_stored\t6\nnnz\t5\nl1_norm\t4.2510000000474975\nmax_abs_w\t2\nring_version\t2
format\t2\noptimizer\tftrl\nepochs\t2.5')"
	run ps-ckpt verify "$BATS_TEST_TMPDIR/m2"
	assert_success
	assert_output ''
}

@test "dump, export, diff, predict and eval read a format 2 model's weights" {
	mkmodel2 "$BATS_TEST_TMPDIR/m2" 1 adagrad
	[ "$(ps-ckpt dump "$BATS_TEST_TMPDIR/m2")" = "$(ps-ckpt dump "$M")" ]
	run ps-ckpt dump "$BATS_TEST_TMPDIR/m2"
	refute_line --regexp '^5	'
	[ "$(ps-ckpt export "$BATS_TEST_TMPDIR/m2")" = "$(ps-ckpt export "$M")" ]
	run ps-ckpt diff "$M" "$BATS_TEST_TMPDIR/m2"
	assert_success
	printf '1 1:1 2:1 3:2\n-1 4:1 10:3\n' >"$BATS_TEST_TMPDIR/rows"
	[ "$(ps-ckpt predict "$BATS_TEST_TMPDIR/m2" "$BATS_TEST_TMPDIR/rows")" = \
	    "$(ps-ckpt predict "$M" "$BATS_TEST_TMPDIR/rows")" ]
	[ "$(ps-ckpt eval "$BATS_TEST_TMPDIR/m2" "$BATS_TEST_TMPDIR/rows")" = \
	    "$(ps-ckpt eval "$M" "$BATS_TEST_TMPDIR/rows")" ]
}

@test "format 2 parts that disagree, or a corrupt one, exit 65" {
	mkmodel2 "$BATS_TEST_TMPDIR/a" 2.5 ftrl
	mkmodel2 "$BATS_TEST_TMPDIR/b" 3 ftrl
	run ps-ckpt info "$BATS_TEST_TMPDIR/a/part-0.psm" "$BATS_TEST_TMPDIR/b/part-1.psm"
	assert_failure 65
	assert_output "ps-ckpt: parts disagree: '$BATS_TEST_TMPDIR/a/part-0.psm' has epochs 2.5 but '$BATS_TEST_TMPDIR/b/part-1.psm' has 3"
	mkmodel2 "$BATS_TEST_TMPDIR/c" 2.5 adagrad
	run ps-ckpt info "$BATS_TEST_TMPDIR/a/part-0.psm" "$BATS_TEST_TMPDIR/c/part-1.psm"
	assert_failure 65
	assert_output --partial "has optimiser ftrl but '$BATS_TEST_TMPDIR/c/part-1.psm' has adagrad"
	run ps-ckpt dump "$BATS_TEST_TMPDIR/a/part-0.psm" "$M/part-1.psm"
	assert_failure 65
	assert_output --partial "is format 2 but '$M/part-1.psm' format 1"
	# The epochs' last byte: the header checksum no longer matches.
	printf '\177' | dd of="$BATS_TEST_TMPDIR/a/part-1.psm" bs=1 seek=59 conv=notrunc 2>/dev/null
	run ps-ckpt verify "$BATS_TEST_TMPDIR/a"
	assert_failure 1
	assert_output "ps-ckpt: $BATS_TEST_TMPDIR/a/part-1.psm: offset 60: header checksum mismatch"
	run "$MKMODEL" -o ftrl "$BATS_TEST_TMPDIR/bad.psm" <<<"$(printf '1\t0.5\t0\t-1')"
	assert_failure 73
	assert_output --partial "n is not a finite number >= 0"
}

@test "missing models exit 66" {
	run ps-ckpt info "$BATS_TEST_TMPDIR/nope.psm"
	assert_failure 66
	assert_output "ps-ckpt: cannot open '$BATS_TEST_TMPDIR/nope.psm': No such file or directory"
	mkdir "$BATS_TEST_TMPDIR/empty"
	run ps-ckpt dump "$BATS_TEST_TMPDIR/empty"
	assert_failure 66
	assert_output --partial "no model parts (*.psm) in '$BATS_TEST_TMPDIR/empty'"
}

@test "an output that cannot be created exits 73 and leaves nothing" {
	run ps-ckpt export -o "$BATS_TEST_TMPDIR/no/dir/m.ll" "$M"
	assert_failure 73
	assert_output --partial "$BATS_TEST_TMPDIR/no/dir/m.ll"
	run ps-ckpt export -o "$BATS_TEST_TMPDIR/ok.ll" "$BATS_TEST_TMPDIR/nope.psm"
	assert_failure 66
	[ ! -e "$BATS_TEST_TMPDIR/ok.ll" ]
}

@test "a full disk: export -o and predict -o name the output, and leave nothing" {
	F=$BATS_TEST_TMPDIR/full
	run on_full_fs "$F" ps-ckpt export -o "$F/x.ll" "$M"
	assert_failure 73
	assert_output "ps-ckpt: cannot write '$F/x.ll': No space left on device"
	refute_output --partial 'left:'
	printf '+1 1:1 2:1\n-1 3:1\n' >"$BATS_TEST_TMPDIR/rows"
	run on_full_fs "$F" ps-ckpt predict -o "$F/p.txt" "$M" "$BATS_TEST_TMPDIR/rows"
	assert_failure 73
	assert_output "ps-ckpt: cannot write '$F/p.txt': No space left on device"
	run ps-ckpt export -o "$BATS_TEST_TMPDIR/m.ll/x.ll" "$M"
	assert_failure 73
	assert_output "ps-ckpt: cannot create '$BATS_TEST_TMPDIR/m.ll/x.ll': No such file or directory"
}

@test "bad command lines exit 64 with the usage on stderr" {
	run ps-ckpt
	assert_failure 64
	assert_output --partial 'usage: ps-ckpt'
	run ps-ckpt info
	assert_failure 64
	run ps-ckpt frob "$M"
	assert_failure 64
	assert_output --partial "unknown command 'frob'"
	run ps-ckpt export -f svm "$M"
	assert_failure 64
	assert_output --partial "unknown format 'svm'"
	run ps-ckpt export -n -3 "$M"
	assert_failure 64
	run ps-ckpt dump -x "$M"
	assert_failure 64
}

@test "help and version" {
	run ps-ckpt -h
	assert_success
	assert_line --index 0 'usage: ps-ckpt [-hV] command [argument ...]'
	run ps-ckpt export -h
	assert_success
	run ps-ckpt --version
	assert_success
	assert_output --regexp '^ps-ckpt [0-9]+\.[0-9]+\.[0-9]+$'
}

@test "every subcommand takes -h and --help: the usage on stdout, exit 0" {
	for c in ls info verify seal dump diff export reshard merge install predict eval; do
		for h in -h --help; do
			run --separate-stderr ps-ckpt "$c" "$h"
			echo "ps-ckpt $c $h: $status"
			assert_success
			assert_line --index 0 'usage: ps-ckpt [-hV] command [argument ...]'
			[ -z "$stderr" ]
		done
		run ps-ckpt "$c" --bogus
		assert_failure 64
		assert_output --partial "unrecognized option '--bogus'"
	done
}

@test "the usage text matches the SYNOPSIS of ps-ckpt(1)" {
	man=$(mandoc -Tascii -O width=200 "$PSKIT_SRCDIR/man/ps-ckpt.1" | col -b |
	    sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' | sed '1d;$d;/^ *$/d' |
	    sed 's/^ *//; s/  */ /g')
	usage=$(ps-ckpt -h | sed -n '/^usage:/,/^$/p' | sed '/^$/d' |
	    sed 's/^usage: //; s/^ *//; s/  */ /g')
	echo "man: $man"; echo "usage: $usage"
	[ -n "$man" ]
	[ "$man" = "$usage" ]
}
