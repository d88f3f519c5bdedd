#!/usr/bin/env bats
# plot.bats: ps-plot draws the progress TSV of real short training runs
# (dbpg and sgd, with and without a test set) into PNG files, and refuses
# what is not progress TSV, naming the file and line, leaving no PNG.

load helper

setup_file() {
	export BATS_FILE_TMPDIR
	local a9a d=$BATS_FILE_TMPDIR
	a9a=$(ps_data a9a) || return 0	# each test skips without it
	head -n 2000 "$a9a" >"$d/train"
	tail -n 500 "$a9a" >"$d/test"
	ps-train -q -s 1 -w 2 -e 1e-4 -T "$d/test" -o "$d/tau0" "$d/train" >/dev/null
	ps-train -q -s 1 -w 2 -e 1e-4 -t 2 -T "$d/test" -o "$d/tau2" "$d/train" >/dev/null
	ps-train -q -s 1 -w 2 -e 1e-4 -o "$d/notest" "$d/train" >/dev/null
	ps-train -q -A sgd -s 1 -w 2 -T "$d/test" -o "$d/sgd" "$d/train" >/dev/null
}

setup() {
	[ -f "$BATS_FILE_TMPDIR/train" ] || skip "no a9a in $PSKIT_DATA"
	cd "$BATS_TEST_TMPDIR"
}

# is_png FILE WIDTH HEIGHT: the PNG signature, then an IHDR of that size.
is_png() {
	[ -s "$1" ]
	[ "$(od -An -tx1 -N8 "$1" | tr -d ' \n')" = 89504e470d0a1a0a ]
	[ "$(od -An -tu1 -j16 -N8 "$1" | awk '{
	    print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4,
	        $5 * 16777216 + $6 * 65536 + $7 * 256 + $8 }')" = "$2 $3" ]
}

# no_output: no PNG and no temporary file were left behind.
no_output() {
	[ -z "$(ls "$BATS_TEST_TMPDIR" | grep -v '\.tsv$')" ]
}

# refused MESSAGE FILE...: ps-plot exits 65 with MESSAGE (a regular
# expression), leaving nothing.
refused() {
	local msg=$1
	shift
	run ps-plot -o p.png "$@"
	assert_failure 65
	assert_output --regexp "^ps-plot: $msg\$"
	no_output
}

@test "a dbpg run with a test set: objective above, test AUC below" {
	run ps-plot -o run.png "$BATS_FILE_TMPDIR/tau0/progress.tsv"
	assert_success
	assert_output ''
	is_png run.png 960 760
	[ "$(ls)" = run.png ]
}

@test "two runs overlaid by iteration, with a title; progress.png by default" {
	run ps-plot -x iter -t 'tau 0 and 2' "$BATS_FILE_TMPDIR/tau0/progress.tsv" \
	    "$BATS_FILE_TMPDIR/tau2/progress.tsv"
	assert_success
	is_png progress.png 960 760
}

@test "a run without a test set has one panel" {
	run ps-plot -o one.png "$BATS_FILE_TMPDIR/notest/progress.tsv"
	assert_success
	is_png one.png 960 480
}

@test "an sgd run from standard input to standard output" {
	ps-plot -x iter -o - - <"$BATS_FILE_TMPDIR/sgd/progress.tsv" >out.png
	is_png out.png 960 760
}

@test "an empty file is refused with its name, exit 65, and no PNG" {
	: >empty.tsv
	refused 'empty\.tsv: empty, not a progress TSV' \
	    "$BATS_FILE_TMPDIR/tau0/progress.tsv" empty.tsv
}

@test "a header without lines is refused" {
	head -n 1 "$BATS_FILE_TMPDIR/tau0/progress.tsv" >head.tsv
	refused 'head\.tsv: no progress lines' head.tsv
}

@test "a file that is not progress TSV is refused at line 1" {
	head -n 3 "$BATS_FILE_TMPDIR/train" >data.tsv
	refused "data\\.tsv:1: not a progress TSV \\(the header starts '-1 3:1 11:1 14:1 19:\\.\\.\\.', not iter or epoch\\)" \
	    data.tsv
}

@test "a short line and a bad number are refused with their line" {
	{ head -n 4 "$BATS_FILE_TMPDIR/tau0/progress.tsv"; printf '9\t1.5\n'; } >short.tsv
	refused 'short\.tsv:5: 2 fields, the header has [0-9]+' short.tsv
	awk -F'\t' -v OFS='\t' 'NR == 3 { $2 = "soon" } 1' \
	    "$BATS_FILE_TMPDIR/tau0/progress.tsv" >bad.tsv
	refused "bad\\.tsv:3: bad number 'soon' in column secs" bad.tsv
}

@test "dbpg and sgd runs are not drawn together" {
	cp "$BATS_FILE_TMPDIR/tau0/progress.tsv" dbpg.tsv
	cp "$BATS_FILE_TMPDIR/sgd/progress.tsv" sgd.tsv
	refused "sgd\\.tsv:1: sgd progress cannot be drawn with the dbpg progress of 'dbpg\\.tsv'" \
	    dbpg.tsv sgd.tsv
}

@test "a missing file exits 66, a bad command line 64, an unwritable PNG 73" {
	run ps-plot -o p.png nosuch.tsv
	assert_failure 66
	assert_output "ps-plot: cannot open 'nosuch.tsv'"
	run ps-plot -x epochs "$BATS_FILE_TMPDIR/tau0/progress.tsv"
	assert_failure 64
	assert_line "ps-plot: -x takes secs or iter, not 'epochs'"
	run ps-plot
	assert_failure 64
	assert_line --regexp '^usage: ps-plot '
	run ps-plot -o nodir/p.png "$BATS_FILE_TMPDIR/tau0/progress.tsv"
	assert_failure 73
	no_output
}

@test "--help and -h print the usage on stdout, --version and -V the version" {
	run ps-plot --help
	assert_success
	assert_line --index 0 --regexp '^usage: ps-plot \[-hV\]'
	run ps-plot -h
	assert_success
	assert_line --index 0 --regexp '^usage: ps-plot \[-hV\]'
	run ps-plot --version
	assert_output 'ps-plot 0.1.0'
	run ps-plot -V
	assert_output 'ps-plot 0.1.0'
}

@test "long options; an unknown option exits 64 naming the program, then the usage" {
	run ps-plot --bogus "$BATS_FILE_TMPDIR/tau0/progress.tsv"
	assert_failure 64
	assert_line --index 0 "ps-plot: unrecognized option '--bogus'"
	assert_line --index 1 --regexp '^usage: ps-plot \[-hV\]'
	run ps-plot -q "$BATS_FILE_TMPDIR/tau0/progress.tsv"
	assert_failure 64
	assert_line --index 0 "ps-plot: invalid option -- 'q'"
	run ps-plot --output long.png --title 'long options' --x iter \
	    "$BATS_FILE_TMPDIR/tau0/progress.tsv"
	assert_success
	is_png long.png 960 760
	rm long.png
	run ps-plot --x=epochs "$BATS_FILE_TMPDIR/tau0/progress.tsv"
	assert_failure 64
	assert_line "ps-plot: -x takes secs or iter, not 'epochs'"
	no_output
}
