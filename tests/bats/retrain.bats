#!/usr/bin/env bats
# retrain.bats: ps-retrain on the bundled a9a samples: a first run trains
# cold and promotes, later runs warm-start from the current model and
# promote only within the AUC threshold; it is silent unless -v, keeps a
# history, prunes old models; and a held lock, bad data, a corrupt current
# model or a failed training exit 75, 65 or 66 leaving everything as it was.

load helper
bats_require_minimum_version 1.5.0

# wrap DIR: in DIR/bin a ps-train that logs its arguments to
# DIR/train.args and keeps a copy of the data it was given in
# DIR/trained.libsvm, then runs the real one.
wrap() {
	mkdir "$1/bin"
	cat >"$1/bin/ps-train" <<-EOF
	#!/bin/sh
	echo "\$*" >>"$1/train.args"
	for last; do :; done
	cp "\$last" "$1/trained.libsvm"
	exec "$(command -v ps-train)" "\$@"
	EOF
	chmod +x "$1/bin/ps-train"
}

# The first run of most tests, made once for the file in first/ (see
# first_run).
setup_file() {
	local d=$BATS_FILE_TMPDIR/first
	mkdir "$d"
	wrap "$d"
	PATH=$d/bin:$PATH ps-retrain -d "$d/pskit" \
	    -T "$PSKIT_SRCDIR/scripts/sample/a9a-sample.t.libsvm" \
	    "$PSKIT_SRCDIR/scripts/sample/a9a-sample.libsvm" >"$d/out" 2>&1 ||
		rm -rf "$d/pskit"
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	TRAIN=$PSKIT_SRCDIR/scripts/sample/a9a-sample.libsvm
	HELD=$PSKIT_SRCDIR/scripts/sample/a9a-sample.t.libsvm
	D=$BATS_TEST_TMPDIR/pskit
	wrap "$BATS_TEST_TMPDIR"
	PATH=$BATS_TEST_TMPDIR/bin:$PATH
}

# retrain [OPTION...]: ps-retrain on the samples into $D.
retrain() {
	ps-retrain -d "$D" -T "$HELD" "$@" "$TRAIN"
}

# first_run: $D as after a first `retrain`: a copy of setup_file's run
# (and its line of train.args) instead of training again, for the tests
# about what later runs do; the first test checks a first run itself.
# Without setup_file's run (it failed), a real `retrain`.
first_run() {
	local f=$BATS_FILE_TMPDIR/first
	if [ -d "$f/pskit" ] && [ ! -e "$D" ]; then
		cp -a "$f/pskit" "$D" &&
		    cat "$f/train.args" >>"$BATS_TEST_TMPDIR/train.args" &&
		    cp "$f/trained.libsvm" "$BATS_TEST_TMPDIR/trained.libsvm"
	else
		retrain
	fi
}

# target: where current points.
target() {
	readlink "$D/current"
}

# state: a listing of everything ps-retrain keeps, to compare before and
# after a run that must change nothing.
state() {
	(cd "$D" && ls -AR && readlink current && cat history.tsv)
}

# history_last COLUMN: that column of the last history line.
history_last() {
	tsv_last "$D/history.tsv" "$1"
}

@test "the first run trains cold, promotes, writes the history, and says nothing" {
	run retrain
	assert_success
	assert_output ''
	[[ $(target) =~ ^models/[0-9]{8}T[0-9]{6}Z$ ]]
	run ps-ckpt verify "$D/current"
	assert_success
	[ "$(ls -A "$D/models")" = "$(basename "$(target)")" ]
	[ ! -e "$D/work" ]
	[ "$(head -n 1 "$D/history.tsv")" = "$(printf 'time\tmodel\tcurrent\tauc_new\tauc_current\tpromoted')" ]
	[ "$(wc -l <"$D/history.tsv")" -eq 2 ]
	[ "$(history_last model)" = "$(target)" ]
	[ "$(history_last current)" = - ]
	[ "$(history_last promoted)" = yes ]
	[ "$(ps-ckpt eval "$D/current" "$HELD" | awk '$1 == "auc" { print $2 }')" = "$(history_last auc_new)" ]
	run grep -c -- ' -I ' train.args
	assert_output 0
}

@test "the second run warm-starts from the current model and promotes within the threshold" {
	first_run
	first=$(target)
	run retrain -t 0.05
	assert_success
	assert_output ''
	[ "$(target)" != "$first" ]
	[ -d "$D/$first" ]
	grep -F -- "-I $(readlink -f "$D/$first") " train.args
	# Warm: the new model numbers its iterations on from the first one's.
	it1=$(ps-ckpt info "$D/$first" | awk '$1 == "iteration" { print $2 }')
	it2=$(ps-ckpt info "$D/$(target)" | awk '$1 == "iteration" { print $2 }')
	echo "iterations: first $it1, warm-started $it2"
	[ "$it2" -gt "$it1" ]
	[ "$(history_last current)" = "$first" ]
	[ "$(history_last auc_current)" = "$(sed -n 2p "$D/history.tsv" | cut -f 4)" ]
	[ "$(history_last promoted)" = yes ]
}

@test "a candidate worse by more than the threshold is kept, not promoted" {
	first_run
	first=$(target)
	run retrain -l 1e9	# every weight zero: AUC 0.5
	assert_success
	assert_output ''
	[ "$(target)" = "$first" ]
	[ "$(history_last auc_new)" = 0.5 ]
	[ "$(history_last promoted)" = no ]
	rejected=$(history_last model)
	[ "$rejected" != "$first" ]
	run ps-ckpt verify "$D/$rejected"
	assert_success
}

@test "the threshold decides: a loose one promotes that candidate, a negative one asks for a gain" {
	first_run
	first=$(target)
	run retrain -l 1e9 -t 0.5
	assert_success
	[ "$(history_last promoted)" = yes ]
	[ "$(target)" != "$first" ]
	second=$(target)
	run retrain -t -0.6	# must beat 0.5 by 0.6: no AUC can
	assert_success
	[ "$(history_last promoted)" = no ]
	[ "$(target)" = "$second" ]
}

@test "-v tells what was done on standard error, stdout stays empty" {
	run --separate-stderr retrain -v
	assert_success
	assert_output ''
	[[ $stderr == *objective* ]]
	[[ $stderr =~ "ps-retrain: promoted models/".*"current: none" ]]
	run --separate-stderr retrain -v -l 1e9
	assert_success
	assert_output ''
	[[ $stderr =~ "ps-retrain: kept models/".*", not promoted: auc 0.5 is below" ]]
}

@test "-v names the path the candidate is kept at, or says it was not kept" {
	run --separate-stderr retrain -v
	assert_success
	m=$(printf '%s\n' "$stderr" | awk -F'\t' '$1 == "model" { print $2 }')
	echo "$stderr"
	[ "$m" = "$D/$(target)" ]
	[ -d "$m" ]
	run --separate-stderr retrain -v -k 0 -l 1e9
	assert_success
	echo "$stderr"
	[ "$(printf '%s\n' "$stderr" | awk -F'\t' '$1 == "model" { print $2 }')" = - ]
	[[ $stderr =~ "ps-retrain: not promoted, not kept (-k 0): auc 0.5 is below" ]]
	[ "$(ls "$D/models")" = "$(basename "$(target)")" ]
}

@test "-k keeps the newest model directories besides the current one" {
	first_run
	retrain -l 1e9	# rejected
	retrain -k 1
	[ "$(ls "$D/models" | wc -l)" -eq 2 ]
	[ -d "$D/$(target)" ]
	[ -d "$D/$(sed -n 3p "$D/history.tsv" | cut -f 2)" ]
	run retrain -k 0 -v
	assert_output --partial 'removing models/'
	[ "$(ls "$D/models")" = "$(basename "$(target)")" ]
}

@test "several inputs and standard input are checked and gathered into one" {
	head -n 1200 "$TRAIN" >a.libsvm
	tail -n 800 "$TRAIN" >b.libsvm
	run ps-retrain -d "$D" -T "$HELD" a.libsvm - <b.libsvm
	assert_success
	ps-shard-data -q -f libsvm -o whole "$TRAIN"
	[ "$(wc -l <trained.libsvm)" -eq 2000 ]
	cmp whole-0.libsvm trained.libsvm
}

@test "a held lock: exit 75, nothing trained, nothing changed" {
	first_run
	before=$(state)
	exec 8>>"$D/lock"
	flock -n 8
	run retrain
	exec 8>&-
	assert_failure 75
	assert_output "ps-retrain: '$D/lock' is held by another run; try again later"
	[ "$(state)" = "$before" ]
	[ "$(wc -l <train.args)" -eq 1 ]
	run retrain	# free again
	assert_success
}

@test "bad new data: exit 65 naming file and line, nothing changed" {
	first_run
	before=$(state)
	{ head -n 5 "$TRAIN"; echo '+1 7:1 3:1'; } >bad.libsvm
	run ps-retrain -d "$D" -T "$HELD" "$TRAIN" bad.libsvm
	assert_failure 65
	assert_line --partial 'bad.libsvm:6:'
	assert_line 'ps-retrain: cannot check the new data (exit 65)'
	[ "$(state)" = "$before" ]
	[ "$(wc -l <train.args)" -eq 1 ]
	: >empty.libsvm
	run ps-retrain -d "$D" -T "$HELD" empty.libsvm
	assert_failure 65
	[ "$(state)" = "$before" ]
}

@test "a held-out set of one class or bad rows: exit 65, nothing changed" {
	first_run
	before=$(state)
	grep '^+1' "$HELD" >pos.libsvm
	run ps-retrain -d "$D" -T pos.libsvm "$TRAIN"
	assert_failure 65
	assert_output "ps-retrain: 'pos.libsvm' must hold rows of both classes to score models"
	grep -v '^+1' "$HELD" >neg.libsvm
	run ps-retrain -d "$D" -T neg.libsvm "$TRAIN"
	assert_failure 65
	echo 'x 1:1' >bad.libsvm
	run ps-retrain -d "$D" -T bad.libsvm "$TRAIN"
	assert_failure 65
	assert_line --partial 'bad.libsvm:1:'
	[ "$(state)" = "$before" ]
}

@test "an input that cannot be read: exit 66" {
	run ps-retrain -d "$D" -T "$HELD" no-such.libsvm
	assert_failure 66
	assert_line --partial "cannot open 'no-such.libsvm'"
	run ps-retrain -d "$D" -T no-such.libsvm "$TRAIN"
	assert_failure 66
	[ ! -e "$D/current" ]
	[ -z "$(ls -A "$D/models")" ]
}

@test "a corrupt current model: exit 65 before training, left as it is" {
	first_run
	part=$(ls "$D"/current/part-*.psm | head -n 1)
	truncate -s -5 "$part"
	before=$(state)
	run retrain
	assert_failure 65
	assert_line --partial "ps-retrain: cannot score the current model '$D/current'"
	assert_line --partial 'remove the link to train from scratch'
	[ "$(state)" = "$before" ]
	[ "$(wc -l <train.args)" -eq 1 ]
}

@test "a training failure that may pass: exit 75, no partial model" {
	first_run
	before=$(state)
	# This ps-train leaves half a model and fails as when a server is gone.
	cat >bin/ps-train <<-'EOF'
	#!/bin/sh
	while getopts A:b:e:F:hI:j:kl:m:o:p:qR:r:s:S:t:T:VW:w:z opt; do
		[ "$opt" = o ] && out=$OPTARG
	done
	mkdir -p "$out" && : >"$out/part-0.psm"
	echo 'ps-train: server 0 did not start' >&2
	exit 69
	EOF
	run retrain
	assert_failure 75
	assert_line 'ps-train: server 0 did not start'
	assert_line 'ps-retrain: training failed (exit 69); try again later'
	[ "$(state)" = "$before" ]
	[ ! -e "$D/work" ]
}

@test "a current that is not a symbolic link is left alone: exit 73" {
	mkdir -p "$D/current"
	run retrain
	assert_failure 73
	assert_output "ps-retrain: '$D/current' is not a symbolic link; move it away"
	[ ! -e train.args ]
}

@test "usage: -h on stdout, a bad command line exits 64" {
	run --separate-stderr ps-retrain -h
	assert_success
	assert_line --index 0 --partial 'usage: ps-retrain [-hVv]'
	[ -z "$stderr" ]
	run ps-retrain -d "$D" "$TRAIN"
	assert_failure 64
	assert_line --index 0 'ps-retrain: -T heldout.libsvm is required'
	run ps-retrain -d "$D" -T "$HELD" -t much "$TRAIN"
	assert_failure 64
	run ps-retrain -d "$D" -T "$HELD" -k -1 "$TRAIN"
	assert_failure 64
	run ps-retrain -d "$D" -T "$HELD"
	assert_failure 64
	[ ! -e "$D" ]
}

@test "-h lists every exit status that ps-retrain(1) lists" {
	codes=$(sed -n '/^\.Sh EXIT STATUS/,/^\.Sh/p' "$PSKIT_SRCDIR/man/ps-retrain.1" |
	    sed -n 's/^\.It //p' | tr -c '0-9\n' ' ')
	help=$(ps-retrain -h | sed -n '/^Exit status/,/^$/p')
	echo "man: $codes"; echo "help: $help"
	[ -n "$codes" ]
	for c in $codes; do
		[[ $help =~ (^|[^0-9])$c([^0-9]|$) ]] || { echo "$c missing"; return 1; }
	done
}

@test "long options for every option; an unknown one exits 64 naming the program" {
	run ps-retrain --bogus -d "$D" -T "$HELD" "$TRAIN"
	assert_failure 64
	assert_line --index 0 "ps-retrain: unrecognized option '--bogus'"
	assert_line --index 1 --partial 'usage: ps-retrain [-hVv]'
	[ ! -e "$D" ]
	run --separate-stderr ps-retrain --help
	assert_success
	assert_line --index 0 --partial 'usage: ps-retrain [-hVv]'
	run ps-retrain --version
	assert_output 'ps-retrain 0.1.0'
	run --separate-stderr ps-retrain --dir "$D" --heldout "$HELD" --keep 3 \
	    --lambda 2 --positive 1 --threshold 0.5 --train-options '-s 1' \
	    --verbose "$TRAIN"
	assert_success
	[[ $stderr == *"ps-retrain: promoted models/"* ]]
	grep -q -- '^-s 1 -l 2 ' train.args
	run ps-retrain --dir="$D" --heldout="$HELD" --keep=x "$TRAIN"
	assert_failure 64
	assert_line --index 0 "ps-retrain: bad count 'x'"
}

@test "dir on a full disk: exit 74 naming the work directory and the cause, not the held-out set" {
	F=$BATS_TEST_TMPDIR/full
	run on_full_fs "$F" ps-retrain -d "$F/pskit" -T "$HELD" "$TRAIN"
	assert_failure 74
	assert_line --regexp "^ps-shard-data: .*No space left on device"
	assert_line "ps-retrain: cannot check '$HELD': cannot write its output in '$F/pskit/work' (exit 74); no space left on its file system"
	assert_line 'left: pskit'
}
