# tests/bats/helper.bash: shared set-up for pskit's Bats tests.
#
# Load with `load helper` from a .bats file.  Daemons started with
# ps_start_daemon are recorded and killed by PID in ps_reap, which every
# file's teardown calls, so nothing outlives a failing test.

bats_load_library bats-support
bats_load_library bats-assert

: "${PSKIT_SRCDIR:=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}"
: "${PSKIT_DATA:=$PSKIT_SRCDIR/../shared/data}"

# ps_start_daemon OUTFILE CMD...: start CMD in the background with stdout to
# OUTFILE and stderr to OUTFILE.err; fd 3 is closed so Bats does not wait.
# Files left by an earlier daemon are removed first: the background shell
# truncates them only when it gets to run, and until then a reader would
# find the old daemon's lines.
ps_start_daemon() {
	local out=$1; shift
	rm -f "$out" "$out.err"
	"$@" >"$out" 2>"$out.err" 3>&- &
	echo $! >>"${PS_PIDS_FILE:-$BATS_TEST_TMPDIR/pids}"
	PS_LAST_PID=$!
}

# ps_wait_line FILE PATTERN [SECONDS]: wait until FILE has a line matching
# PATTERN (grep -E); print it.  Fails after SECONDS (default 10).
ps_wait_line() {
	local file=$1 pat=$2 secs=${3:-10} i=0
	while [ "$i" -lt $((secs * 20)) ]; do
		if [ -f "$file" ] && grep -Em1 "$pat" "$file"; then
			return 0
		fi
		sleep 0.05
		i=$((i + 1))
	done
	echo "timed out waiting for '$pat' in $file; it ends:" >&2
	tail -n 5 "$file" >&2 2>/dev/null
	return 1
}

# ps_wait_lines FILE N [SECONDS]: wait until FILE has N lines or more.
# Fails after SECONDS (default 60).
ps_wait_lines() {
	local file=$1 n=$2 secs=${3:-60} i=0
	until [ -f "$file" ] && [ "$(wc -l <"$file")" -ge "$n" ]; do
		[ "$i" -lt $((secs * 20)) ] ||
			{ echo "no line $n in $file" >&2; return 1; }
		sleep 0.05
		i=$((i + 1))
	done
}

# ps_wait_pid PID SECONDS: wait for PID to exit; its status in PS_WAIT_STATUS.
ps_wait_pid() {
	local pid=$1 secs=$2 i=0
	while kill -0 "$pid" 2>/dev/null; do
		[ "$i" -ge $((secs * 20)) ] && return 1
		sleep 0.05
		i=$((i + 1))
	done
	PS_WAIT_STATUS=0
	wait "$pid" || PS_WAIT_STATUS=$?
	return 0
}

# gone_within SECONDS PID: PID has exited within SECONDS.  For a process
# that is not our child, so polled; an orphan that has exited may stay a
# zombie where init does not reap (some containers): that counts as gone.
gone_within() {
	local i=0
	while kill -0 "$2" 2>/dev/null &&
	    [ "$(ps -o stat= -p "$2" 2>/dev/null | cut -c1)" != Z ]; do
		[ "$i" -ge $(($1 * 20)) ] && return 1
		sleep 0.05
		i=$((i + 1))
	done
}

# ps_reap: TERM then KILL every daemon this test started.
ps_reap() {
	local f="${PS_PIDS_FILE:-$BATS_TEST_TMPDIR/pids}" pid
	[ -f "$f" ] || return 0
	while read -r pid; do
		kill -TERM "$pid" 2>/dev/null || true
	done <"$f"
	sleep 0.1
	while read -r pid; do
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done <"$f"
	rm -f "$f"
}

# ps_data NAME: decompress ../shared/data/NAME.{xz,bz2} into the test's
# temporary directory once and print the path; skip if the set is absent.
ps_data() {
	local name=$1 dir=${BATS_FILE_TMPDIR:-$BATS_TEST_TMPDIR}
	if [ ! -f "$dir/$name" ]; then
		if [ -f "$PSKIT_DATA/$name.xz" ]; then
			xz -dc "$PSKIT_DATA/$name.xz" >"$dir/$name.tmp" && mv "$dir/$name.tmp" "$dir/$name"
		elif [ -f "$PSKIT_DATA/$name.bz2" ]; then
			bzip2 -dc "$PSKIT_DATA/$name.bz2" >"$dir/$name.tmp" && mv "$dir/$name.tmp" "$dir/$name"
		else
			return 1
		fi
	fi
	echo "$dir/$name"
}

# ll_objective MODEL DATA [LAMBDA]: F(w) = sum log(1+exp(-y w.x)) + lambda |w|_1
# for a LIBLINEAR model file, printed with %.10g.  Labels as LIBLINEAR: the
# model's first label is the positive class.
ll_objective() {
	awk -v lambda="${3:-1}" '
	FNR == NR {
		if ($1 == "label") first = $2
		else if ($1 == "nr_feature") n = $2
		else if ($1 == "w") inw = 1
		else if (inw) { w[++k] = $1; l1 += ($1 < 0 ? -$1 : $1) }
		next
	}
	{
		y = ($1 == first) ? 1 : -1; m = 0
		for (i = 2; i <= NF; i++) {
			split($i, p, ":")
			if (p[1] <= n) m += w[p[1]] * p[2]
		}
		z = y * m
		F += (z > 0) ? log(1 + exp(-z)) : -z + log(1 + exp(z))
	}
	END { printf "%.10g\n", F + lambda * l1 }' "$1" "$2"
}

# liblinear_ref NAME: LIBLINEAR -s 6 -c 1 -e 0.0001 objective of
# $BATS_FILE_TMPDIR/NAME (ps_data put it there), cached beside it.
liblinear_ref() {
	local data="$BATS_FILE_TMPDIR/$1"
	if [ ! -f "$data.llobj" ]; then
		liblinear-train -s 6 -c 1 -e 0.0001 "$data" "$data.llmodel" >/dev/null
		ll_objective "$data.llmodel" "$data" 1 >"$data.llobj"
	fi
	cat "$data.llobj"
}

# final_objective TSV: the objective column of the last progress line.
final_objective() {
	tail -n 1 "$1" | cut -f 3
}

# tsv_last TSV COLUMN: the named column of the last line of a progress TSV.
tsv_last() {
	awk -F'\t' -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i }
	    END { if (k) print $k; else exit 1 }' "$1"
}

# rel_gap OURS THEIRS: (ours - theirs) / theirs.
rel_gap() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3g\n", (a - b) / b }'
}

# start_servers N [OPTION...]: start N servers with model output in
# $BATS_TEST_TMPDIR and the given options; sets SERVER_ADDRS and
# SERVER_PIDS, writes $BATS_TEST_TMPDIR/ring (with the ps-ring init
# options in $RING_OPTS, e.g. "-k 1").
start_servers() {
	local n=$1 k addr
	shift
	SERVER_ADDRS= SERVER_PIDS=
	for k in $(seq 0 $((n - 1))); do
		ps_start_daemon "$BATS_TEST_TMPDIR/server-$k.out" \
		    ps-server -o "$BATS_TEST_TMPDIR/part-$k.psm" "$@"
		SERVER_PIDS="$SERVER_PIDS $PS_LAST_PID"
		addr=$(ps_wait_line "$BATS_TEST_TMPDIR/server-$k.out" '^listening ' 10) || return 1
		SERVER_ADDRS="$SERVER_ADDRS ${addr#listening }"
	done
	ps-ring init ${RING_OPTS:-} -o "$BATS_TEST_TMPDIR/ring" $SERVER_ADDRS
}

# Coordinator helpers (coord.bats, failover.bats); the ring file is $RING,
# and the array COORD_AUTH holds -a SECRET for a coordinator that has one.

# start_coord [OPTION...]: a coordinator on $RING; sets COORD, COORD_PID.
start_coord() {
	local line
	ps_start_daemon "$BATS_TEST_TMPDIR/coord.out" ps-ring serve "$@" "$RING"
	COORD_PID=$PS_LAST_PID
	line=$(ps_wait_line "$BATS_TEST_TMPDIR/coord.out" '^listening ' 10) || return 1
	COORD=${line#listening }
}

# start_cserver K [OPTION...]: server K with -C $COORD; sets ADDR_K, PID_K.
start_cserver() {
	local k=$1 line
	shift
	ps_start_daemon "$BATS_TEST_TMPDIR/server-$k.out" \
	    ps-server -C "$COORD" -o "$BATS_TEST_TMPDIR/part-$k.psm" "$@"
	eval "PID_$k=$PS_LAST_PID"
	line=$(ps_wait_line "$BATS_TEST_TMPDIR/server-$k.out" '^listening ' 10) || return 1
	eval "ADDR_$k=${line#listening }"
}

# ring_field N: field N of the status "ring" line (2 version, 3 published).
ring_field() {
	ps-ring status "${COORD_AUTH[@]}" -C "$COORD" | awk -F'\t' -v n="$1" '$1 == "ring" { print $n }'
}

# wait_status AWK-CONDITION [SECONDS]: poll status until a line matches.
wait_status() {
	local i=0
	while [ "$i" -lt $((${2:-10} * 50)) ]; do
		timeout 5 ps-ring status "${COORD_AUTH[@]}" -C "$COORD" |
		    awk -F'\t' "$1 { found = 1 } END { exit !found }" && return 0
		sleep 0.02
		i=$((i + 1))
	done
	echo "timed out waiting for status: $1" >&2
	timeout 5 ps-ring status "${COORD_AUTH[@]}" -C "$COORD" >&2
	return 1
}

# now_ms: the time in milliseconds, for measuring detection times.
now_ms() {
	date +%s%3N
}

# probe_ms: the milliseconds one status probe of $COORD (wait_status's
# step) takes now; a detection bound measured through wait_status allows
# that much more (under the sanitizers on a loaded machine, a few hundred).
probe_ms() {
	local t0
	t0=$(now_ms)
	timeout 5 ps-ring status "${COORD_AUTH[@]}" -C "$COORD" >/dev/null
	echo $(($(now_ms) - t0))
}

# on_full_fs DIR CMD...: run CMD with a full 64 KiB tmpfs on DIR, mounted
# in a private mount namespace that goes when CMD ends; then list what CMD
# left in DIR as "left: NAME" lines.  Skips the test where mounting is not
# allowed (not root).
on_full_fs() {
	local dir=$1
	shift
	mkdir -p "$dir"
	unshare -m sh -c 'mount -t tmpfs -o size=64k tmpfs "$0"' "$dir" 2>/dev/null ||
		skip "cannot mount a tmpfs in a private mount namespace"
	unshare -m sh -c 'dir=$1; shift
		mount -t tmpfs -o size=64k tmpfs "$dir" || exit 99
		head -c 1M /dev/zero >"$dir/fill" 2>/dev/null
		"$@"; rc=$?
		for f in "$dir"/*; do
			[ "$f" = "$dir/fill" ] || echo "left: ${f##*/}"
		done
		exit $rc' sh "$dir" "$@"
}
