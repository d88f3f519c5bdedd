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
ps_start_daemon() {
	local out=$1; shift
	"$@" >"$out" 2>"$out.err" 3>&- &
	echo $! >>"$BATS_TEST_TMPDIR/pids"
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
	echo "timed out waiting for '$pat' in $file" >&2
	return 1
}

# ps_wait_pid PID SECONDS: wait for PID to exit; its status in PS_WAIT_STATUS.
ps_wait_pid() {
	local pid=$1 secs=$2 i=0
	while kill -0 "$pid" 2>/dev/null; do
		[ "$i" -ge $((secs * 20)) ] && return 1
		sleep 0.05
		i=$((i + 1))
	done
	wait "$pid"
	PS_WAIT_STATUS=$?
	return 0
}

# ps_reap: TERM then KILL every daemon this test started.
ps_reap() {
	local f="$BATS_TEST_TMPDIR/pids" pid
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
