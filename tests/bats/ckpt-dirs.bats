#!/usr/bin/env bats
# ckpt-dirs.bats: checkpoint directories (pskit-ckpt(5)): ps-ckpt seal,
# ls, verify and the latest complete version; truncated, bit-flipped and
# rewritten parts and a corrupt MANIFEST; diff, reshard and merge, of
# format 1 and format 2 models.

load helper

MKMODEL="$PSKIT_BUILDDIR/tests/tools/ps-mkmodel"

# mkversion DIR ITERATION [RING]: the 3 parts of a model at ITERATION.
mkversion() {
	mkdir -p "$1"
	printf '1\t0.5\n4\t-0.25\n7\t2\n' |
	    "$MKMODEL" -s 0 -n 3 -i "$2" -l 0.5 -r "${3:-4}" "$1/part-0.psm"
	printf '2\t-1.5\n5\t%s\n' "$2" |
	    "$MKMODEL" -s 1 -n 3 -i "$2" -l 0.5 -r "${3:-4}" "$1/part-1.psm"
	printf '3\t1\n' |
	    "$MKMODEL" -s 2 -n 3 -i "$2" -l 0.5 -r "${3:-4}" "$1/part-2.psm"
}

# A checkpoint directory: 10 and 20 sealed, 30 never sealed; made once,
# copied for each test.
setup_file() {
	local ck=$BATS_FILE_TMPDIR/ck
	mkversion "$ck/v000000000010" 10
	ps-ckpt seal "$ck/v000000000010"
	mkversion "$ck/v000000000020" 20
	ps-ckpt seal "$ck/v000000000020"
	mkversion "$ck/v000000000030" 30
}

setup() {
	CK="$BATS_TEST_TMPDIR/ck"
	V10="$CK/v000000000010" V20="$CK/v000000000020" V30="$CK/v000000000030"
	cp -a "$BATS_FILE_TMPDIR/ck" "$CK"
}

teardown() {
	ps_reap
}

# crc_of PART: its record checksum (last 4 bytes, little-endian) in hex.
crc_of() {
	tail -c 4 "$1" | od -An -tx4 | tr -d ' '
}

# flip FILE OFFSET: invert the bits of one byte.
flip() {
	local b
	b=$(od -An -tu1 -j "$2" -N 1 "$1" | tr -d ' ')
	printf "\\$(printf '%03o' $((b ^ 255)))" |
	    dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}

@test "seal writes a MANIFEST listing every part, its size and record checksum" {
	run cat "$V20/MANIFEST"
	assert_success
	assert_line --index 0 'pskit-manifest 1'
	assert_line --index 1 'iteration 20'
	assert_line --index 2 'ring_version 4'
	assert_line --index 3 'servers 3'
	assert_line --index 4 'lambda 0.5'
	for s in 0 1 2; do
		assert_line --index $((5 + s)) "part $s part-$s.psm $(stat -c %s "$V20/part-$s.psm") $(crc_of "$V20/part-$s.psm")"
	done
	assert_line --index 8 --regexp '^crc32c [0-9a-f]{8}$'
	[ "${#lines[@]}" -eq 9 ]
	[ ! -e "$V30/MANIFEST" ]
}

@test "ls shows each version, complete, incomplete or corrupt, by iteration" {
	mkversion "$CK/v000000000005" 5
	ps-ckpt seal "$CK/v000000000005"
	head -c 60 "$V10/part-1.psm" >"$V10/part-1.psm.new"
	mv "$V10/part-1.psm.new" "$V10/part-1.psm"
	mkdir "$CK/notes" "$CK/v12"
	run ps-ckpt ls "$CK"
	assert_success
	assert_line --index 0 "$(printf 'version\titeration\tring_version\tservers\tparts\tstate\treason')"
	assert_line --index 1 "$(printf 'v000000000005\t5\t4\t3\t3\tcomplete\t-')"
	assert_line --index 2 "$(printf 'v000000000010\t10\t4\t3\t3\tcorrupt\t%s' "$V10/part-1.psm: offset 60: truncated (header says 2 records)")"
	assert_line --index 3 "$(printf 'v000000000020\t20\t4\t3\t3\tcomplete\t-')"
	assert_line --index 4 "$(printf 'v000000000030\t30\t-\t-\t3\tincomplete\tno MANIFEST')"
	[ "${#lines[@]}" -eq 5 ]
	run ps-ckpt ls -j "$CK"
	assert_success
	assert_line --index 0 '{"version":"v000000000005","iteration":5,"ring_version":4,"servers":3,"parts":3,"state":"complete","reason":null}'
	assert_line --index 3 '{"version":"v000000000030","iteration":30,"ring_version":null,"servers":null,"parts":3,"state":"incomplete","reason":"no MANIFEST"}'
	[ "${#lines[@]}" -eq 4 ]
}

@test "ls of a model or a version, not a checkpoint directory, exits 65 saying so" {
	mkdir "$BATS_TEST_TMPDIR/m"
	cp "$V20"/part-*.psm "$BATS_TEST_TMPDIR/m"
	run ps-ckpt ls "$BATS_TEST_TMPDIR/m"
	assert_failure 65
	assert_output "ps-ckpt: '$BATS_TEST_TMPDIR/m' is a model, not a checkpoint directory (see ps-ckpt info)"
	run ps-ckpt ls -j "$V20"
	assert_failure 65
	assert_output "ps-ckpt: '$V20' is a checkpoint version, not a checkpoint directory (see ps-ckpt info)"
	mkdir "$BATS_TEST_TMPDIR/new"	# a checkpoint directory with no version yet
	run ps-ckpt ls "$BATS_TEST_TMPDIR/new"
	assert_success
	[ "${#lines[@]}" -eq 1 ]
}

@test "a checkpoint directory means its latest complete version" {
	run ps-ckpt info "$CK"
	assert_success
	assert_line "$(printf 'iteration\t20')"
	assert_line "$(printf 'version\t%s' "$V20")"
	[ "$(ps-ckpt dump "$CK")" = "$(ps-ckpt dump "$V20")" ]
	assert_equal "$(ps-ckpt dump "$CK" | grep '^5	')" "$(printf '5\t20')"
	# A corrupt latest version is skipped as well.
	flip "$V20/part-0.psm" 30
	run ps-ckpt info "$CK"
	assert_success
	assert_line "$(printf 'iteration\t10')"
	# None complete: refused, naming the latest one's problem.
	rm "$V10/MANIFEST"
	run ps-ckpt dump "$CK"
	assert_failure 65
	assert_output "ps-ckpt: no complete version in '$CK' (the latest: '$V30' is incomplete: no MANIFEST)"
}

@test "verify is silent and exits 0 on a sound model, version or directory" {
	run ps-ckpt verify "$V10"
	assert_success
	assert_output ''
	run ps-ckpt verify "$V30/part-0.psm" "$V30/part-1.psm" "$V30/part-2.psm"
	assert_success
	assert_output ''
	# Every version of a directory; an unsealed one is only a warning.
	run ps-ckpt verify "$CK"
	assert_success
	assert_output "ps-ckpt: warning: '$CK/v000000000030' is incomplete: no MANIFEST"
}

@test "verify exits 1 on a truncated part, naming the file and offset" {
	head -c 70 "$V20/part-1.psm" >"$BATS_TEST_TMPDIR/short"
	mv "$BATS_TEST_TMPDIR/short" "$V20/part-1.psm"
	run ps-ckpt verify "$V20"
	assert_failure 1
	assert_output "ps-ckpt: $V20/part-1.psm: offset 70: truncated (header says 2 records)"
	run ps-ckpt verify "$CK"
	assert_failure 1
	assert_line "ps-ckpt: $V20/part-1.psm: offset 70: truncated (header says 2 records)"
	# Loading it is refused with the same message.
	run ps-ckpt dump "$V20"
	assert_failure 65
	assert_output "ps-ckpt: $V20/part-1.psm: offset 70: truncated (header says 2 records)"
}

@test "verify exits 1 on a bit-flipped part, naming the file and offset" {
	flip "$V20/part-0.psm" 60
	run ps-ckpt verify "$V20"
	assert_failure 1
	assert_output "ps-ckpt: $V20/part-0.psm: offset 88: record checksum mismatch"
	run ps-ckpt verify "$V20/part-0.psm"
	assert_failure 1
	flip "$V20/part-0.psm" 60
	flip "$V20/part-2.psm" 20
	run ps-ckpt verify "$V20"
	assert_failure 1
	assert_output "ps-ckpt: $V20/part-2.psm: offset 48: header checksum mismatch"
}

@test "verify exits 1 on a corrupt or truncated MANIFEST, naming its line" {
	cp "$V20/MANIFEST" "$BATS_TEST_TMPDIR/good"
	sed -i 's/^iteration 20$/iteration 21/' "$V20/MANIFEST"
	run ps-ckpt verify "$V20"
	assert_failure 1
	assert_output --regexp "^ps-ckpt: $V20/MANIFEST:9: checksum mismatch \\(the manifest says [0-9a-f]{8}, its contents give [0-9a-f]{8}\\)$"
	head -n 7 "$BATS_TEST_TMPDIR/good" >"$V20/MANIFEST"
	run ps-ckpt verify "$V20"
	assert_failure 1
	assert_output "ps-ckpt: $V20/MANIFEST:7: the last line is not 'crc32c CRC' (truncated manifest?)"
	printf 'junk' >"$V20/MANIFEST"
	run ps-ckpt info "$V20"
	assert_failure 65
	assert_output "ps-ckpt: $V20/MANIFEST:1: the last line does not end in a newline (truncated manifest?)"
}

@test "verify exits 1 on a part rewritten or lost after the MANIFEST" {
	printf '1\t0.5\n4\t-0.25\n7\t3\n' |
	    "$MKMODEL" -s 0 -n 3 -i 20 -l 0.5 -r 4 "$V20/part-0.psm"
	run ps-ckpt verify "$V20"
	assert_failure 1
	assert_output "ps-ckpt: $V20/part-0.psm: offset 88: record checksum $(crc_of "$V20/part-0.psm"), the manifest says $(sed -n 's/^part 0 part-0.psm 92 //p' "$V20/MANIFEST") (rewritten after the manifest?)"
	rm "$V20/part-0.psm"
	run ps-ckpt verify "$V20"
	assert_failure 1
	assert_output "ps-ckpt: $V20/part-0.psm: missing (the manifest lists it)"
	run ps-ckpt verify "$V30"
	assert_failure 1
	assert_output "ps-ckpt: '$V30' is incomplete: no MANIFEST"
	run ps-ckpt verify "$BATS_TEST_TMPDIR/nope"
	assert_failure 66
}

@test "a version is given alone, and an unsealed one is not loaded" {
	run ps-ckpt info "$V30"
	assert_failure 65
	assert_output "ps-ckpt: '$V30' is incomplete: no MANIFEST"
	run ps-ckpt dump "$V10" "$V20/part-0.psm"
	assert_failure 65
	assert_output "ps-ckpt: '$V10' is a checkpoint version: give it alone"
	run ps-ckpt info "$V30"/part-*.psm
	assert_success
}

@test "seal refuses missing parts, two rings, a misnamed directory" {
	rm "$V30/part-2.psm"
	run ps-ckpt seal "$V30"
	assert_failure 65
	assert_output "ps-ckpt: '$V30' has no part of server 2 (3 servers, 2 parts)"
	mkversion "$V30" 30 5
	printf '3\t1\n' | "$MKMODEL" -s 2 -n 3 -i 30 -l 0.5 -r 4 "$V30/part-2.psm"
	run ps-ckpt seal "$V30"
	assert_failure 65
	assert_output "ps-ckpt: parts disagree: '$V30/part-0.psm' has ring version 5 but '$V30/part-2.psm' has 4"
	mkversion "$CK/v000000000031" 30
	run ps-ckpt seal "$CK/v000000000031"
	assert_failure 65
	assert_output "ps-ckpt: '$CK/v000000000031' is named for iteration 31 but holds iteration 30"
	[ ! -e "$CK/v000000000031/MANIFEST" ]
	mkdir "$BATS_TEST_TMPDIR/empty"
	run ps-ckpt seal "$BATS_TEST_TMPDIR/empty"
	assert_failure 66
	mkversion "$BATS_TEST_TMPDIR/ro" 7
	mkdir "$BATS_TEST_TMPDIR/ro/MANIFEST"
	run ps-ckpt seal "$BATS_TEST_TMPDIR/ro"
	assert_failure 73
	assert_output "ps-ckpt: cannot replace '$BATS_TEST_TMPDIR/ro/MANIFEST': Is a directory"
	[ -z "$(ls "$BATS_TEST_TMPDIR/ro" | grep tmp)" ]
}

@test "diff prints the changed weights, a summary, and exits 1 when they differ" {
	run ps-ckpt diff "$V10" "$CK"
	assert_failure 1
	assert_output "$(printf '5\t10\t20\nchanged\t1\nl2_distance\t10\nmax_abs_distance\t10\nnnz_a\t6\nnnz_b\t6')"
	run sh -c "ps-ckpt diff '$V10' '$CK' 2>/dev/null"
	assert_failure 1
	assert_output "$(printf '5\t10\t20')"
	# A stored zero is the same as an absent feature.
	printf '1\t0.5\n4\t-0.25\n7\t0\n9\t-3\n' |
	    "$MKMODEL" -i 20 -l 0.5 "$BATS_TEST_TMPDIR/p0.psm"
	run ps-ckpt diff -q "$V20" "$BATS_TEST_TMPDIR/p0.psm"
	assert_failure 1
	assert_output "$(printf 'changed\t5\nl2_distance\t%s\nmax_abs_distance\t20\nnnz_a\t6\nnnz_b\t3' \
	    "$(awk 'BEGIN { printf "%.17g", sqrt(1.5^2 + 1 + 20^2 + 2^2 + 3^2) }')")"
	run ps-ckpt diff -q "$V20" "$V20/part-0.psm" "$V20"
	assert_failure 64
	run ps-ckpt diff "$CK" "$V20"
	assert_success
	assert_output "$(printf 'changed\t0\nl2_distance\t0\nmax_abs_distance\t0\nnnz_a\t6\nnnz_b\t6')"
}

@test "reshard -r puts every key in the part of its primary under the ring" {
	ps-ring init -o "$BATS_TEST_TMPDIR/ring" 127.0.0.1:7001 127.0.0.1:7002 127.0.0.1:7003 127.0.0.1:7004
	run ps-ckpt reshard -r "$BATS_TEST_TMPDIR/ring" -o "$BATS_TEST_TMPDIR/r4" "$CK"
	assert_success
	assert_output ''
	run ps-ckpt verify "$BATS_TEST_TMPDIR/r4"
	assert_success
	grep -qx 'servers 4' "$BATS_TEST_TMPDIR/r4/MANIFEST"
	grep -qx 'ring_version 1' "$BATS_TEST_TMPDIR/r4/MANIFEST"
	grep -qx 'iteration 20' "$BATS_TEST_TMPDIR/r4/MANIFEST"
	for s in 0 1 2 3; do
		ps-ckpt dump "$BATS_TEST_TMPDIR/r4/part-$s.psm" 2>/dev/null | cut -f 1 |
		    ps-ring lookup "$BATS_TEST_TMPDIR/ring" | cut -f 2 | sort -u >"$BATS_TEST_TMPDIR/owners"
		[ ! -s "$BATS_TEST_TMPDIR/owners" ] || [ "$(cat "$BATS_TEST_TMPDIR/owners")" = "$s" ]
	done
	run ps-ckpt diff -q "$CK" "$BATS_TEST_TMPDIR/r4"
	assert_success
}

@test "reshard -n and merge write complete versions, or nothing" {
	run ps-ckpt reshard -n 5 -o "$CK/v000000000020x" "$CK"
	assert_success
	run ps-ckpt ls -j "$BATS_TEST_TMPDIR/ck"
	refute_output --partial 'v000000000020x'
	run ps-ckpt info "$CK/v000000000020x"
	assert_line "$(printf 'parts\t5')"
	run ps-ckpt merge -o "$BATS_TEST_TMPDIR/one" "$CK/v000000000020x"
	assert_success
	run ps-ckpt info "$BATS_TEST_TMPDIR/one"
	assert_line "$(printf 'servers\t1')"
	assert_line "$(printf 'ring_version\t4')"
	[ "$(ps-ckpt dump "$BATS_TEST_TMPDIR/one")" = "$(ps-ckpt dump "$CK")" ]
	# The output exists, its parent does not, the model is partial.
	run ps-ckpt merge -o "$BATS_TEST_TMPDIR/one" "$CK"
	assert_failure 73
	assert_output "ps-ckpt: cannot create '$BATS_TEST_TMPDIR/one': File exists"
	run ps-ckpt reshard -n 2 -o "$BATS_TEST_TMPDIR/no/out" "$CK"
	assert_failure 73
	run ps-ckpt merge -o "$BATS_TEST_TMPDIR/half" "$V30/part-0.psm"
	assert_failure 65
	assert_output "ps-ckpt: only 1 part of a model from 3 servers"
	run ps-ckpt reshard -n 2 -o "$CK/v000000000021" "$CK"
	assert_failure 65
	assert_output "ps-ckpt: '$CK/v000000000021' is named for iteration 21 but holds iteration 20"
	run ls "$BATS_TEST_TMPDIR" "$CK"
	refute_output --partial '.tmp.'
	refute_output --partial 'half'
	refute_output --partial 'v000000000021'
}

@test "reshard and merge keep a format 2 model's optimiser state" {
	mkdir "$BATS_TEST_TMPDIR/m2"
	printf '1\t0.5\t-1\t4\n2\t0\t0.5\t9\n3\t-2\t6\t1\n' |
	    "$MKMODEL" -o ftrl -e 1.5 -s 0 -n 2 -i 20 -l 0.5 -r 4 "$BATS_TEST_TMPDIR/m2/part-0.psm"
	printf '8\t0\t0\t0\n9\t1\t-3\t2.25\n' |
	    "$MKMODEL" -o ftrl -e 1.5 -s 1 -n 2 -i 20 -l 0.5 -r 4 "$BATS_TEST_TMPDIR/m2/part-1.psm"
	run ps-ckpt reshard -n 3 -o "$BATS_TEST_TMPDIR/r3" "$BATS_TEST_TMPDIR/m2"
	assert_success
	run ps-ckpt info "$BATS_TEST_TMPDIR/r3"
	assert_line "$(printf 'parts\t3')"
	assert_line "$(printf 'features_stored\t5')"
	assert_line "$(printf 'format\t2')"
	assert_line "$(printf 'optimizer\tftrl')"
	assert_line "$(printf 'epochs\t1.5')"
	run ps-ckpt verify "$BATS_TEST_TMPDIR/r3"
	assert_success
	# Merged, directly or after the reshard: the same part, byte for byte.
	ps-ckpt merge -o "$BATS_TEST_TMPDIR/one" "$BATS_TEST_TMPDIR/m2"
	ps-ckpt merge -o "$BATS_TEST_TMPDIR/back" "$BATS_TEST_TMPDIR/r3"
	cmp "$BATS_TEST_TMPDIR/one/part-0.psm" "$BATS_TEST_TMPDIR/back/part-0.psm"
	[ "$(stat -c %s "$BATS_TEST_TMPDIR/one/part-0.psm")" -eq $((68 + 5 * 28)) ]
}

@test "reshard and merge command lines" {
	run ps-ckpt reshard -o "$BATS_TEST_TMPDIR/x" "$CK"
	assert_failure 64
	run ps-ckpt reshard -n 2 -r "$BATS_TEST_TMPDIR/ring" -o "$BATS_TEST_TMPDIR/x" "$CK"
	assert_failure 64
	run ps-ckpt reshard -n 0 -o "$BATS_TEST_TMPDIR/x" "$CK"
	assert_failure 64
	assert_output --partial "invalid number of parts '0' (expected 1-4096)"
	run ps-ckpt reshard -n 2 "$CK"
	assert_failure 64
	run ps-ckpt merge "$CK"
	assert_failure 64
	run ps-ckpt reshard -r "$BATS_TEST_TMPDIR/nope" -o "$BATS_TEST_TMPDIR/x" "$CK"
	assert_failure 66
	[ ! -e "$BATS_TEST_TMPDIR/x" ]
}
