#!/usr/bin/env bats
# readme.bats: the README's commands, run as they are written, in order,
# so that the README cannot rot.  The block that sets PATH and every
# indented block from "Pipelines" down to "Layout" runs in one scratch directory beside a
# "shared" link to the data, each block in its own bash with -e (a failing
# command fails the test, naming the block).  Left out, and counted: the
# blocks that need other machines (an address other than 127.0.0.1) and
# the tests/bench lines (benchmarks, minutes each).  Background jobs a
# block leaves are ended by PID when it is done.

load helper

# blocks: the README's runnable blocks, separated by NUL.
blocks() {
	awk '/^    export PATH=/ || /^Pipelines$/ { on = 1 } /^Layout$/ { on = 0 }
	    on && /^    / { sub(/^    /, ""); blk = blk $0 "\n"; next }
	    on && blk != "" { printf "%s%c", blk, 0; blk = ""; if (!pipes) on = 0 }
	    /^Pipelines$/ { pipes = 1 }
	    END { if (blk != "") printf "%s%c", blk, 0 }' "$PSKIT_SRCDIR/README"
}

@test "the README's commands run as written" {
	local top=$BATS_TEST_TMPDIR/top n=0 skipped=0 block
	[ -d "$PSKIT_DATA" ] || skip "no data sets in $PSKIT_DATA"
	mkdir -p "$top/checkout"
	ln -s "$(cd "$PSKIT_DATA/.." && pwd)" "$top/shared"
	ln -s "$PSKIT_BUILDDIR" "$top/checkout/build"
	ln -s "$PSKIT_SRCDIR/scripts" "$top/checkout/scripts"
	ln -s "$PSKIT_SRCDIR/tests" "$top/checkout/tests"
	cd "$top/checkout"
	while IFS= read -r -d '' block; do
		if printf '%s' "$block" | grep -Eq '([0-9]+\.){3}[0-9]+' &&
		    ! printf '%s' "$block" | grep -Eq '127\.0\.0\.1' ||
		    printf '%s' "$block" | grep -Eq '0\.0\.0\.0|10\.0\.0\.'; then
			skipped=$((skipped + 1))
			continue
		fi
		block=$(printf '%s' "$block" | grep -v '^tests/bench/')
		n=$((n + 1))
		echo "# block $n" >&3
		if [ $n -eq 1 ]; then	# export PATH, cd: carry them over
			eval "$block"
			continue
		fi
		run timeout 300 bash -e -c "exec 3>&- </dev/null
trap 'exit 143' TERM
trap 'for p in \$(jobs -p); do kill \$p 2>/dev/null; done; wait' EXIT
$block"
		if [ "$status" -ne 0 ]; then
			printf 'block %d failed (%d):\n%s\n--\n%s\n' "$n" "$status" \
			    "$block" "$output"
			return 1
		fi
	done < <(blocks)
	echo "# ran $n blocks, left out $skipped" >&3
	[ $n -ge 12 ]
	[ $skipped -le 3 ]
}
