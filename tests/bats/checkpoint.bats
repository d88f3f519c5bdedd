#!/usr/bin/env bats
# checkpoint.bats: the servers' checkpoints (ps-server -k, pskit-ckpt(5))
# and starting from one (-i, ps-train -I).  Periodic and requested
# checkpoints are sealed versions of the whole model; a warm start begins
# at the checkpoint's objective; sgd checkpoints and models keep the
# optimiser state and a warm start goes on from it; after kill -9 of every
# server (also in the middle of writing a checkpoint) the latest complete
# version is valid and a restart from it, on another number of servers,
# converges to the fault-free objective; a damaged version is refused at
# load, naming the file and offset.  The jobs run dbpg (-A dbpg): its
# checkpoints count iterations, and its a9a jobs run long enough to be
# signalled and killed mid-run (newton.bats checks newton's).

load helper

setup_file() {
	export BATS_FILE_TMPDIR
	ps_data a9a >/dev/null
	# The fault-free run the other tests compare with.
	timeout 300 ps-train -A dbpg -q -c "$BATS_FILE_TMPDIR/clean.ck" -E 100 \
	    -o "$BATS_FILE_TMPDIR/clean.model" "$BATS_FILE_TMPDIR/a9a" \
	    2>"$BATS_FILE_TMPDIR/clean.err"
}

teardown() {
	ps_reap
}

SAMPLE=$PSKIT_SRCDIR/scripts/sample/a9a-sample.libsvm

# train RUN [OPTION...]: ps-train on a9a in the background, job files in
# $BATS_TEST_TMPDIR/RUN, its stderr in RUN.out.err; sets TRAIN (the
# timeout process) and TRAIN_SH (ps-train itself).
train() {
	local run=$1 i=0
	shift
	ps_start_daemon "$BATS_TEST_TMPDIR/$run.out" timeout 300 \
	    ps-train -A dbpg -q -j "$BATS_TEST_TMPDIR/$run" \
	    -o "$BATS_TEST_TMPDIR/$run.model" "$@" "$BATS_FILE_TMPDIR/a9a"
	TRAIN=$PS_LAST_PID
	until TRAIN_SH=$(ps -o pid= --ppid "$TRAIN" | awk 'NR == 1 { print $1 }') &&
	    [ -n "$TRAIN_SH" ]; do
		[ "$i" -lt 100 ] || return 1
		sleep 0.05
		i=$((i + 1))
	done
}

# train_usr1_ready RUN [OPTION...]: train, then wait until ps-train set its
# SIGUSR1 handler (it does before it writes ps-train.pid).
train_usr1_ready() {
	local i=0
	train "$@"
	until [ -s "$BATS_TEST_TMPDIR/$1/ps-train.pid" ]; do
		[ "$i" -lt 200 ] || return 1
		sleep 0.005
		i=$((i + 1))
	done
}

# wait_lines RUN N: until worker 0 of RUN printed N lines.
wait_lines() {
	local tsv="$BATS_TEST_TMPDIR/$1/worker-0.tsv" i=0
	until [ -f "$tsv" ] && [ "$(wc -l <"$tsv")" -ge "$2" ]; do
		[ "$i" -lt 1200 ] || { echo "no line $2 in $tsv" >&2; return 1; }
		sleep 0.05
		i=$((i + 1))
	done
}

# wait_versions CKDIR N: until CKDIR holds N versions with a MANIFEST.
wait_versions() {
	local i=0
	until [ "$(ls "$1"/v*/MANIFEST 2>/dev/null | wc -l)" -ge "$2" ]; do
		[ "$i" -lt 600 ] || { echo "no $2 versions in $1" >&2; return 1; }
		sleep 0.05
		i=$((i + 1))
	done
}

# server_pids: the PIDs of the servers ps-train started, in SERVER_PIDS.
server_pids() {
	SERVER_PIDS=$(ps -o pid=,args= --ppid "$TRAIN_SH" |
	    awk '$2 == "ps-server" { print $1 }' | tee -a "$BATS_TEST_TMPDIR/pids")
	echo "servers:" $SERVER_PIDS
	[ "$(echo $SERVER_PIDS | wc -w)" -eq 2 ]
}

# versions CKDIR: the version directories of CKDIR, oldest first (not its
# JOB file).
versions() {
	ls "$1" | grep '^v'
}

# first_objective TSV: the objective of the first progress line.
first_objective() {
	sed -n 2p "$1" | cut -f 3
}

# objective_at TSV ITER: the objective of iteration ITER.
objective_at() {
	awk -F'\t' -v t="$2" '$1 == t { print $3 }' "$1"
}

# abs_gap A B: |A - B| / |B|.
abs_gap() {
	awk -v a="$1" -v b="$2" 'BEGIN { d = (a - b) / b; printf "%.3g\n", d < 0 ? -d : d }'
}

@test "periodic checkpoints are complete versions; the last three are kept and the last is the final model" {
	run ps-ckpt ls "$BATS_FILE_TMPDIR/clean.ck"
	assert_success
	echo "$output"
	[ "$(echo "$output" | grep -c complete)" -eq 3 ]
	[ "$(echo "$output" | grep -c incomplete)" -eq 0 ]
	for v in "$BATS_FILE_TMPDIR"/clean.ck/v*; do
		ps-ckpt verify "$v"
	done
	# Every 100 iterations, and the final round's.
	versions "$BATS_FILE_TMPDIR/clean.ck" | head -n 2 | while read -r v; do
		[ $((10#${v#v} % 100)) -eq 0 ]
	done
	last=$(versions "$BATS_FILE_TMPDIR/clean.ck" | tail -n 1)
	iter=$(ps-ckpt info "$BATS_FILE_TMPDIR/clean.model" | awk '$1 == "iteration" { print $2 }')
	[ "$last" = "$(printf 'v%012d' "$iter")" ]
	ps-ckpt diff -q "$BATS_FILE_TMPDIR/clean.ck" "$BATS_FILE_TMPDIR/clean.model"
}

@test "SIGUSR1 while ps-train starts (sharding, the coordinator's line) does not end the job" {
	local i
	train_usr1_ready early -c "$BATS_TEST_TMPDIR/ck"
	# Until the workers run (their first line).
	for i in $(seq 400); do
		[ ! -s "$BATS_TEST_TMPDIR/early/worker-0.tsv" ] || break
		kill -USR1 "$TRAIN_SH" 2>/dev/null || break
		sleep 0.005
	done
	ps_wait_pid "$TRAIN" 300
	cat "$BATS_TEST_TMPDIR/early.out.err"
	[ "$PS_WAIT_STATUS" -eq 0 ]
	grep -q '^objective' "$BATS_TEST_TMPDIR/early.out.err"
}

@test "SIGUSR1 all through a job, to its end, does not end the job or lose its model" {
	train_usr1_ready flood -c "$BATS_TEST_TMPDIR/ck"
	# Every 20 ms until ps-train is gone: the waits for each daemon
	# (the servers saving their parts last) are cut short again and again.
	while kill -USR1 "$TRAIN_SH" 2>/dev/null; do
		sleep 0.02
	done
	ps_wait_pid "$TRAIN" 300
	cat "$BATS_TEST_TMPDIR/flood.out.err"
	[ "$PS_WAIT_STATUS" -eq 0 ]
	grep -q '^objective' "$BATS_TEST_TMPDIR/flood.out.err"
	ps-ckpt verify "$BATS_TEST_TMPDIR/flood.model"
}

@test "SIGUSR1 to ps-train and ps-ring checkpoint each write a checkpoint of the running job" {
	train req -c "$BATS_TEST_TMPDIR/ck"
	wait_lines req 50
	kill -USR1 "$TRAIN_SH"
	wait_versions "$BATS_TEST_TMPDIR/ck" 1
	run ps-ring checkpoint -a "$BATS_TEST_TMPDIR/req/secret" \
	    -C "$(cat "$BATS_TEST_TMPDIR/req/coordinator")"
	echo "$output"
	assert_success
	[ "$(echo "$output" | grep -c 'checkpoint requested$')" -eq 2 ]
	wait_versions "$BATS_TEST_TMPDIR/ck" 2
	ps_wait_pid "$TRAIN" 300
	[ "$PS_WAIT_STATUS" -eq 0 ]
	for v in "$BATS_TEST_TMPDIR"/ck/v*; do
		ps-ckpt verify "$v"
	done
	# Without -E no final checkpoint: all came on request, one or two a
	# request (two when the request reaches one server after the other
	# has written the checkpoint it made: checkpoint.c, invariant 4).
	n=$(versions "$BATS_TEST_TMPDIR/ck" | wc -l)
	[ "$n" -ge 2 ] && [ "$n" -le 3 ]	# --keep 3
	[ "$(versions "$BATS_TEST_TMPDIR/ck" | tail -n 1)" != \
	    "$(printf 'v%012d' "$(ps-ckpt info "$BATS_TEST_TMPDIR/req.model" |
	    awk '$1 == "iteration" { print $2 }')")" ]
	# A server without -k refuses the request and says why.
	start_servers 1
	run ps-ring checkpoint "$BATS_TEST_TMPDIR/ring"
	assert_failure 1
	assert_output --partial "${SERVER_ADDRS# }: no checkpoint directory"
}

@test "-E 1s writes a checkpoint about every second, and one at the end" {
	ck=$BATS_TEST_TMPDIR/ck
	timeout 300 ps-train -A dbpg -q -c "$ck" -E 1s -o "$BATS_TEST_TMPDIR/m" \
	    "$BATS_FILE_TMPDIR/a9a" 2>"$BATS_TEST_TMPDIR/err"
	cat "$BATS_TEST_TMPDIR/err"
	secs=$(awk '$1 == "seconds" { print $2 }' "$BATS_TEST_TMPDIR/err")
	iters=$(awk '$1 == "iterations" { print $2 }' "$BATS_TEST_TMPDIR/err")
	versions "$ck"
	ps-ckpt diff -q "$ck" "$BATS_TEST_TMPDIR/m"
	# The newest three are kept: the final one and the timed ones before
	# it, one a second (the job takes 2 s or more here, so there is at
	# least one).  Two timed ones are about a second of iterations apart.
	n=$(versions "$ck" | wc -l)
	[ "$n" -le 3 ]
	awk -v s="$secs" -v n="$n" 'BEGIN { exit !(s < 1.5 || n >= 2) }'
	[ "$n" -eq 3 ] || return 0
	a=$(versions "$ck" | sed -n 1p) b=$(versions "$ck" | sed -n 2p)
	gap=$((10#${b#v} - 10#${a#v}))
	echo "versions $a $b: $gap iterations apart; $iters in $secs s"
	awk -v g="$gap" -v n="$iters" -v s="$secs" \
	    'BEGIN { r = n / s; exit !(g > r / 4 && g < 4 * r) }'
}

@test "a warm start (-I) begins at the checkpoint's objective and ends no worse than the cold run" {
	ck=$BATS_FILE_TMPDIR/clean.ck
	v=$(versions "$ck" | head -n 1)
	iter=$((10#${v#v}))
	timeout 300 ps-train -A dbpg -q -I "$ck/$v" -o "$BATS_TEST_TMPDIR/warm" \
	    "$BATS_FILE_TMPDIR/a9a"
	cold=$BATS_FILE_TMPDIR/clean.model/progress.tsv
	warm=$BATS_TEST_TMPDIR/warm/progress.tsv
	at=$(objective_at "$cold" "$iter")
	start=$(first_objective "$warm")
	echo "cold at $iter: $at; warm start: $start"
	[ "$(awk -v g="$(abs_gap "$start" "$at")" 'BEGIN { print (g < 1e-7) }')" = 1 ]
	# It ends no worse than the cold run (1e-4 relative): both stop on
	# the same rule, the warm one from another point of the same tail.
	got=$(final_objective "$warm") want=$(final_objective "$cold")
	echo "cold $want warm $got"
	[ "$(awk -v g="$got" -v w="$want" 'BEGIN { print ((g - w) / w < 1e-4) }')" = 1 ]
	# The warm model numbers its iterations on from the checkpoint's.
	n=$(tail -n 1 "$warm" | cut -f 1)
	ps-ckpt info "$BATS_TEST_TMPDIR/warm" | grep -Fx "iteration	$((iter + n + 1))"
}

@test "sgd: checkpoints and models keep the optimiser state, and a warm start goes on from it" {
	ck=$BATS_TEST_TMPDIR/ck
	timeout 300 ps-train -q -A sgd -W '--epochs 2' -c "$ck" -E 10 \
	    -o "$BATS_TEST_TMPDIR/cold" "$BATS_FILE_TMPDIR/a9a"
	# Worker 0's mini-batches 20 and 30 (of 34 over the 2 epochs), and
	# the final state, numbered by all workers' mini-batches.
	run ps-ckpt ls "$ck"
	echo "$output"
	[ "$(echo "$output" | grep -c '	complete	')" -eq 3 ]
	ps-ckpt diff -q "$ck" "$BATS_TEST_TMPDIR/cold"
	first=$(versions "$ck" | head -n 1)
	run ps-ckpt info "$ck/$first"
	assert_line "format	2"
	e=$(echo "$output" | awk '$1 == "epochs" { print $2 }')
	echo "$first: epochs $e"
	awk -v e="$e" 'BEGIN { exit !(e > 0.5 && e < 2) }'
	run ps-ckpt info "$BATS_TEST_TMPDIR/cold"
	echo "$output"
	assert_line "format	2"
	assert_line "optimizer	ftrl"
	assert_line "epochs	2"
	iter=$(echo "$output" | awk '$1 == "iteration" { print $2 }')
	ll=$(ps-ckpt eval "$BATS_TEST_TMPDIR/cold" "$BATS_FILE_TMPDIR/a9a" |
	    awk '$1 == "logloss" { print $2 }')
	timeout 300 ps-train -q -A sgd -W '--epochs 2' -I "$BATS_TEST_TMPDIR/cold" \
	    -o "$BATS_TEST_TMPDIR/warm" "$BATS_FILE_TMPDIR/a9a"
	run ps-ckpt info "$BATS_TEST_TMPDIR/warm"
	assert_line "epochs	4"
	assert_line "iteration	$((2 * iter))"
	# The first mini-batches are scored with the starting model, whose
	# learning rates are those it ended with (from weights alone, n = 0
	# restarts them large and the first losses are several times this).
	first=$(sed -n 2p "$BATS_TEST_TMPDIR/warm/progress.tsv" | cut -f 5)
	echo "starting model's logloss $ll, warm start's first $first"
	awk -v a="$first" -v b="$ll" 'BEGIN { exit !(a < 1.2 * b) }'
}

# bats test_tags=quality
@test "kill -9 of every server mid-run: a restart on three servers from the latest checkpoint converges to the fault-free objective" {
	ck=$BATS_TEST_TMPDIR/ck
	train crash -r 0 -c "$ck" -E 100
	wait_lines crash 2
	server_pids
	wait_versions "$ck" 2
	kill -9 $SERVER_PIDS
	ps_wait_pid "$TRAIN" 60
	echo "ps-train exit $PS_WAIT_STATUS"
	[ "$PS_WAIT_STATUS" -ne 0 ]
	[ ! -e "$BATS_TEST_TMPDIR/crash.model" ]
	before=$(versions "$ck" | tail -n 1)
	run ps-ckpt ls "$ck"
	echo "$output"
	# On three servers: each takes its keys of the two servers' parts.
	timeout 300 ps-train -A dbpg -q -s 3 -I "$ck" -c "$ck" -E 100 \
	    -o "$BATS_TEST_TMPDIR/restart" "$BATS_FILE_TMPDIR/a9a"
	ps-ckpt info "$BATS_TEST_TMPDIR/restart" | grep -Fx "servers	3"
	got=$(final_objective "$BATS_TEST_TMPDIR/restart/progress.tsv")
	want=$(final_objective "$BATS_FILE_TMPDIR/clean.model/progress.tsv")
	gap=$(abs_gap "$got" "$want")
	echo "fault-free $want restarted $got gap $gap"
	[ "$(awk -v g="$gap" 'BEGIN { print (g < 1e-3) }')" = 1 ]
	# The restarted job's checkpoints come after the old ones.
	after=$(versions "$ck" | tail -n 1)
	[[ "$after" > "$before" ]]
	ps-ckpt diff -q "$ck" "$BATS_TEST_TMPDIR/restart"
}

@test "kill -9 while the servers write checkpoints leaves every sealed version valid and the latest loadable" {
	ck=$BATS_TEST_TMPDIR/ck
	# A checkpoint after every iteration: most of the servers' time.
	train busy -r 0 -c "$ck" -E 1
	wait_lines busy 2
	server_pids
	wait_lines busy 200
	kill -9 $SERVER_PIDS
	ps_wait_pid "$TRAIN" 60
	run ps-ckpt ls "$ck"
	echo "$output"
	sealed=0
	for v in "$ck"/v*; do
		if [ -f "$v/MANIFEST" ]; then
			ps-ckpt verify "$v"
			sealed=$((sealed + 1))
		else
			echo "$output" | grep "^${v##*/}	" | grep -q incomplete
		fi
	done
	[ "$sealed" -ge 1 ]
	latest=$(ls "$ck"/v*/MANIFEST | tail -n 1)
	latest=$(basename "$(dirname "$latest")")
	ps_start_daemon "$BATS_TEST_TMPDIR/s.out" ps-server -v -i "$ck"
	ps_wait_line "$BATS_TEST_TMPDIR/s.out" '^listening '
	grep "starting model .*$latest" "$BATS_TEST_TMPDIR/s.out.err"
}

@test "a bit-flipped or truncated checkpoint is caught by verify and refused at load, naming file and offset" {
	ck=$BATS_TEST_TMPDIR/ck
	cp -r "$BATS_FILE_TMPDIR/clean.ck" "$ck"
	v=$(versions "$ck" | tail -n 1)
	part=$ck/$v/part-1.psm
	# Flip one bit of the first record's weight.
	byte=$(od -An -tu1 -j 60 -N 1 "$part" | tr -d ' ')
	printf "$(printf '\\%03o' $((byte ^ 1)))" |
	    dd of="$part" bs=1 seek=60 conv=notrunc 2>/dev/null
	run ps-ckpt verify "$ck/$v"
	echo "$output"
	assert_failure 1
	assert_output --partial "part-1.psm"
	assert_output --partial "offset"
	run ps-server -i "$ck/$v"
	echo "$output"
	assert_failure 65
	assert_output --partial "part-1.psm: offset"
	run timeout 60 ps-train -A dbpg -q -I "$ck/$v" -o "$BATS_TEST_TMPDIR/m" "$SAMPLE"
	echo "$output"
	assert_failure 65
	assert_output --partial "part-1.psm: offset"
	[ ! -e "$BATS_TEST_TMPDIR/m" ]
	# A checkpoint directory falls back to the newest sound version, and
	# says which one it skipped.
	ps_start_daemon "$BATS_TEST_TMPDIR/s.out" ps-server -i "$ck"
	ps_wait_line "$BATS_TEST_TMPDIR/s.out" '^listening '
	grep "the newer $v is incomplete or damaged" "$BATS_TEST_TMPDIR/s.out.err"
	# Truncated.
	v2=$(versions "$ck" | head -n 1)
	part=$ck/$v2/part-0.psm
	truncate -s -5 "$part"
	run ps-ckpt verify "$ck/$v2"
	assert_failure 1
	assert_output --partial "part-0.psm"
	run ps-server -i "$ck/$v2"
	echo "$output"
	assert_failure 65
	assert_output --partial "part-0.psm"
	run ps-server -i "$BATS_TEST_TMPDIR/nothing"
	assert_failure 66
}

@test "checkpoint options: bad values are usage errors" {
	run ps-server --keep 0
	assert_failure 64
	run ps-train -A dbpg -E 10 "$SAMPLE"
	assert_failure 64
	assert_output --partial "-E needs -c"
	run ps-train -A dbpg -c "$BATS_TEST_TMPDIR/ck" -E 0 "$SAMPLE"
	assert_failure 64
	run ps-train -A dbpg -c "$BATS_TEST_TMPDIR/ck" -E xs "$SAMPLE"
	assert_failure 64
	run ps-train -A dbpg --init
	assert_failure 64
	run ps-train -A dbpg -c "$BATS_TEST_TMPDIR/ck" -E 2x "$SAMPLE"
	assert_failure 64
	run ps-worker --checkpoint-every 0 -r x y
	assert_failure 64
}

@test "a checkpoint directory is one job's: another is refused, --force takes it over keeping the old versions, and a clash fails that checkpoint" {
	local ck=$BATS_TEST_TMPDIR/ck
	ps-train -A dbpg -q -l 1 -c "$ck" -E 10 -m 60 -o "$BATS_TEST_TMPDIR/a.model" "$SAMPLE"
	grep -qx 'lambda 1' "$ck/JOB"
	versions "$ck" >"$BATS_TEST_TMPDIR/a.versions"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/a.versions")" -eq 3 ]
	for v in $(cat "$BATS_TEST_TMPDIR/a.versions"); do
		cmp "$ck/JOB" "$ck/$v/JOB"
	done
	# Another job (lambda 5): refused before any work, naming the owner.
	run ps-train -A dbpg -q -l 5 -c "$ck" -E 7 -m 45 -o "$BATS_TEST_TMPDIR/b.model" "$SAMPLE"
	assert_failure 73
	assert_output --partial "ps-train: -c '$ck' holds the checkpoints of another job (data $SAMPLE algorithm dbpg lambda 1): resume it with -I '$ck', use another directory, or take it over with --force"
	[ ! -e "$BATS_TEST_TMPDIR/b.model" ]
	# --force: B's iterations are not A's, so it writes no version name of
	# A's; A's three versions stay, beside B's newest three.
	ps-train -A dbpg -q -l 5 -c "$ck" --force -E 7 -m 45 -o "$BATS_TEST_TMPDIR/b.model" "$SAMPLE"
	for v in $(cat "$BATS_TEST_TMPDIR/a.versions"); do
		grep -qx 'lambda 1' "$ck/$v/JOB"
		ps-ckpt verify "$ck/$v"
	done
	[ "$(grep -lx 'lambda 5' "$ck"/v*/JOB | wc -l)" -eq 3 ]
	# A job that comes to one of A's version names does not write into
	# it: that checkpoint fails, is said on stderr and in the summary, the
	# model is written, the exit is 74, and A's version stays whole.
	run ps-train -A dbpg -q -l 2 -c "$ck" --force -E 60 -m 60 -o "$BATS_TEST_TMPDIR/c.model" "$SAMPLE"
	assert_failure 74
	assert_line --regexp "^ps-train: server [01]: checkpoint failed: '$ck/v000000000060' holds another job's checkpoint"
	assert_line --regexp '^checkpoints_failed	[0-9]+$'
	ps-ckpt info "$BATS_TEST_TMPDIR/c.model"
	grep -qx 'lambda 1' "$ck/v000000000060/JOB"
	ps-ckpt verify "$ck/v000000000060"
}

@test "a checkpoint directory on a full disk: each failure is said as it comes, the model is written, exit 74" {
	F=$BATS_TEST_TMPDIR/full
	# The disk fills after the directory was the job's: its JOB is there.
	run on_full_fs "$F" sh -c 'rm "$1/fill" && mkdir "$1/ck" &&
		printf "pskit-job 1\ndata %s\nalgorithm dbpg\nlambda 1\n" "$3" >"$1/ck/JOB" &&
		head -c 1M /dev/zero >"$1/fill" 2>/dev/null
		ps-train -A dbpg -q -c "$1/ck" -E 20 -m 60 -o "$2" "$3"' sh "$F" "$BATS_TEST_TMPDIR/m" "$SAMPLE"
	echo "$output"
	assert_failure 74
	assert_line --regexp '^ps-train: server [01]: checkpoint failed: '
	assert_line --regexp '^checkpoints_failed	[0-9]+$'
	ps-ckpt info "$BATS_TEST_TMPDIR/m"
	# The first refusal, before any work: a directory that cannot be the
	# job's.
	run on_full_fs "$F" ps-train -A dbpg -q -c "$F/ck" -o "$BATS_TEST_TMPDIR/m2" "$SAMPLE"
	assert_failure 73
	assert_line "ps-train: cannot write '$F/ck/JOB'"
	[ ! -e "$BATS_TEST_TMPDIR/m2" ]
}
