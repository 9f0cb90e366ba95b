#!/bin/sh
# deps.sh - install what myriad needs to build and test, on Debian/Ubuntu.
# Called by `make deps`. Idempotent: installs only packages that are missing.
# Daemons that packages would start (sshd, munged, prometheus) are held back
# with a temporary policy-rc.d: tests start their own on free ports.
set -e
CORE="build-essential pkg-config libncurses-dev libssh-dev libreadline-dev libjansson-dev libsqlite3-dev tcl8.6-dev tcl8.6 tcllib tmux openssh-server openssh-client sqlite3"
TEST="clang libclang-rt-14-dev slurmctld slurmd slurm-client munge prometheus clustershell pdsh iproute2 procps"
want="$CORE"
[ "${1:-}" = "--core" ] || want="$CORE $TEST"

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
	echo "deps: not a Debian/Ubuntu system; install by hand: $want" >&2
	exit 0
fi
missing=""
for p in $want; do
	s=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$s" in *"ok installed"*) ;; *) missing="$missing $p" ;; esac
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages:$missing (run as root, or install them)" >&2
	exit 1
fi
echo "deps: installing:$missing"
made_policy=""
if [ ! -e /usr/sbin/policy-rc.d ]; then
	printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
	chmod +x /usr/sbin/policy-rc.d
	made_policy=1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || true
apt-get install -y -qq --no-install-recommends $missing || { [ -n "$made_policy" ] && rm -f /usr/sbin/policy-rc.d; exit 1; }
[ -n "$made_policy" ] && rm -f /usr/sbin/policy-rc.d
exit 0
