#!/usr/bin/env bats
# ckpt-score.bats: ps-ckpt predict and eval on a model that ps-train
# learns from a9a, kept as a checkpoint directory: predict agrees with
# liblinear-predict -b 1 on the exported model row by row, eval with an
# independent computation (awk) of AUC, log loss and accuracy.

load helper

setup_file() {
	export BATS_FILE_TMPDIR
	local it
	ps_data a9a >/dev/null || return 0
	ps_data a9a.t >/dev/null
	ps_data mushrooms >/dev/null
	ps-train -q -s 3 -w 2 -o "$BATS_FILE_TMPDIR/model" "$BATS_FILE_TMPDIR/a9a" 2>/dev/null
	it=$(ps-ckpt info "$BATS_FILE_TMPDIR/model" | sed -n 's/^iteration\t//p')
	mkdir "$BATS_FILE_TMPDIR/ck"
	ps-ckpt reshard -r "$BATS_FILE_TMPDIR/model/ring" \
	    -o "$(printf '%s/ck/v%012d' "$BATS_FILE_TMPDIR" "$it")" "$BATS_FILE_TMPDIR/model"
}

setup() {
	[ -f "$BATS_FILE_TMPDIR/a9a" ] || skip "a9a is not in $PSKIT_DATA"
	CK="$BATS_FILE_TMPDIR/ck"
	TEST="$BATS_FILE_TMPDIR/a9a.t"
}

teardown() {
	ps_reap
}

# within A B TOL: files A and B have the same lines, and the same numbers
# (whitespace-separated) within TOL in absolute value.
within() {
	awk -v tol="$3" 'NR == FNR { a[FNR] = $0; next }
	    { n = split(a[FNR], x); m = split($0, y)
	      if (n != m) { print "line " FNR ": " a[FNR] " | " $0; bad = 1; exit }
	      for (i = 1; i <= n; i++) {
		d = x[i] - y[i]; if (d < 0) d = -d
		if (x[i] != y[i] && (x[i] !~ /^[-0-9.e+]+$/ || d > tol)) {
			print "line " FNR ": " a[FNR] " | " $0; bad = 1; exit
		}
	      } }
	    END { if (!bad && NR != 2 * FNR) { print "line counts differ"; bad = 1 }
		  exit bad }' "$1" "$2"
}

@test "predict -l prints what liblinear-predict -b 1 prints for the export" {
	ps-ckpt export -f liblinear -n 123 -o "$BATS_TEST_TMPDIR/m.ll" "$CK"
	run liblinear-predict -b 1 "$TEST" "$BATS_TEST_TMPDIR/m.ll" "$BATS_TEST_TMPDIR/theirs"
	assert_success
	assert_output --partial 'Accuracy = '
	run ps-ckpt predict -l "$CK" "$TEST"
	assert_success
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/ours"
	[ "${lines[0]}" = 'labels 1 -1' ]
	[ "${#lines[@]}" -eq 16282 ]
	within "$BATS_TEST_TMPDIR/ours" "$BATS_TEST_TMPDIR/theirs" 1e-6
}

@test "predict prints P(y = +1) per row, from files, - and stdin" {
	ps-ckpt export -n 123 -o "$BATS_TEST_TMPDIR/m.ll" "$CK"
	liblinear-predict -b 1 "$TEST" "$BATS_TEST_TMPDIR/m.ll" "$BATS_TEST_TMPDIR/theirs" >/dev/null
	sed 1d "$BATS_TEST_TMPDIR/theirs" | cut -d ' ' -f 2 >"$BATS_TEST_TMPDIR/p1"
	ps-ckpt predict "$CK" "$TEST" >"$BATS_TEST_TMPDIR/ours"
	within "$BATS_TEST_TMPDIR/ours" "$BATS_TEST_TMPDIR/p1" 1e-6
	head -n 1 "$BATS_TEST_TMPDIR/ours" | grep -Eqx '0\.[0-9]{14,}'
	ps-ckpt predict "$CK" <"$TEST" | cmp - "$BATS_TEST_TMPDIR/ours"
	head -n 100 "$TEST" | ps-ckpt predict "$CK" - "$TEST" >"$BATS_TEST_TMPDIR/both"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/both")" -eq 16381 ]
	sed 1,100d "$BATS_TEST_TMPDIR/both" | cmp - "$BATS_TEST_TMPDIR/ours"
	# The parts, the version and the plain directory are the same model.
	ps-ckpt predict "$BATS_FILE_TMPDIR/model" "$TEST" | cmp - "$BATS_TEST_TMPDIR/ours"
}

@test "predict -o writes atomically; a bad row exits 65 and leaves no file" {
	run ps-ckpt predict -o "$BATS_TEST_TMPDIR/p" "$CK" "$TEST"
	assert_success
	assert_output ''
	[ "$(wc -l <"$BATS_TEST_TMPDIR/p")" -eq 16281 ]
	{ head -n 5 "$TEST"; echo '+1 3:1 2:1'; } >"$BATS_TEST_TMPDIR/bad"
	run ps-ckpt predict -o "$BATS_TEST_TMPDIR/q" "$CK" "$TEST" "$BATS_TEST_TMPDIR/bad"
	assert_failure 65
	assert_output "ps-ckpt: $BATS_TEST_TMPDIR/bad:6: indices not ascending: 2 after 3"
	run ls "$BATS_TEST_TMPDIR"
	refute_output --partial 'q'
	run sh -c "printf '+1 1:1\\n-1 2:x\\n' | ps-ckpt predict '$CK'"
	assert_failure 65
	assert_output --partial 'ps-ckpt: <stdin>:2: '
	run ps-ckpt predict "$CK" "$BATS_TEST_TMPDIR/nope"
	assert_failure 66
	run ps-ckpt predict -o "$BATS_TEST_TMPDIR/no/dir/p" "$CK" "$TEST"
	assert_failure 73
}

@test "eval agrees with AUC, log loss and accuracy computed from predict" {
	ps-ckpt predict "$CK" "$TEST" >"$BATS_TEST_TMPDIR/p"
	cut -d ' ' -f 1 "$TEST" | paste - "$BATS_TEST_TMPDIR/p" >"$BATS_TEST_TMPDIR/yp"
	# Log loss and accuracy row by row; AUC by ranks, ties at mid-rank.
	awk -F'\t' '{ y = ($1 > 0); p = $2; n++; pos += y
	    ll += y ? -log(p) : -log(1 - p); ok += ((p > 0.5) == y) }
	    END { printf "rows\t%d\npositives\t%d\nlogloss\t%.12g\naccuracy\t%.12g\n",
		n, pos, ll / n, ok / n }' "$BATS_TEST_TMPDIR/yp" >"$BATS_TEST_TMPDIR/want"
	sort -t "$(printf '\t')" -k2,2g "$BATS_TEST_TMPDIR/yp" | awk -F'\t' '
	    { i++
	      if (i == 1) start = 1
	      else if ($2 != last) { rs += tiepos * (start + i - 1) / 2; tiepos = 0; start = i }
	      last = $2; y = ($1 > 0); tiepos += y; P += y; N += !y }
	    END { rs += tiepos * (start + i) / 2
		  printf "auc\t%.12g\n", (rs - P * (P + 1) / 2) / (P * N) }' \
	    >>"$BATS_TEST_TMPDIR/want"
	run ps-ckpt eval "$CK" "$TEST"
	assert_success
	assert_line --index 0 "$(printf 'rows\t16281')"
	assert_line --index 1 "$(printf 'positives\t3846')"
	printf '%s\n' "$output" | awk -F'\t' '{ printf "%s\t%.12g\n", $1, $2 }' |
	    sort >"$BATS_TEST_TMPDIR/got"
	sort "$BATS_TEST_TMPDIR/want" | diff - "$BATS_TEST_TMPDIR/got"
	# The accuracy liblinear-predict reports.
	ps-ckpt export -n 123 -o "$BATS_TEST_TMPDIR/m.ll" "$CK"
	acc=$(liblinear-predict "$TEST" "$BATS_TEST_TMPDIR/m.ll" /dev/null |
	    sed -n 's/^Accuracy = .*(\([0-9]*\)\/\([0-9]*\))$/\1 \2/p')
	assert_line "$(awk -v a="$acc" 'BEGIN { split(a, x, " "); printf "accuracy\t%.17g", x[1] / x[2] }')"
}

@test "eval -j prints one JSON object; -p picks the positive label" {
	run ps-ckpt eval -j "$CK" "$TEST"
	assert_success
	assert_output --regexp '^\{"rows":16281,"positives":3846,"auc":0\.9[0-9]+,"logloss":0\.[0-9]+,"accuracy":0\.8[0-9]+\}$'
	tsv=$(ps-ckpt eval "$CK" <"$TEST" | awk -F'\t' '{ printf "%s\"%s\":%s", (NR > 1 ? "," : "{"), $1, $2 } END { print "}" }')
	assert_output "$tsv"
	# mushrooms has labels 1 and 2.
	run ps-ckpt eval "$CK" "$BATS_FILE_TMPDIR/mushrooms"
	assert_failure 65
	assert_output --regexp "mushrooms:[0-9]+: bad label '2'"
	run ps-ckpt eval -p 1 "$CK" "$BATS_FILE_TMPDIR/mushrooms"
	assert_success
	assert_line --index 0 "$(printf 'rows\t8124')"
	assert_line --index 1 "$(printf 'positives\t3916')"
	run ps-ckpt eval --positive 2 "$CK" "$BATS_FILE_TMPDIR/mushrooms"
	assert_line --index 1 "$(printf 'positives\t4208')"
}

@test "predict and eval command lines" {
	run ps-ckpt predict
	assert_failure 64
	run ps-ckpt eval -x "$CK"
	assert_failure 64
	run ps-ckpt eval -p one "$CK" "$TEST"
	assert_failure 64
	assert_output --partial "invalid label 'one'"
	run ps-ckpt predict "$BATS_TEST_TMPDIR/nope" "$TEST"
	assert_failure 66
	run ps-ckpt predict -h
	assert_success
	assert_line --partial 'ps-ckpt predict [-l] [-o file] [-p positive] model [data ...]'
}
