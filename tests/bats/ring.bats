#!/usr/bin/env bats
# ring.bats: ps-ring init/show/lookup round trips, one test per class of
# bad ring file (exit 65 with path:line), missing files (66), bad command
# lines (64) and unwritable output (73).

load helper

A1=127.0.0.1:7001
A2=127.0.0.1:7002
A3=127.0.0.1:7003

setup() {
	RING="$BATS_TEST_TMPDIR/ring"
}

teardown() {
	ps_reap
}

# bad_ring TEXT: write TEXT to $RING.
bad_ring() {
	printf '%b' "$1" >"$RING"
}

@test "init writes a versioned ring file to stdout with the defaults" {
	run ps-ring init "$A1" "$A2"
	assert_success
	assert_line --index 0 '# pskit ring file'
	assert_line --index 1 'pskit-ring 1'
	assert_line 'version 1'
	assert_line 'vnodes 64'
	assert_line 'replicas 0'
	assert_line "server 0 $A1"
	assert_line "server 1 $A2"
}

@test "init -o, show and lookup round trip" {
	run ps-ring init -v 8 -k 1 -o "$RING" "$A1" "$A2" "$A3"
	assert_success
	assert_output ''
	grep -qx 'vnodes 8' "$RING"
	run ps-ring show "$RING"
	assert_success
	assert_line --index 0 "$(printf 'ring\t1\t8\t1\t3')"
	# 24 points, 24 segments; the shares add up to one.
	[ "$(echo "$output" | grep -c '^segment')" -eq 24 ]
	echo "$output" | awk -F'\t' '$1 == "server" { s += $5; n++ }
	    END { exit !(n == 3 && s > 0.99999 && s < 1.00001) }'
	# Every segment has one replica, a different server.
	echo "$output" | awk -F'\t' '$1 == "segment" && ($6 == $4 || $6 !~ /^[0-2]$/) { bad++ }
	    END { exit bad > 0 }'
	run ps-ring lookup "$RING" 1 2 3 1000000 18446744073709551615
	assert_success
	[ "${#lines[@]}" -eq 5 ]
	echo "$output" | awk -F'\t' -v a="$A1 $A2 $A3" '
	    { split(a, addr, " "); if (addr[$2 + 1] != $3) exit 1 }'
	assert_line --index 3 --regexp '^1000000	[0-2]	127\.0\.0\.1:700[1-3]$'
}

@test "lookup reads fids from stdin and agrees with the command line" {
	ps-ring init -o "$RING" "$A1" "$A2" "$A3"
	args=$(ps-ring lookup "$RING" $(seq 1 200))
	run sh -c "seq 1 200 | ps-ring lookup '$RING'"
	assert_success
	[ "$output" = "$args" ]
	# All three servers own some of the first 200 keys.
	[ "$(echo "$output" | cut -f2 | sort -u | wc -l)" -eq 3 ]
}

@test "show -j prints one JSON object per line" {
	ps-ring init -v 4 -o "$RING" "$A1" "$A2"
	run ps-ring show -j "$RING"
	assert_success
	assert_line --index 0 '{"type":"ring","format":1,"version":1,"vnodes":4,"replicas":0,"servers":2}'
	[ "$(echo "$output" | grep -c '^{"type":"segment","start":"[0-9a-f]\{16\}","end":"[0-9a-f]\{16\}","server":[01],"addr":"127.0.0.1:700[12]","replicas":\[\]}$')" -eq 8 ]
	assert_line --regexp '^\{"type":"server","id":1,"addr":"127.0.0.1:7002","points":4,"share":0\.[0-9]{6}\}$'
}

@test "a hand-written ring with comments and any id order loads" {
	bad_ring '# edited by hand\npskit-ring 1\nversion 9\nvnodes 16\nreplicas 1\nserver 7 10.0.0.2:80\nserver 3 10.0.0.1:80\n'
	run ps-ring lookup "$RING" 42
	assert_success
	assert_output --regexp '^42	(7	10\.0\.0\.2|3	10\.0\.0\.1):80$'
}

@test "bad ring file: unknown keyword (65, path:line)" {
	bad_ring 'pskit-ring 1\nversion 1\nvnodes 4\nreplicas 0\nserver 0 a:1\ncolour blue\n'
	run ps-ring show "$RING"
	assert_failure 65
	assert_output "ps-ring: $RING:6: unknown keyword 'colour'"
}

@test "bad ring file: duplicate server id" {
	bad_ring 'pskit-ring 1\nversion 1\nvnodes 4\nreplicas 0\nserver 0 a:1\nserver 0 b:1\n'
	run ps-ring show "$RING"
	assert_failure 65
	assert_output --partial "$RING:6: duplicate server id 0"
}

@test "bad ring file: duplicate address" {
	bad_ring 'pskit-ring 1\nversion 1\nvnodes 4\nreplicas 0\nserver 0 a:1\nserver 1 a:1\n'
	run ps-ring lookup "$RING" 1
	assert_failure 65
	assert_output --partial "$RING:6: duplicate address 'a:1'"
}

@test "bad ring file: bad number" {
	bad_ring 'pskit-ring 1\nversion 1\nvnodes 4x\nreplicas 0\nserver 0 a:1\n'
	run ps-ring show "$RING"
	assert_failure 65
	assert_output --partial "$RING:3: bad number '4x' for 'vnodes'"
}

@test "bad ring file: missing field" {
	bad_ring 'pskit-ring 1\nversion 1\nreplicas 0\nserver 0 a:1\n'
	run ps-ring show "$RING"
	assert_failure 65
	assert_output --partial "$RING:4: missing 'vnodes'"
}

@test "bad ring file: out of limits" {
	bad_ring 'pskit-ring 1\nversion 1\nvnodes 5000\nreplicas 0\nserver 0 a:1\n'
	run ps-ring show "$RING"
	assert_failure 65
	assert_output --partial "$RING:5: vnodes must be 1-4096"
	bad_ring 'pskit-ring 1\nversion 1\nvnodes 4\nreplicas 4096\n'
	run ps-ring show "$RING"
	assert_failure 65
	assert_output --partial "$RING:4: replicas must be below 4096"
}

@test "a ring that lost servers loads; an empty one shows but cannot look up" {
	bad_ring 'pskit-ring 1\nversion 5\nvnodes 4\nreplicas 1\nserver 3 a:1\n'
	run ps-ring show "$RING"
	assert_success
	assert_line --regexp '^segment	[0-9a-f]{16}	[0-9a-f]{16}	3	a:1	-$'
	bad_ring 'pskit-ring 1\nversion 0\nvnodes 4\nreplicas 0\n'
	run ps-ring show "$RING"
	assert_success
	assert_output "$(printf 'ring\t0\t4\t0\t0')"
	run ps-ring lookup "$RING" 1
	assert_failure 65
	assert_output "ps-ring: $RING: the ring has no servers"
}

@test "bad ring file: bad address or malformed server line" {
	bad_ring 'pskit-ring 1\nversion 1\nvnodes 4\nreplicas 0\nserver 0 localhost\n'
	run ps-ring show "$RING"
	assert_failure 65
	assert_output --partial "$RING:5: invalid address 'localhost'"
	bad_ring 'pskit-ring 1\nserver 0 a:1 b:2\n'
	run ps-ring show "$RING"
	assert_failure 65
	assert_output --partial "$RING:2: expected 'server ID host:port'"
}

@test "bad ring file: not a ring file, or another format version" {
	printf 'hello\n' >"$RING"
	run ps-ring show "$RING"
	assert_failure 65
	assert_output --partial "$RING:1: not a ring file"
	head -c 3000 /dev/zero | tr '\0' x >"$RING"
	run ps-ring show "$RING"
	assert_failure 65
	assert_output --partial "$RING:1: line too long"
	bad_ring 'pskit-ring 2\n'
	run ps-ring show "$RING"
	assert_failure 65
	assert_output --partial "$RING:1: unsupported format 2"
}

@test "a missing ring file exits 66" {
	run ps-ring show "$BATS_TEST_TMPDIR/nope"
	assert_failure 66
	assert_output "ps-ring: cannot open '$BATS_TEST_TMPDIR/nope': No such file or directory"
}

@test "bad fids: 64 on the command line, 65 with the line on stdin" {
	ps-ring init -o "$RING" "$A1"
	run ps-ring lookup "$RING" 0
	assert_failure 64
	assert_output --partial "invalid feature id '0'"
	run sh -c "printf '1\n2x\n' | ps-ring lookup '$RING'"
	assert_failure 65
	assert_output --partial "<stdin>:2: invalid feature id '2x'"
}

@test "bad command lines exit 64 with the usage on stderr" {
	run ps-ring
	assert_failure 64
	assert_output --partial 'usage: ps-ring'
	run ps-ring frobnicate
	assert_failure 64
	assert_output --partial "unknown command 'frobnicate'"
	run ps-ring init
	assert_failure 64
	run ps-ring init -v 0 "$A1"
	assert_failure 64
	assert_output --partial "invalid vnodes '0'"
	run ps-ring init "$A1" "$A1"
	assert_failure 64
	assert_output --partial "duplicate address '$A1'"
	run ps-ring init -k 1 "$A1"
	assert_failure 64
	run ps-ring show
	assert_failure 64
	run ps-ring show -x "$RING"
	assert_failure 64
	run ps-ring lookup
	assert_failure 64
	run ps-ring -Q
	assert_failure 64
}

@test "help goes to stdout and exits 0; -V prints the version" {
	run ps-ring --help
	assert_success
	assert_line --index 0 'usage: ps-ring [-hV] command [argument ...]'
	run ps-ring show -h
	assert_success
	assert_output --partial 'usage: ps-ring'
	run ps-ring -V
	assert_success
	assert_output --regexp '^ps-ring [0-9]+\.[0-9]+\.[0-9]+$'
	run ps-ring --version
	assert_success
}

@test "the usage text matches the SYNOPSIS of ps-ring(1)" {
	man=$(mandoc -Tascii -O width=200 "$PSKIT_SRCDIR/man/ps-ring.1" | col -b |
	    sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' | sed '1d;$d;/^ *$/d' |
	    sed 's/^ *//; s/  */ /g')
	usage=$(ps-ring -h | sed -n '/^usage:/,/^$/p' | sed '/^$/d' |
	    sed 's/^usage: //; s/^ *//; s/  */ /g')
	echo "man: $man"; echo "usage: $usage"
	[ -n "$man" ]
	[ "$man" = "$usage" ]
}

@test "init cannot create the output: 73" {
	run ps-ring init -o "$BATS_TEST_TMPDIR/no/such/dir/ring" "$A1"
	assert_failure 73
	assert_output --partial "$BATS_TEST_TMPDIR/no/such/dir/ring"
}

@test "a malformed address or a port out of range in serve -l or -C exits 64" {
	for a in 127.0.0.1:99999 127.0.0.1 '[::1:7000'; do
		run timeout 10 ps-ring serve -l "$a" "$BATS_TEST_TMPDIR/ring"
		assert_failure 64
		assert_line --index 0 "ps-ring: bad address '$a': expected host:port or [v6addr]:port, port 0-65535"
		[ ! -e "$BATS_TEST_TMPDIR/ring" ]
		for c in show status checkpoint; do
			run timeout 10 ps-ring "$c" -C "$a"
			assert_failure 64
			assert_line --index 0 "ps-ring: bad address '$a': expected host:port or [v6addr]:port, port 0-65535"
		done
		run timeout 10 ps-ring add -C 127.0.0.1:1 "$a"
		assert_failure 64
		assert_line --index 0 "ps-ring: bad address '$a': expected host:port or [v6addr]:port, port 0-65535"
	done
}

@test "serve on an address in use exits 69 and writes no ring file" {
	ps_start_daemon "$BATS_TEST_TMPDIR/first.out" ps-ring serve "$BATS_TEST_TMPDIR/first"
	line=$(ps_wait_line "$BATS_TEST_TMPDIR/first.out" '^listening ' 10)
	run timeout 10 ps-ring serve -l "${line#listening }" "$BATS_TEST_TMPDIR/second"
	assert_failure 69
	assert_output --partial "cannot listen on '${line#listening }'"
	[ ! -e "$BATS_TEST_TMPDIR/second" ]
	[ -z "$(ls "$BATS_TEST_TMPDIR" | grep second)" ]
}
