#!/usr/bin/env bats
# train-args.bats: what a new user of ps-train hits first: every option
# checked before any work (one line naming it, exit 64, 66 or 73, in well
# under a second), long options, -o that never destroys a user's files and
# replaces only a model ps-train wrote, and progress for a person or a
# program.

load helper

SAMPLE="$PSKIT_SRCDIR/scripts/sample/a9a-sample.libsvm"

setup() {
	cd "$BATS_TEST_TMPDIR"
}

teardown() {
	ps_reap
}

# quick CMD...: run CMD; it must end within 3 s, well before a job could
# start and end (a second was too little with four test files at once on
# 2 cores: CI, 2026-11-28).
quick() {
	local start
	start=$(date +%s%N)
	run "$@"
	[ $(( ($(date +%s%N) - start) / 1000000 )) -lt 3000 ]
}

@test "-o naming a directory of the user's is refused before any work, and its files stay" {
	mkdir precious
	echo notes >precious/notes.txt
	quick ps-train -o precious "$SAMPLE"
	assert_failure 73
	assert_output "ps-train: -o: 'precious' is not a pskit model directory (it holds 'notes.txt'); not replacing it"
	[ "$(cat precious/notes.txt)" = notes ]
	[ "$(ls -A)" = precious ]		# nothing else was made
}

@test "-o in a missing directory, -o . and -o naming a file are refused at once" {
	echo data >somefile
	quick ps-train -o somefile/m "$SAMPLE"
	assert_failure 73
	assert_output --partial "cannot write a model to 'somefile/m'"
	quick ps-train -o . "$SAMPLE"
	assert_failure 73
	assert_output --partial "cannot write a model to '.'"
	quick ps-train -o somefile "$SAMPLE"
	assert_failure 73
	assert_output --partial "'somefile' is not a pskit model directory"
	[ "$(ls -A)" = somefile ]
}

@test "a model ps-train wrote is replaced whole, and nothing is left beside it" {
	ps-train -q -A dbpg -m 5 -o m "$SAMPLE" 2>err1
	ps-train -q -A dbpg -m 9 -o m "$SAMPLE" 2>err2
	run ps-ckpt info m
	assert_line $'iteration\t10'		# and the final round
	run ls -A
	assert_output $'err1\nerr2\nm'
	run ls m
	assert_output $'part-0.psm\npart-1.psm\nprogress.tsv\nring'
	run awk -F'\t' '$1 == "iterations" { print $2 }' err2
	assert_output 10		# as ps-ckpt info counts them
}

@test "--help and --version succeed; an unknown option is named as such" {
	run ps-train --help
	assert_success
	assert_line --partial '-o, --output dir'
	run ps-train --version
	assert_success
	assert_output --regexp '^ps-train [0-9]+\.[0-9]+\.[0-9]+$'
	quick ps-train --bogus "$SAMPLE"
	assert_failure 64
	assert_line "ps-train: unrecognized option '--bogus'"
}

@test "options parse as getopt would: bundles, --opt=value, a unique prefix, after the file" {
	quick ps-train -qm0 "$SAMPLE"
	assert_failure 64
	assert_output "ps-train: bad -m '0': a whole number from 1 to 2147483646"
	quick ps-train "$SAMPLE" --max-i=0
	assert_failure 64
	assert_output "ps-train: bad -m '0': a whole number from 1 to 2147483646"
	quick ps-train --t 1 "$SAMPLE"
	assert_failure 64
	assert_line --index 0 "ps-train: option '--t' is ambiguous; possibilities: '--tau' '--test' '--tsv' '--trace'"
	quick ps-train --quiet=yes "$SAMPLE"
	assert_failure 64
	assert_line --index 0 "ps-train: option '--quiet' doesn't allow an argument"
	quick ps-train "$SAMPLE" -m
	assert_failure 64
	assert_line --index 0 "ps-train: option requires an argument -- 'm'"
	quick ps-train -x "$SAMPLE"
	assert_failure 64
	assert_line --index 0 "ps-train: invalid option -- 'x'"
	quick ps-train -- -m 2 "$SAMPLE"
	assert_failure 64
	assert_line --index 0 "ps-train: expected one training file, got 3"
	[ -z "$(ls -A)" ]
}

@test "each bad value is one line naming the option, exit 64, before any work" {
	local args
	for args in '-l -1' '-l abc' '-e abc' '-m 0' '-b 0' '-s 0' \
	    '-w x' '-t 1.5' '-R 2' '-E 0' '-F kkt,bogus' '-A lbfgs' \
	    '--lambda=-3' '--max-iter 0'; do
		# shellcheck disable=SC2086
		quick ps-train $args "$SAMPLE"
		echo "$args: $output"
		assert_failure 64
		[ "${#lines[@]}" -eq 1 ]
		assert_output --regexp "^ps-train: bad (-[a-zA-Z]|--[a-z-]+) "
	done
	[ -z "$(ls -A)" ]
}

@test "inputs that cannot be read exit 66, a job directory that cannot be made 73" {
	quick ps-train -o m no-such-file
	assert_failure 66
	assert_output "ps-train: cannot read 'no-such-file'"
	quick ps-train -T no-such-test -o m "$SAMPLE"
	assert_failure 66
	quick ps-train -I no-such-model -o m "$SAMPLE"
	assert_failure 66
	quick ps-train -j no/such/dir -o m "$SAMPLE"
	assert_failure 73
	[ -z "$(ls -A)" ]
}

@test "-H: a bad hosts file, --no-auth, -c, -I, a bad -C, and -C alone exit 64 at once" {
	printf 'h1 10.0.0.1\n-oProxyCommand=x\n' >bad-name
	printf 'h1 10.0.0.1 extra\n' >bad-line
	printf 'h1 10.0.0.1;rm\n' >bad-addr
	printf '# no hosts\n\n' >empty
	printf 'h1 127.0.0.1   # here\n' >hosts
	quick ps-train -H bad-name -o m "$SAMPLE"
	assert_failure 64
	assert_output "ps-train: bad-name:2: bad host name '-oProxyCommand=x'"
	quick ps-train -H bad-line -o m "$SAMPLE"
	assert_failure 64
	assert_output "ps-train: bad-line:1: expected NAME [ADDRESS], got 'h1 10.0.0.1 extra'"
	quick ps-train -H bad-addr -o m "$SAMPLE"
	assert_failure 64
	quick ps-train -H empty -o m "$SAMPLE"
	assert_failure 64
	assert_output "ps-train: empty: no hosts"
	quick ps-train -H no-such-hosts -o m "$SAMPLE"
	assert_failure 66
	quick ps-train -H hosts --no-auth -o m "$SAMPLE"
	assert_failure 64
	assert_output --partial "need the job's secret"
	quick ps-train -H hosts -c ck -o m "$SAMPLE"
	assert_failure 64
	quick ps-train -H hosts -I hosts -o m "$SAMPLE"
	assert_failure 64
	quick ps-train -H hosts -C 127.0.0.1:99999 -o m "$SAMPLE"
	assert_failure 64
	assert_output --partial "ps-train: bad -C '127.0.0.1:99999'"
	quick ps-train -C 127.0.0.1 -o m "$SAMPLE"
	assert_failure 64
	assert_output "ps-train: -C needs -H"
	# In a Slurm allocation the hosts are its nodes, as scontrol names them.
	mkdir bin
	printf '#!/bin/sh\necho node1; echo -n2\n' >bin/scontrol
	chmod +x bin/scontrol
	PATH=$PWD/bin:$PATH SLURM_JOB_NODELIST='node[1-2]' quick ps-train -o m "$SAMPLE"
	assert_failure 64
	assert_output "ps-train: SLURM_JOB_NODELIST 'node[1-2]':2: bad host name '-n2'"
	[ "$(ls -A | sort | tr '\n' ' ')" = "bad-addr bad-line bad-name bin empty hosts " ]
}

@test "every option has a long form that works" {
	ps-train --quiet --servers 1 --workers 1 --lambda 2 --tau 0 \
	    --blocks 4 --epsilon 1e-3 --max-iter 50 --seed 3 --lz4 \
	    --filters kkt --test "$PSKIT_SRCDIR/scripts/sample/a9a-sample.t.libsvm" \
	    --output m --job-dir job --algorithm dbpg --replicas 0 \
	    --restarts 0 "$SAMPLE" 2>err
	run ps-ckpt info m
	assert_line $'lambda\t2'
	assert_line $'servers\t1'
	[ -f job/train-0.pss ]
}

@test "labels 1 and 2 train with --positive" {
	sed 's/^+1/1/; s/^-1/2/' "$SAMPLE" >labels12
	run ps-train -q -o m labels12
	assert_failure 65
	ps-train -q --positive 1 -o m labels12 2>err
	grep -q '^objective' err
}

@test "--tsv prints worker 0's TSV; --human a line a second, the last, and a short summary" {
	ps-train --tsv -A dbpg -m 30 -o m "$SAMPLE" >tsv 2>err
	head -n 1 tsv | grep -q $'^iter\tsecs\tobjective'
	[ "$(wc -l <tsv)" -eq 32 ]	# the header, iterations 0 to 30
	grep -q $'^objective\t' err
	ps-train --human -A dbpg -m 30 -o m "$SAMPLE" >human 2>err
	run cat human
	assert_line --index 0 --regexp '^ +iter +time +objective +change +nnz'
	assert_line --regexp '^ +30 +[0-9.]+s +[0-9.]+ '
	[ "${#lines[@]}" -le 4 ]
	run cat err
	assert_line --regexp '^objective +[0-9.]+$'
	assert_line --regexp '^iterations +31$'
}
