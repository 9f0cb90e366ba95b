#!/bin/sh
# bench_ssh.sh BUILD_DIR - `make bench`: the SSH transport's numbers.
#
#  1. The console (myriad -c FILE, plain live view) on 1,280 nodes of
#     myriad-sim serve (10,240 GPUs): time from start to all nodes up and
#     streaming, steady CPU of the console at 1 Hz telemetry (target < 10 %
#     of one core), resident memory; the server's CPU for reference.
#  2. `myriad fanout -w NODESET -b -- hostname` over 256 and 1,280 simulated
#     nodes, as a ratio against `clush -w NODESET -b hostname` and
#     `pdsh -R ssh -w NODESET hostname | dshbak -c` on the same nodes in the
#     same run (median of 3; target <= 0.2x).
#  2b. `myriad fanout -b hostname` over all 12,800 nodes of a second
#     myriad-sim serve (102,400 GPUs) against 1,280 of the same server in the
#     same run (median of 3): the ratio (target <= 11x).
#  3. For the record, the same fan-out against a private OpenSSH sshd (root
#     only): 128 node names on one sshd, whose per-connection cost dominates.
#  4. The 1,280 simulated nodes behind that sshd as a gateway (host -via):
#     one session carries every node; the console's and the gateway's CPU,
#     and the fan-out through it against the direct one.
#  5. The console's `:fanout` over 1,280 nodes on the sessions it holds
#     (exec channels, no new logins) against `myriad fanout` (one-shot, a
#     login per node) in the same run (median of 3).
#  4b. For the record: the console's steady CPU on 12,800 simulated nodes
#     (102,400 GPUs), a session per node, then behind four gateways.
#
# Starts and stops its own servers (killed by PID); loopback only.
B=${1:-build}
cd "$(dirname "$0")/../.." || exit 2
MYRIAD="$PWD/$B/myriad"
SIM="$PWD/$B/myriad-sim"
ulimit -n "$(ulimit -H -n)" 2>/dev/null
tmp=$(mktemp -d /tmp/myriad-bench-ssh.XXXXXX)
export XDG_STATE_HOME="$tmp/state"   # the consoles' recordings (the default) go with the rest
pids=""
# with their children: the real sshd's sessions (section 3) outlive it
descendants() { for c in $(pgrep -P "$1"); do descendants "$c"; echo "$c"; done; }
cleanup() {
	for p in $pids; do kill $(descendants "$p") "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
median3() { printf '%s\n%s\n%s\n' "$1" "$2" "$3" | sort -n | sed -n 2p; }

# ---- the simulated fleet ----
"$SIM" serve --sim gpus=10240,seed=1 --listen 127.0.0.1:0 --write-config "$tmp/fleet.conf" 2> "$tmp/sim.log" &
sim=$!
pids="$pids $sim"
for i in $(seq 100); do [ -s "$tmp/fleet.conf" ] && break; sleep 0.1; done
[ -s "$tmp/fleet.conf" ] || { echo "bench_ssh: myriad-sim serve did not start"; cat "$tmp/sim.log"; exit 1; }
port=$(sed -n 's/^hostkey {\[127.0.0.1\]:\([0-9]*\)}.*/\1/p' "$tmp/fleet.conf")
echo "myriad bench ssh: myriad-sim serve, 1280 nodes (10,240 GPUs) on 127.0.0.1:$port"

# ---- 1. the console over 1,280 sessions ----
cp "$tmp/fleet.conf" "$tmp/console.conf"
echo "ssh -log $tmp/console.log" >> "$tmp/console.conf"
hz=$(getconf CLK_TCK)
"$MYRIAD" -c "$tmp/console.conf" --ticks 50 > /dev/null 2> "$tmp/console.err" &
con=$!
pids="$pids $con"
sleep 20
c0=$(cpu_ticks $con); s0=$(cpu_ticks $sim); t0=$(now)
sleep 20
c1=$(cpu_ticks $con); s1=$(cpu_ticks $sim); t1=$(now)
rss=$(awk '/VmRSS/ { print $2 }' "/proc/$con/status")
srss=$(awk '/VmRSS/ { print $2 }' "/proc/$sim/status")
wait $con
span=$(elapsed "$t0" "$t1")
up=$(sed -n 's/.*all 1280 hosts up after \([0-9.]*\) s/\1/p' "$tmp/console.log")
streaming=$(sed -n 's/.*all 1280 hosts streaming after \([0-9.]*\) s/\1/p' "$tmp/console.log")
ccpu=$(awk -v d=$((c1 - c0)) -v hz="$hz" -v s="$span" 'BEGIN { printf "%.1f", 100 * d / hz / s }')
scpu=$(awk -v d=$((s1 - s0)) -v hz="$hz" -v s="$span" 'BEGIN { printf "%.1f", 100 * d / hz / s }')
echo "console, 1280 nodes x 3 probe channels over SSH: all up after ${up:-?} s, all streaming after ${streaming:-?} s"
echo "  steady CPU of the console at 1 Hz (20 s window): $ccpu % of one core; target < 10 %: $(awk -v c="$ccpu" 'BEGIN { print (c < 10) ? "met" : "NOT met" }')"
echo "  resident memory: console $((rss / 1024)) MB; myriad-sim serve $((srss / 1024)) MB, $scpu % of one core"
grep -q "stats:" "$tmp/console.log" && echo "  $(grep 'stats:' "$tmp/console.log" | tail -n 1 | cut -d' ' -f2-)"

# ---- 2. fan-out against clush and pdsh ----
key="$tmp/fleet.conf.key"
sed -n 's/^hostkey {\(.*\)} \(.*\)$/\1 \2/p' "$tmp/fleet.conf" > "$tmp/known_hosts"
{
	for i in $(seq -f %04g 1 1280); do printf 'Host gpu%s\n  User gpu%s\n' "$i" "$i"; done
	printf 'Host *\n  HostName 127.0.0.1\n  Port %s\n  IdentityFile %s\n  IdentitiesOnly yes\n' "$port" "$key"
	printf '  UserKnownHostsFile %s\n  GlobalKnownHostsFile /dev/null\n  StrictHostKeyChecking yes\n' "$tmp/known_hosts"
	printf '  BatchMode yes\n  LogLevel ERROR\n'
} > "$tmp/ssh_config"

run_myriad() { "$MYRIAD" -c "$2" fanout -w "$1" -b -- hostname; }
SSHCFG="$tmp/ssh_config"
run_clush() { clush -w "$1" -b -o "-F $SSHCFG" hostname 2>&1; }
run_pdsh() { PDSH_SSH_ARGS="-F $SSHCFG -a -x %h" pdsh -R ssh -w "$1" hostname 2>&1 | dshbak -c; }

# time_of TOOL NODESET CONF N: wall seconds, or "fail" if not every node answered
time_of() {
	a=$(now)
	out=$(run_$1 "$2" "$3")
	b=$(now)
	answered=$(printf '%s\n' "$out" | grep -x 'gpu[0-9]*' | sort -u | wc -l)   # headers repeat names
	[ "$answered" -eq "$4" ] || { echo fail; return; }
	elapsed "$a" "$b"
}

bench_fanout() { # NODESET N CONF LABEL
	for tool in myriad clush pdsh; do
		command -v "$tool" > /dev/null 2>&1 || [ "$tool" = myriad ] || { eval "t_$tool=n/a"; continue; }
		r1=$(time_of $tool "$1" "$3" "$2"); r2=$(time_of $tool "$1" "$3" "$2"); r3=$(time_of $tool "$1" "$3" "$2")
		case "$r1$r2$r3" in *fail*) eval "t_$tool=fail" ;; *) eval "t_$tool=$(median3 "$r1" "$r2" "$r3")" ;; esac
	done
	printf 'fanout -b hostname over %s %s (median of 3): myriad %s s, clush %s s, pdsh|dshbak %s s\n' \
		"$2" "$4" "$t_myriad" "$t_clush" "$t_pdsh"
	for ref in clush pdsh; do
		eval "r=\$t_$ref"
		case "$r$t_myriad" in *[!0-9.]*) ;; *)
			awk -v m="$t_myriad" -v r="$r" -v n="$ref" -v show="$5" 'BEGIN {
				x = m / r
				printf "  ratio myriad/%s = %.3f%s\n", n, x, show ? (x <= 0.2 ? " (target <= 0.2: met)" : " (target <= 0.2: NOT met)") : "" }' ;;
		esac
	done
}
bench_fanout 'gpu[0001-0256]' 256 "$tmp/fleet.conf" "simulated nodes" 1
bench_fanout 'gpu[0001-1280]' 1280 "$tmp/fleet.conf" "simulated nodes" 1

# ---- 2b. 12,800 nodes against 1,280 of the same server ----
"$SIM" serve --sim gpus=102400,seed=1 --listen 127.0.0.1:0 --write-config "$tmp/big.conf" 2> "$tmp/big.log" &
big=$!
pids="$pids $big"
for i in $(seq 300); do [ -s "$tmp/big.conf" ] && break; sleep 0.1; done
median_of() { # NODESET N CONF
	r1=$(time_of myriad "$1" "$3" "$2"); r2=$(time_of myriad "$1" "$3" "$2"); r3=$(time_of myriad "$1" "$3" "$2")
	case "$r1$r2$r3" in *fail*) echo fail ;; *) median3 "$r1" "$r2" "$r3" ;; esac
}
if [ -s "$tmp/big.conf" ]; then
	t1k=$(median_of 'gpu[00001-01280]' 1280 "$tmp/big.conf")
	t12k=$(median_of 'gpu[00001-12800]' 12800 "$tmp/big.conf")
	echo "fanout -b hostname on myriad-sim serve of 12,800 nodes (102,400 GPUs), median of 3: 1280 nodes $t1k s, 12800 nodes $t12k s"
	case "$t1k$t12k" in *[!0-9.]*) echo "  ratio 12800/1280: n/a" ;; *)
		awk -v a="$t12k" -v b="$t1k" 'BEGIN { x = a / b
			printf "  ratio 12800/1280 = %.2f (target <= 11: %s)\n", x, x <= 11 ? "met" : "NOT met" }' ;;
	esac
else
	echo "fanout over 12,800 nodes: myriad-sim serve --sim gpus=102400 did not start: $(cat "$tmp/big.log")"
fi
kill $big 2>/dev/null

# ---- 3. real OpenSSH, for the record ----
if [ "$(id -u)" != 0 ] || [ ! -x /usr/sbin/sshd ]; then
	echo "real sshd: skipped (needs root and /usr/sbin/sshd)"
	exit 0
fi
user=myriad-test
id "$user" > /dev/null 2>&1 || useradd -M -d / -s /bin/sh "$user"
usermod -p '*' "$user"
mkdir -p /run/sshd "$tmp/sshd"
chmod 755 "$tmp" "$tmp/sshd"   # sshd reads authorized_keys as the user
ssh-keygen -q -t ed25519 -N '' -C '' -f "$tmp/sshd/host"
ssh-keygen -q -t ed25519 -N '' -C '' -f "$tmp/sshd/client"
cp "$tmp/sshd/client.pub" "$tmp/sshd/authorized_keys"
chmod 644 "$tmp/sshd/authorized_keys"
sport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat > "$tmp/sshd/config" <<EOF
Port $sport
ListenAddress 127.0.0.1
HostKey $tmp/sshd/host
PidFile $tmp/sshd/pid
AuthorizedKeysFile $tmp/sshd/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
MaxStartups 2000
EOF
/usr/sbin/sshd -D -f "$tmp/sshd/config" -e 2> "$tmp/sshd/log" &
sshd=$!
pids="$pids $sshd"
for i in $(seq 100); do grep -q "Server listening" "$tmp/sshd/log" && break; sleep 0.1; done
hk=$(cut -d' ' -f1,2 "$tmp/sshd/host.pub")
cat > "$tmp/real.conf" <<EOF
ssh -config none -known-hosts none
hostkey {[127.0.0.1]:$sport} $hk
host {gpu[0001-0128]} -hostname 127.0.0.1 -port $sport -user $user -identity $tmp/sshd/client
EOF
echo "[127.0.0.1]:$sport $hk" > "$tmp/real_known_hosts"
SSHCFG="$tmp/real_ssh_config"
{
	printf 'Host *\n  HostName 127.0.0.1\n  Port %s\n  User %s\n  IdentityFile %s\n' "$sport" "$user" "$tmp/sshd/client"
	printf '  IdentitiesOnly yes\n  UserKnownHostsFile %s\n  GlobalKnownHostsFile /dev/null\n' "$tmp/real_known_hosts"
	printf '  StrictHostKeyChecking yes\n  BatchMode yes\n  LogLevel ERROR\n'
} > "$SSHCFG"
# every answer is the machine's hostname here: all nodes folded in one group
host=$(hostname)
time_of() {
	a=$(now)
	out=$(run_$1 "$2" "$3")
	b=$(now)
	printf '%s\n' "$out" | grep -qxF "$2" || printf '%s\n' "$out" | grep -qxF "$2 ($4)" || { echo fail; return; }
	printf '%s\n' "$out" | grep -qxF "$host" || { echo fail; return; }
	elapsed "$a" "$b"
}
bench_fanout 'gpu[0001-0128]' 128 "$tmp/real.conf" "node names on one real OpenSSH sshd" 0

# ---- 4. 1,280 nodes behind one gateway ----
printf 'Host gw\n  HostName 127.0.0.1\n  Port %s\n  User %s\n  IdentityFile %s\n' "$sport" "$user" "$tmp/sshd/client" > "$tmp/gw_config"
{
	grep -v '^ssh ' "$tmp/fleet.conf"
	echo "ssh -config $tmp/gw_config -known-hosts none"
	echo "hostkey {[127.0.0.1]:$sport} $hk"
	echo "host {gpu[0001-1280]} -via gw"
} > "$tmp/via.conf"
"$MYRIAD" -c "$tmp/via.conf" --ticks 45 > /dev/null 2> "$tmp/via.err" &
con=$!
pids="$pids $con"
sleep 15
gwp=$(pgrep -u "$user" -f "sshd: $user" | head -n 1)
c0=$(cpu_ticks $con); g0=$(cpu_ticks "${gwp:-0}"); t0=$(now)
sleep 20
c1=$(cpu_ticks $con); g1=$(cpu_ticks "${gwp:-0}"); t1=$(now)
rss=$(awk '/VmRSS/ { print $2 }' "/proc/$con/status")
wait $con
span=$(elapsed "$t0" "$t1")
echo "console, 1280 simulated nodes x 3 probe channels behind one gateway session (real sshd):"
echo "  steady CPU: console $(awk -v d=$((c1 - c0)) -v hz="$hz" -v s="$span" 'BEGIN { printf "%.1f", 100 * d / hz / s }') % of one core, gateway sshd $(awk -v d=$((g1 - g0)) -v hz="$hz" -v s="$span" 'BEGIN { printf "%.1f", 100 * d / hz / s }') %; console RSS $((rss / 1024)) MB"
time_of() {
	a=$(now)
	out=$(run_$1 "$2" "$3")
	b=$(now)
	answered=$(printf '%s\n' "$out" | grep -x 'gpu[0-9]*' | sort -u | wc -l)
	[ "$answered" -eq "$4" ] || { echo fail; return; }
	elapsed "$a" "$b"
}
d1=$(time_of myriad 'gpu[0001-1280]' "$tmp/fleet.conf" 1280); v1=$(time_of myriad 'gpu[0001-1280]' "$tmp/via.conf" 1280)
d2=$(time_of myriad 'gpu[0001-1280]' "$tmp/fleet.conf" 1280); v2=$(time_of myriad 'gpu[0001-1280]' "$tmp/via.conf" 1280)
d3=$(time_of myriad 'gpu[0001-1280]' "$tmp/fleet.conf" 1280); v3=$(time_of myriad 'gpu[0001-1280]' "$tmp/via.conf" 1280)
case "$d1$d2$d3$v1$v2$v3" in
*fail*) echo "fanout -b hostname over 1280 nodes through the gateway: fail (direct $d1 $d2 $d3, via $v1 $v2 $v3)" ;;
*)	d=$(median3 "$d1" "$d2" "$d3"); v=$(median3 "$v1" "$v2" "$v3")
	echo "fanout -b hostname over 1280 nodes (median of 3): through one gateway $v s, direct $d s (ratio $(awk -v a="$v" -v b="$d" 'BEGIN { printf "%.2f", a / b }'))" ;;
esac

# ---- 5. fan-out on the console's live sessions against the one-shot form ----
# The console holds a session to every node; its `:fanout` opens an exec
# channel on each instead of logging in again. Timed from the `:` line (the
# -then script writes the elapsed milliseconds), median of 3, beside
# `myriad fanout` (a login per node) on the same nodes in the same run.
if command -v tmux > /dev/null 2>&1; then
	cp "$tmp/fleet.conf" "$tmp/live.conf"
	echo "ssh -log $tmp/live.log" >> "$tmp/live.conf"
	tmux -S "$tmp/tmux.sock" new-session -d -x 200 -y 60 "$MYRIAD -c $tmp/live.conf --record none"
	for i in $(seq 600); do grep -q "all 1280 hosts streaming" "$tmp/live.log" 2>/dev/null && break; sleep 0.1; done
	live=""
	for k in 1 2 3; do
		rm -f "$tmp/live.ms"
		tmux -S "$tmp/tmux.sock" send-keys ':' 
		sleep 0.3
		tmux -S "$tmp/tmux.sock" send-keys -l "set t0 [clock milliseconds]; fanout -w {gpu[0001-1280]} hostname -then [list apply {{t0 f r} {set n 0; dict for {k v} \$r {incr n [expr {[dict get \$v status] == 0}]}; set o [open \$f w]; puts \$o \"[expr {[clock milliseconds] - \$t0}] \$n\"; close \$o}} \$t0 $tmp/live.ms]"
		tmux -S "$tmp/tmux.sock" send-keys Enter
		for i in $(seq 300); do [ -s "$tmp/live.ms" ] && break; sleep 0.1; done
		live="$live $(cat "$tmp/live.ms" 2>/dev/null || echo 'fail 0')"
	done
	tmux -S "$tmp/tmux.sock" send-keys ':' 
	sleep 0.3
	tmux -S "$tmp/tmux.sock" send-keys -l "quit"
	tmux -S "$tmp/tmux.sock" send-keys Enter
	sleep 1
	tmux -S "$tmp/tmux.sock" kill-server 2>/dev/null
	o1=$(time_of myriad 'gpu[0001-1280]' "$tmp/fleet.conf" 1280); o2=$(time_of myriad 'gpu[0001-1280]' "$tmp/fleet.conf" 1280)
	o3=$(time_of myriad 'gpu[0001-1280]' "$tmp/fleet.conf" 1280)
	set -- $live
	if [ "$2 $4 $6" = "1280 1280 1280" ]; then
		l=$(median3 "$1" "$3" "$5"); o=$(median3 "$o1" "$o2" "$o3")
		echo "fanout hostname over 1280 nodes (median of 3): on the console's live sessions $(awk -v m="$l" 'BEGIN { printf "%.3f", m / 1000 }') s, one-shot myriad fanout $o s (ratio live/one-shot $(awk -v a="$l" -v b="$o" 'BEGIN { printf "%.3f", a / 1000 / b }'))"
	else
		echo "fanout on the console's live sessions: fail (ms and nodes ok: $live; $(tail -n 3 "$tmp/live.log" 2>/dev/null))"
	fi
else
	echo "fanout on the console's live sessions: skipped (needs tmux)"
fi

# ---- 4b. the console on 12,800 nodes, for the record ----
# Direct, a session per node, then behind four gateway sessions to the real
# sshd of section 3 (3,200 nodes each, as a gateway per 100 SUs would be):
# the console's share (recording, as by default) and the gateways', over a
# minute from 30 s after every node streams (up to 2 minutes after start:
# on 2 cores the simulated fleet's own output competes with the logins).
pct() { awk -v d="$1" -v hz="$hz" -v s="$2" 'BEGIN { printf "%.1f", 100 * d / hz / s }'; }
# the real sshd and its sessions, those gone included (reaped: cutime, cstime)
tree_ticks() { t=$(awk '{ print $14 + $15 + $16 + $17 }' "/proc/$1/stat" 2>/dev/null || echo 0); for c in $(pgrep -P "$1"); do t=$((t + $(tree_ticks "$c"))); done; echo "$t"; }
gw_ticks() { tree_ticks "$sshd"; }
console_12k() {   # NAME CONF WHAT
	echo "ssh -log $tmp/$1.log" >> "$2"
	"$MYRIAD" -c "$2" --ticks 400 > /dev/null 2> "$tmp/$1.err" &
	con=$!
	pids="$pids $con"
	for i in $(seq 1200); do grep -q "all 12800 hosts streaming" "$tmp/$1.log" 2>/dev/null && break; sleep 0.1; done
	sleep 30
	c0=$(cpu_ticks $con); s0=$(cpu_ticks $big); g0=$(gw_ticks); t0=$(now)
	sleep 60
	c1=$(cpu_ticks $con); s1=$(cpu_ticks $big); g1=$(gw_ticks); t1=$(now)
	rss=$(awk '/VmRSS/ { print $2 }' "/proc/$con/status" 2>/dev/null || echo 0)
	kill $con 2>/dev/null; wait $con 2>/dev/null
	span=$(elapsed "$t0" "$t1")
	up=$(sed -n 's/.*all 12800 hosts streaming after \([0-9.]*\) s/\1/p' "$tmp/$1.log")
	[ -n "$up" ] && up="after $up s" || up="not in 120 s, measured as it stood"
	echo "console, 12800 simulated nodes (102,400 GPUs) x 3 probe channels, $3: all streaming $up; $(grep 'stats:' "$tmp/$1.log" | tail -n 1 | cut -d' ' -f3-)"
	echo "  steady CPU (60 s window, from 30 s after): console $(pct $((c1 - c0)) "$span") % of one core, myriad-sim serve $(pct $((s1 - s0)) "$span") %, gateway sshd $(pct $((g1 - g0)) "$span") %; console RSS $((rss / 1024)) MB"
}
"$SIM" serve --sim gpus=102400,seed=1 --listen 127.0.0.1:0 --write-config "$tmp/big2.conf" 2> "$tmp/big2.log" &
big=$!
pids="$pids $big"
for i in $(seq 300); do [ -s "$tmp/big2.conf" ] && break; sleep 0.1; done
if [ -s "$tmp/big2.conf" ]; then
	cp "$tmp/big2.conf" "$tmp/c12k.conf"
	console_12k c12k "$tmp/c12k.conf" "a session per node"
	: > "$tmp/gw4_config"
	for g in 1 2 3 4; do
		printf 'Host gw%s\n  HostName 127.0.0.1\n  Port %s\n  User %s\n  IdentityFile %s\n' "$g" "$sport" "$user" "$tmp/sshd/client" >> "$tmp/gw4_config"
	done
	{
		grep -v '^ssh ' "$tmp/big2.conf"
		echo "ssh -config $tmp/gw4_config -known-hosts none -cluster sim-102400"
		echo "hostkey {[127.0.0.1]:$sport} $hk"
		echo "host {gpu[00001-03200]} -via gw1"
		echo "host {gpu[03201-06400]} -via gw2"
		echo "host {gpu[06401-09600]} -via gw3"
		echo "host {gpu[09601-12800]} -via gw4"
	} > "$tmp/g12k.conf"
	console_12k g12k "$tmp/g12k.conf" "behind 4 gateway sessions (real sshd)"
else
	echo "console on 12,800 nodes: myriad-sim serve --sim gpus=102400 did not start: $(cat "$tmp/big2.log")"
fi
kill $big 2>/dev/null
kill $sim 2>/dev/null
