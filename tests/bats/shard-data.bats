#!/usr/bin/env bats
# shard-data.bats: ps-shard-data end to end: malformed input is refused with
# exit 65, "file:line: reason" and no output file; shards round-trip; the
# counts of real data sets; the command line.

load helper

bats_require_minimum_version 1.5.0

setup() {
	D=$BATS_TEST_TMPDIR
}

teardown() {
	ps_reap
}

# bad_input NAME CONTENT(printf format) EXPECTED: exit 65, message, no files.
bad_input() {
	printf -- "$2" >"$D/$1"
	run ps-shard-data -q -n 2 -o "$D/out" "$D/$1"
	assert_failure 65
	assert_output --partial "$D/$1:$3"
	run ls "$D"
	refute_output --partial out
}

@test "non-numeric value" {
	bad_input bad.libsvm '+1 1:1 2:abc\n' '1: bad value '\''abc'\'' for index 2'
}

@test "index 0" {
	bad_input bad.libsvm '+1 1:1\n-1 0:1 2:1\n' '2: index 0 (use --zero-based)'
}

@test "descending index" {
	bad_input bad.libsvm '+1 9:1 7:1\n' '1: indices not ascending: 7 after 9'
}

@test "repeated index" {
	bad_input bad.libsvm '+1 5:1 5:2\n' '1: repeated index 5'
}

@test "missing label" {
	bad_input bad.libsvm '+1 1:1\n\n1:1 2:1\n' '3: missing label'
}

@test "nan value" {
	bad_input bad.libsvm '+1 1:nan\n' '1: nan or inf value'
}

@test "inf value" {
	bad_input bad.libsvm '-1 1:1\n+1 3:-Infinity\n' '2: nan or inf value'
}

@test "values float32 does not keep are counted once per file on stderr" {
	printf '+1 1:0.1 2:3\n-1 1:1440446648 3:16777217\n+1 2:1e-50\n' >"$D/r"
	run --separate-stderr ps-shard-data -q -f libsvm -o "$D/out" "$D/r"
	assert_success
	[ "$stderr" = "ps-shard-data: $D/r: 3 values rounded to float32 (first at line 2: 1440446648 -> 1440446592)" ]
	run --separate-stderr ps-shard-data -q --strict "$D/r"
	[ "$stderr" = "ps-shard-data: $D/r: 3 values rounded to float32 (first at line 2: 1440446648 -> 1440446592)" ]
	printf '+1 1:0.1 2:0.12345678\n' >"$D/k"
	run --separate-stderr ps-shard-data -q "$D/k"
	[ -z "$stderr" ]
}

@test "malformed qid" {
	bad_input bad.libsvm '+1 qid:2 1:1\n-1 qid:x 2:1\n' "2: bad qid 'qid:x' (expected qid:N, N digits)"
	bad_input bad.libsvm '+1 qid: 1:1\n' "1: bad qid 'qid:'"
	bad_input bad.libsvm '+1 qid:-1 1:1\n' "1: bad qid 'qid:-1'"
}

@test "truncated last line" {
	bad_input bad.libsvm '+1 1:1\n-1 2:0.5' '2: line not terminated by newline (truncated file?)'
}

@test "binary garbage" {
	head -c 4096 "$(command -v ps-shard-data)" >"$D/garbage"
	run ps-shard-data -q -o "$D/out" "$D/garbage"
	assert_failure 65
	assert_output --regexp "$D/garbage:[0-9]+: binary data \(NUL byte\)"
	run ls "$D"
	refute_output --partial out
}

@test "empty file" {
	bad_input empty.libsvm '' '1: no data rows'
}

@test "an error in a later file leaves no output of the earlier ones" {
	printf '+1 1:1\n' >"$D/good"
	printf '+1 1:x\n' >"$D/bad"
	run ps-shard-data -q -n 2 -f libsvm -o "$D/out" "$D/good" "$D/bad"
	assert_failure 65
	assert_output --partial "$D/bad:1: bad value"
	run ls "$D"
	refute_output --partial out
}

@test "a third label value is an error, also across files and with --strict" {
	bad_input three '+1 1:1\n-1 1:1\n1 2:1\n0 1:1\n' \
	    "4: a third label '0' after '+1' and '-1': name the positive class with -p"
	printf '1 1:1\n0 1:1\n' >"$D/a"
	printf -- '-1 1:1\n' >"$D/b"
	run ps-shard-data -q "$D/a" "$D/b"
	assert_failure 65
	assert_output --partial "$D/b:1: a third label '-1' after '1' and '0'"
	run ps-shard-data -q --strict "$D/a" "$D/b"
	assert_failure 65
	run ps-shard-data -s -p 1 "$D/a" "$D/b"
	assert_success
	assert_line --index 1 "all	3	1	1	3	1	2"
}

@test "default accepts comments, qid, blank lines and CRLF; --strict does not" {
	printf '# made by hand\r\n+1 qid:3 1:0.5 4:2 # note\r\n\r\n0\t2:1\r\n' >"$D/x"
	run ps-shard-data -s "$D/x"
	assert_success
	assert_line --index 1 "all	2	3	4	3	1	1"
	run ps-shard-data -s --strict "$D/x"
	assert_failure 65
	assert_output --partial "$D/x:1: comment line"
	printf '+1 1:0.5 4:2\n-1 2:1\n' >"$D/y"
	run ps-shard-data -s --strict "$D/y"
	assert_success
}

@test "--zero-based shifts ids by one; --positive picks the class" {
	printf '3 0:1 2:1\n1 5:1\n' >"$D/z"
	run ps-shard-data -s "$D/z"
	assert_failure 65
	run ps-shard-data -s --zero-based --positive 3 -f libsvm -o "$D/o" "$D/z"
	assert_success
	run cat "$D/o-0.libsvm"
	assert_output "$(printf '+1 1:1 3:1\n-1 6:1')"
}

@test "--no-sync writes the shards and counts that a synced run does" {
	a9a=$(ps_data a9a)
	ps-shard-data -q -s -n 2 -o "$D/s" "$a9a" >"$D/s.stats"
	ps-shard-data -q -s -n 2 --no-sync -o "$D/n" "$a9a" >"$D/n.stats"
	cmp "$D/s-0.pss" "$D/n-0.pss"
	cmp "$D/s-1.pss" "$D/n-1.pss"
	cmp "$D/s.stats" "$D/n.stats"
	# and replaces its own shards as a synced run does, no temporary left
	ps-shard-data -q -n 2 --no-sync -o "$D/s" "$a9a"
	cmp "$D/s-0.pss" "$D/n-0.pss"
	[ -z "$(find "$D" -name '*.tmp.*')" ]
}

@test "a9a round trip: 3 libsvm shards hold exactly the input rows" {
	a9a=$(ps_data a9a)
	ps-shard-data -q -n 3 -f libsvm -o "$D/a" "$a9a"
	[ "$(cat "$D"/a-[012].libsvm | wc -l)" -eq 32561 ]
	[ "$(wc -l <"$D/a-2.libsvm")" -eq 10853 ]
	sed 's/ *$//' "$a9a" | sort >"$D/want"
	cat "$D"/a-[012].libsvm | sort >"$D/got"
	cmp "$D/want" "$D/got"
}

@test "stats of a9a and mushrooms" {
	run ps-shard-data --stats "$(ps_data a9a)"
	assert_success
	assert_line --index 0 "set	rows	features	max_feature_id	nnz	positives	negatives"
	assert_line --index 1 "all	32561	123	123	451592	7841	24720"
	run ps-shard-data --stats --positive 1 "$(ps_data mushrooms)"
	assert_success
	assert_line --index 1 "all	8124	112	112	170604	3916	4208"
}

@test "stats count distinct ids on both sides of 2^24, and up to 2^64 - 1" {
	# 2^24 - 1 and 2^24 straddle the plain bitmap's end (stats.c); ids
	# repeat across rows, and far ids share a word or not.
	printf '%s\n' '+1 1:1 64:1 16777215:1 16777216:1' \
	    '-1 1:1 16777215:1 16777216:1 16777217:1 1099511627776:1' \
	    '+1 63:1 64:1 1099511627776:1 18446744073709551615:1' >"$D/ids"
	run ps-shard-data -s "$D/ids"
	assert_success
	assert_line --index 1 "all	3	8	18446744073709551615	13	2	1"
}

@test "with shards written, the all row merges theirs: the same as without" {
	# Rows that share ids end up in different outputs, on both sides of
	# the plain bitmap's end and far beyond it (stats.c, sd_stats_merge).
	printf '%s\n' '+1 1:1 64:1 16777215:1 16777216:1' \
	    '-1 1:1 16777215:1 16777216:1 16777217:1 1099511627776:1' \
	    '+1 63:1 64:1 1099511627776:1 18446744073709551615:1' \
	    '-1 2:1 64:1 1099511627777:1' >"$D/ids"
	for f in "$D/ids" "$(ps_data a9a)"; do
		ps-shard-data -s "$f" | sed -n 2p >"$D/want"
		ps-shard-data -s -n 3 --test 0.3 -o "$D/m" "$f" | sed -n 2p >"$D/got"
		cmp "$D/want" "$D/got"
	done
}

@test "binary shards: per-shard rows add up, no temporaries left" {
	run ps-shard-data -s -n 4 -o "$D/b" "$(ps_data a9a)"
	assert_success
	[ "$(echo "$output" | awk -F'\t' 'NR > 2 { s += $2 } END { print s }')" -eq 32561 ]
	[ "$(echo "$output" | awk -F'\t' 'NR > 2 { s += $5 } END { print s }')" -eq 451592 ]
	run ls "$D"
	assert_output "$(printf 'b-0.pss\nb-1.pss\nb-2.pss\nb-3.pss')"
	head -c 8 "$D/b-0.pss" | grep -q PSKSHRD1
}

@test "--test holds out a seeded fraction; same seed, same files" {
	a9a=$(ps_data a9a)
	run ps-shard-data -s -n 2 --test 0.2 --seed 7 -o "$D/s1" "$a9a"
	assert_success
	t=$(echo "$output" | awk -F'\t' '$1 == "test" { print $2 }')
	[ "$t" -gt 6112 ] && [ "$t" -lt 6912 ]
	ps-shard-data -n 2 --test 0.2 --seed 7 -o "$D/s2" "$a9a"
	cmp "$D/s1-test.pss" "$D/s2-test.pss"
	cmp "$D/s1-1.pss" "$D/s2-1.pss"
	ps-shard-data -n 2 --test 0.2 --seed 8 -o "$D/s3" "$a9a"
	! cmp -s "$D/s1-test.pss" "$D/s3-test.pss"
}

@test "--hash assigns rows regardless of their order" {
	a9a=$(ps_data a9a)
	head -n 3000 "$a9a" >"$D/fwd"
	tac "$D/fwd" >"$D/rev"
	ps-shard-data -n 3 --hash --test 0.1 -f libsvm -o "$D/f" "$D/fwd"
	ps-shard-data -n 3 --hash --test 0.1 -f libsvm -o "$D/r" "$D/rev"
	for s in 0 1 2 test; do
		[ -s "$D/f-$s.libsvm" ]
		cmp <(sort "$D/f-$s.libsvm") <(sort "$D/r-$s.libsvm")
	done
}

# same_as_stdin FILE OPTION...: ps-shard-data reads FILE (over 1 MiB: in
# halves at once, split.c) as it reads the same bytes on standard input:
# the same status, stdout, stderr (but for the name) and shards.
same_as_stdin() {
	f=$1
	shift
	rm -rf "$D/h" "$D/s"
	mkdir "$D/h" "$D/s"
	run --separate-stderr ps-shard-data -q -s "$@" -o "$D/h/o" "$f"
	hs=$status ho=$output he=${stderr//"$f"/<stdin>}
	run --separate-stderr ps-shard-data -q -s "$@" -o "$D/s/o" - <"$f"
	[ "$hs" -eq "$status" ] && [ "$ho" = "$output" ] && [ "$he" = "$stderr" ]
	(cd "$D/h" && ls) >"$D/hl"
	(cd "$D/s" && ls) >"$D/sl"
	cmp "$D/hl" "$D/sl"
	for o in $(cat "$D/hl"); do cmp "$D/h/$o" "$D/s/$o"; done
}

@test "a large file is read in halves at once, to the same shards as one pass" {
	a9a=$(ps_data a9a)
	same_as_stdin "$a9a" -n 3
	[ "$(ls "$D/h")" = "$(printf 'o-0.pss\no-1.pss\no-2.pss')" ]
	same_as_stdin "$a9a" -n 1
	same_as_stdin "$a9a" -n 2 --hash --test 0.2
	same_as_stdin "$a9a" -n 2 --test 0.2
	# Ids of 8 bytes in one half only: the other's widen as they join.
	{ cat "$a9a"; echo '+1 3:1 1099511627776:1'; } >"$D/wide2"
	same_as_stdin "$D/wide2" -n 3
	{ echo '-1 1099511627776:1'; cat "$a9a"; } >"$D/wide1"
	same_as_stdin "$D/wide1" -n 2
	# A second half of comments alone, a first half of comments alone.
	{ cat "$a9a"; yes '# a comment line' | head -n 200000; } >"$D/c2"
	same_as_stdin "$D/c2" -n 2
	{ yes '# a comment line' | head -n 200000; cat "$a9a"; } >"$D/c1"
	same_as_stdin "$D/c1" -n 2
	assert_line --index 1 "all	32561	123	123	451592	7841	24720"
}

# after_a9a TEXT STATUS STDERR: a9a (32561 lines) and then TEXT (printf
# format) read as same_as_stdin does, with exit STATUS and STDERR.
after_a9a() {
	{ cat "$a9a"; printf -- "$1"; } >"$D/in"
	same_as_stdin "$D/in" -n 2
	assert_equal "$status" "$2"
	assert_equal "$stderr" "$3"
}

@test "the second half's errors, labels and rounded values name their lines as one pass does" {
	a9a=$(ps_data a9a)
	after_a9a '+1 1:1 2:x\n' 65 \
	    "ps-shard-data: <stdin>:$((32561 + 1)): bad value 'x' for index 2"
	after_a9a '0 1:1\n' 65 "ps-shard-data: <stdin>:$((32561 + 1)): a third label '0' after '-1' and '+1': name the positive class with -p"
	after_a9a '+1 1:0.1\n-1 2:1440446648\n' 0 "ps-shard-data: <stdin>: 1 value rounded to float32 (first at line $((32561 + 2)): 1440446648 -> 1440446592)"
	after_a9a '+1 1:1' 65 "ps-shard-data: <stdin>:$((32561 + 1)): line not terminated by newline (truncated file?)"
	# A first half with a label the second half lacks, and the reverse.
	{ head -n 100 "$a9a"; echo '1 1:1'; sed 1,100d "$a9a"; echo '0 2:1'; } >"$D/third1"
	same_as_stdin "$D/third1" -n 2
	assert_failure 65
	yes '# a comment line' | head -n 200000 >"$D/none"
	same_as_stdin "$D/none" -n 2
	assert_equal "$stderr" "ps-shard-data: <stdin>:200001: no data rows"
}

@test "stdin is read as '-' and named <stdin>" {
	run bash -c "printf '+1 1:1\n-1 2:1\n' | ps-shard-data -s -"
	assert_success
	assert_line --index 1 "all	2	2	2	2	1	1"
	run bash -c "printf '+1 1:1\n-1 2:x\n' | ps-shard-data -s"
	assert_failure 65
	assert_output --partial "<stdin>:2: bad value"
}

@test "bad command lines exit 64 with the usage" {
	for args in "-n 0" "-f xml" "--test 1.5" "--test 0" "--seed -1" \
	    "--positive x" "-x" "--shards"; do
		run ps-shard-data $args
		assert_failure 64
		assert_output --partial "usage: ps-shard-data"
	done
}

@test "--help, --version, missing input and unwritable output" {
	run ps-shard-data --help
	assert_success
	assert_line --index 0 --partial "usage: ps-shard-data [-hVqs]"
	run ps-shard-data -V
	assert_success
	assert_output --regexp '^ps-shard-data [0-9]+\.[0-9]+'
	run ps-shard-data -s "$D/nonexistent"
	assert_failure 66
	assert_output --partial "cannot open '$D/nonexistent': No such file or directory"
	printf '+1 1:1\n' >"$D/ok"
	run ps-shard-data -o "$D/nodir/x" "$D/ok"
	assert_failure 73
	assert_output --partial "cannot create"
}

@test "a full disk: the message names the output, not its temporary, and nothing is left" {
	F=$BATS_TEST_TMPDIR/full
	a9a=$(ps_data a9a) || skip "no a9a in $PSKIT_DATA"
	head -n 2000 "$a9a" >"$D/in.libsvm"
	run on_full_fs "$F" ps-shard-data -q -n 2 -o "$F/s" "$D/in.libsvm"
	assert_failure 74
	assert_output --regexp "^ps-shard-data: cannot write '$F/s-[01]\.pss'"
	refute_output --partial '.tmp.'
	refute_output --partial 'left:'
	run on_full_fs "$F" ps-shard-data -q -f libsvm -o "$F/s" "$D/in.libsvm"
	assert_failure 74
	assert_output --regexp "^ps-shard-data: cannot write '$F/s-0\.libsvm'"
	refute_output --partial '.tmp.'
	refute_output --partial 'left:'
}

@test "-o never overwrites a file that is not a shard of its own: 73 before any input" {
	printf '+1 1:1\n-1 2:1\n' >"$D/in"
	run ps-shard-data -q -n 2 -o "$D/s" "$D/in"
	assert_success
	cp "$D/s-0.pss" "$D/s-0.before"
	echo 'my notes' >"$D/s-1.pss"
	# The input is a FIFO nobody writes to: reading it would hang.
	mkfifo "$D/fifo"
	run timeout 10 ps-shard-data -q -n 2 -o "$D/s" "$D/fifo"
	assert_failure 73
	assert_output "ps-shard-data: refusing to overwrite '$D/s-1.pss': not a pskit shard file"
	[ "$(cat "$D/s-1.pss")" = 'my notes' ]
	cmp "$D/s-0.pss" "$D/s-0.before"
	[ -z "$(ls "$D" | grep tmp)" ]
	mkdir "$D/s-test.pss"
	rm "$D/s-1.pss"
	run timeout 10 ps-shard-data -q -n 2 --test 0.5 -o "$D/s" "$D/fifo"
	assert_failure 73
	assert_output "ps-shard-data: refusing to overwrite '$D/s-test.pss': not a pskit shard file"
	echo '+1 1:1' >"$D/t-0.libsvm"
	run timeout 10 ps-shard-data -q -f libsvm -o "$D/t" "$D/fifo"
	assert_failure 73
	assert_output "ps-shard-data: refusing to overwrite '$D/t-0.libsvm': not a pskit shard file"
	# An existing shard is replaced.
	rmdir "$D/s-test.pss"
	run ps-shard-data -q -n 2 -o "$D/s" "$D/in"
	assert_success
	cmp "$D/s-0.pss" "$D/s-0.before"
	[ -s "$D/s-1.pss" ]
}
