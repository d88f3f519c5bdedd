# tests/bats/netns.bash: hosts as Linux network namespaces on a bridge,
# for netns.bats and hosts.bats.  Load with `load netns` after helper;
# call net_setup from setup (it skips without root or ip) and net_down
# from teardown, after the processes are reaped.  Every namespace, link
# and nft table made is recorded in NETLOG and deleted by net_down, and
# named after the Bats process and the test number (TAG), so that
# parallel or leftover runs do not clash.

# net_setup: skip without root or ip (iproute2); set NETLOG and TAG.
net_setup() {
	[ "$(id -u)" -eq 0 ] || skip "needs root for ip netns"
	command -v ip >/dev/null || skip "needs ip (iproute2) for ip netns"
	NETLOG="$BATS_TEST_TMPDIR/netlog"
	: >"$NETLOG"
	# Interface names have at most 15 bytes: pk, the pid, the test.
	TAG="pk$$t$BATS_TEST_NUMBER"
}

# net_record KIND NAME...: remember something to delete in teardown.
net_record() {
	echo "$*" >>"$NETLOG"
}

# net_down: delete what net_record noted, newest first; whatever is
# already gone (a namespace takes its veth ends with it) is skipped.
net_down() {
	local kind a b
	[ -f "$NETLOG" ] || return 0
	tac "$NETLOG" | while read -r kind a b; do
		case $kind in
		nft)	ip netns exec "$a" nft delete table inet "$b" 2>/dev/null ;;
		netns)	ip netns delete "$a" 2>/dev/null ;;
		link)	ip link delete "$a" 2>/dev/null ;;
		esac
	done
	rm -f "$NETLOG"
	return 0
}

# net_pick_subnet: the first 10.77.N.0/24 with no address in the root
# namespace (call it under a lock); make the bridge and give it
# 10.77.N.1.  Prints N.
net_pick_subnet() {
	local n
	for n in $(seq 1 254); do
		ip -4 -o addr show | grep -q " 10\.77\.$n\." && continue
		net_record link "${TAG}b"
		# A MAC of its own: by default a bridge takes the lowest of
		# its ports', and a port cut off (link down) would change it
		# under the hosts' ARP caches, cutting them all off.
		ip link add "${TAG}b" type bridge &&
		    ip link set "${TAG}b" address "$(printf '02:77:00:00:00:%02x' "$n")" &&
		    ip addr add "10.77.$n.1/24" dev "${TAG}b" &&
		    ip link set "${TAG}b" up || return 1
		echo "$n"
		return 0
	done
	echo "no free 10.77.N.0/24" >&2
	return 1
}

# net_up HOSTS: a bridge in the root namespace at 10.77.N.1 and HOSTS
# namespaces, host k at 10.77.N.(k+1) on a veth whose root end is on the
# bridge.  Sets BRIDGE_IP, NS_k, IP_k and LINK_k (the root end).  Skips
# when namespaces or links cannot be made.
net_up() {
	local k n ns
	ns="pskit-$$-$BATS_TEST_NUMBER-probe"
	ip netns add "$ns" 2>"$BATS_TEST_TMPDIR/netns.err" ||
	    skip "cannot create a network namespace: $(cat "$BATS_TEST_TMPDIR/netns.err")"
	ip netns delete "$ns"
	# Lock the directory ip netns keeps, so that two runs do not pick
	# the same subnet.
	{ n=$(flock -w 10 9 && net_pick_subnet 9<&-) || n=; } 9</var/run/netns
	[ -n "$n" ] || skip "cannot make a bridge with a free 10.77.N.0/24 ($TAG)"
	BRIDGE_IP=10.77.$n.1
	for k in $(seq 1 "$1"); do
		ns="pskit-$$-$BATS_TEST_NUMBER-h$k"
		net_record netns "$ns"
		net_record link "${TAG}h$k"
		ip netns add "$ns"
		ip link add "${TAG}h$k" type veth peer name eth0 netns "$ns"
		ip link set "${TAG}h$k" master "${TAG}b" up
		ip -n "$ns" link set lo up
		ip -n "$ns" addr add "10.77.$n.$((k + 1))/24" dev eth0
		ip -n "$ns" link set eth0 up
		eval "NS_$k=$ns IP_$k=10.77.$n.$((k + 1)) LINK_$k=${TAG}h$k"
	done
}
