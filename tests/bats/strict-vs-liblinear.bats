#!/usr/bin/env bats
# strict-vs-liblinear.bats: ps-shard-data --strict against LIBLINEAR 2.3's
# reader (Debian's liblinear-train -s 6) as the oracle, one small input per
# edge case.  LIBLINEAR rejects an input iff it says "Wrong input format"
# (index 2^31-1 passes its reader, then fails to allocate the model).
# Every case runs with --positive 1 so that only the syntax is compared, not the
# label rules of ps-shard-data(1).  A case marked "pskit" is a deliberate
# difference: LIBLINEAR accepts, --strict refuses (see ps-shard-data(1)).

load helper

# The table: name, "same" or "pskit", input as a printf format.
cases() {
	cat <<'TABLE'
index-0	same	+1 0:1\n
index-negative	same	+1 -1:1\n
index-2^31-1	same	+1 2147483647:1\n
index-2^31	same	+1 2147483648:1\n
index-2^32	same	+1 4294967296:1\n
index-2^32+5	pskit	+1 4294967301:1\n
index-huge	same	+1 99999999999999999999999:1\n
index-10^15	same	+1 1000000000000000:1\n
index-plus	same	+1 +3:1\n
index-hex	same	+1 0x3:1\n
index-leading-zeros	same	+1 003:1\n
index-after-two-blanks	same	+1  3:1\n
non-ascending	same	+1 3:1 2:1\n
repeated	same	+1 3:1 3:1\n
value-underflow	same	+1 1:1e-400\n
value-subnormal	same	+1 1:1e-310\n
value-below-float	same	+1 1:1e-50\n
value-overflow	same	+1 1:1e400\n
value-nan	pskit	+1 1:nan\n
value-inf	pskit	+1 1:inf\n
value-minus-inf	pskit	+1 1:-inf\n
value-hex-float	same	+1 1:0x1p3\n
value-hex-int	same	+1 1:0x10\n
value-plus	same	+1 1:+2\n
value-empty	same	+1 1: 2:1\n
value-after-blank	same	+1 1: 2\n
value-junk	same	+1 1:1x\n
value-dot	same	+1 1:.\n
value-comma	same	+1 1:1,5\n
colon-at-end	same	+1 1:\n
colon-first	same	+1 :1\n
double-colon	same	+1 1::2\n
missing-label	same	1:1 2:1\n
label-nan	pskit	nan 1:1\n
label-inf	pskit	inf 1:1\n
label-trailing-junk	same	+1x 1:1\n
label-hex	same	0x1 1:1\n
label-1.0	same	1.0 1:1\n
label-plus-0	same	+0 1:1\n
tabs	same	+1\t1:1\t2:1\n
tab-before-colon	same	+1 1\t:1\n
crlf	same	+1 1:1\r\n-1 2:1\r\n
crlf-lone-label	same	+1\r\n
trailing-spaces	same	+1 1:1  \n
trailing-tab	same	+1 1:1\t\n
leading-space	same	 +1 1:1\n
blank-line	same	+1 1:1\n\n-1 2:1\n
blank-last-line	same	+1 1:1\n\n
blanks-only-line	same	+1 1:1\n   \n
comment-line	same	# c\n+1 1:1\n
trailing-comment	same	+1 1:1 # c\n
trailing-comment-colon	same	+1 1:1 # a:b\n
qid	same	+1 qid:3 1:1\n
trailing-word	same	+1 1:1 foo\n
trailing-word-colon	same	+1 1:1 foo:1\n
empty-file	pskit	
lone-label	same	+1\n
no-final-newline	same	+1 1:1
nul-byte	pskit	+1 1:1\0\n
TABLE
}

@test "--strict accepts exactly what liblinear-train accepts, but for the marked cases" {
	command -v liblinear-train >/dev/null || skip "liblinear-train not installed"
	local name kind text ll ps want bad=0 n=0
	while IFS='	' read -r name kind text; do
		printf -- "$text" >"$BATS_TEST_TMPDIR/$name"
		(ulimit -v 1048576; liblinear-train -s 6 -q \
		    "$BATS_TEST_TMPDIR/$name" "$BATS_TEST_TMPDIR/model") \
		    >"$BATS_TEST_TMPDIR/ll.out" 2>&1 || true
		ll=accept ps=accept
		if grep -q 'Wrong input format' "$BATS_TEST_TMPDIR/ll.out"; then
			ll=reject
		fi
		if ! ps-shard-data -q --strict --positive 1 "$BATS_TEST_TMPDIR/$name" \
		    >/dev/null 2>"$BATS_TEST_TMPDIR/ps.err"; then
			ps=reject
		fi
		want=$ll
		[ "$kind" = pskit ] && want=reject
		if [ "$kind" = pskit ] && [ "$ll" != accept ]; then
			want="reject (LIBLINEAR now rejects: unmark it)"
		fi
		printf '%-24s %-6s liblinear %-7s strict %-7s %s\n' "$name" \
		    "$kind" "$ll" "$ps" "$(cat "$BATS_TEST_TMPDIR/ps.err")"
		if [ "$ps" != "$want" ]; then
			echo "  ^ mismatch: want strict $want"
			bad=$((bad + 1))
		fi
		n=$((n + 1))
	done < <(cases)
	echo "$n cases, $bad mismatches"
	[ "$n" -ge 50 ] && [ "$bad" -eq 0 ]
}

@test "the default mode refuses nan and a NUL byte too, and takes 4294967301 and 1e-400" {
	printf '+1 1:nan\n' >"$BATS_TEST_TMPDIR/a"
	run ps-shard-data -q "$BATS_TEST_TMPDIR/a"
	assert_failure 65
	printf '+1 1:1\0\n' >"$BATS_TEST_TMPDIR/a"
	run ps-shard-data -q "$BATS_TEST_TMPDIR/a"
	assert_failure 65
	printf '+1 4294967301:1\n-1 1:1e-400\n' >"$BATS_TEST_TMPDIR/a"
	run ps-shard-data -q "$BATS_TEST_TMPDIR/a"
	assert_success
}
