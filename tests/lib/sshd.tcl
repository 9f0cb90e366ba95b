# sshd.tcl - a private OpenSSH sshd on loopback, and its test user, for
# myriad's Tcl test suites (tests/*.test).
#
# What it sets up, all under one folder the caller gives (usually a
# subfolder of tester.tcl's `tmpdir`):
#   - an ed25519 host key and an ed25519 client key (no passphrase);
#   - a test user (default myriad-test) with shell /bin/sh, home /, made if
#     missing and unlocked with `usermod -p '*'` (with UsePAM no, OpenSSH
#     refuses an account locked with "!"). /bin/sh, not bash: bash reads rc
#     files on every exec channel. The user is left in /etc/passwd at the end,
#     like tests/ssh.test leaves its own: the next run reuses it;
#   - sshd_config: ListenAddress on loopback only (127.0.0.0/8, refused
#     otherwise), a free port (bind port 0 on 127.0.0.1), HostKey, PidFile and
#     AuthorizedKeysFile in the folder, key authentication only, UsePAM no,
#     StrictModes no, and SetEnv for PATH and whatever else remote commands
#     need (sshd's built-in PATH lacks /usr/sbin, and variables such as
#     SLURM_CONF are not passed by the client);
#   - /usr/sbin/sshd -D -f CONFIG -e, started by absolute path, in the
#     background, its log in the folder; ready when its port accepts.
#
# Needs root (the user, /run/sshd, the daemon). Kills only what it started:
# a PID is signalled only while its /proc start time is the one recorded at
# start and (for the daemon) its command line still names this folder. A
# guardian shell holding a pipe from this process kills the sshd if the Tcl
# process ends without sshd::stop (killed, SIGPIPE, an uncaught error).
#
# Catalogue (namespace sshd):
#   sshd::start DIR ?-user U? ?-addresses {127.0.0.1 ...}? ?-setenv {NAME VALUE ...}?
#                   ?-path P? ?-permit-root 0|1? ?-config-extra TEXT? ?-timeout MS?
#       returns a dict: pid port addresses dir config log user key pubkey
#       hostkey ({TYPE BASE64}) hostkey_type hostkey_base64 known_hosts
#       (a known_hosts file trusting the host key on every address:port)
#   sshd::stop INFO            kill it and its session processes; idempotent
#   sshd::stop_all             stop every sshd this process started
#   sshd::ssh INFO COMMAND ?-user U? ?-address A? ?-timeout MS?
#       run a shell command line on it with the OpenSSH client (key
#       authentication, its host key checked); returns {rc stdout stderr}
#   sshd::quote WORD           WORD quoted for a POSIX shell command line
#   sshd::ensure_user NAME     create/unlock a test user (shell /bin/sh)
#   sshd::keygen PATH          an ed25519 key pair; returns {TYPE BASE64}
#   sshd::free_port            a free TCP port on 127.0.0.1
#   sshd::wait_for SCRIPT ?MS? poll SCRIPT (in the caller) until true; 1, or 0
#                              when MS (default 10000) ran out
#   sshd::read_file PATH / sshd::write_file PATH TEXT ?MODE?
#   sshd::proc_starttime PID / sshd::proc_alive PID / sshd::proc_cmdline PID
#   sshd::kill_recorded PIDLIST ?SIGNAL?  signal {pid starttime} pairs still
#                              matching; sshd::wait_gone PIDLIST MS

namespace eval sshd {
	# The sshds this process started: dict pid -> info dict.
	variable started {}
}

proc sshd::free_port {} {
	set s [socket -server {apply {{c a p} {close $c}}} -myaddr 127.0.0.1 0]
	set p [lindex [fconfigure $s -sockname] 2]
	close $s
	return $p
}

proc sshd::write_file {path text {mode ""}} {
	set f [open $path w]
	puts -nonewline $f $text
	close $f
	if {$mode ne ""} { file attributes $path -permissions $mode }
}

proc sshd::read_file {path} {
	if {[catch {open $path} f]} { return "" }
	fconfigure $f -translation binary
	set t [read $f]
	close $f
	return $t
}

# Polls SCRIPT in the caller's frame every 20 ms until it is true or MS ran out.
proc sshd::wait_for {script {ms 10000}} {
	set until [expr {[clock milliseconds] + $ms}]
	while 1 {
		if {[uplevel 1 $script]} { return 1 }
		if {[clock milliseconds] >= $until} { return 0 }
		after 20
	}
}

proc sshd::quote {word} {
	return '[string map {' '\\''} $word]'
}

proc sshd::keygen {path} {
	file delete $path $path.pub
	exec ssh-keygen -q -t ed25519 -N "" -C "" -f $path
	return [lrange [read_file $path.pub] 0 1]
}

# Touches /etc/passwd and /etc/shadow only when something is to change
# (other suites may be doing the same at that moment: a busy lock is retried).
proc sshd::ensure_user {name} {
	set pw ""
	foreach line [split [read_file /etc/passwd] \n] {
		if {[lindex [split $line :] 0] eq $name} { set pw $line }
	}
	set hash ""
	foreach line [split [read_file /etc/shadow] \n] {
		if {[lindex [split $line :] 0] eq $name} { set hash [lindex [split $line :] 1] }
	}
	if {$pw ne "" && [lindex [split $pw :] 6] eq "/bin/sh" && $hash eq "*"} return
	set cmd [expr {$pw eq "" ? [list useradd -M -d / -s /bin/sh -p * $name] : [list usermod -s /bin/sh -p * $name]}]
	set until [expr {[clock milliseconds] + 5000}]
	while {[catch {exec {*}$cmd} err]} {
		if {[clock milliseconds] > $until} { error "sshd::ensure_user $name: $err" }
		# useradd may have lost a race with another suite making the same user.
		if {[lindex $cmd 0] eq "useradd"} { set cmd [list usermod -s /bin/sh -p * $name] }
		after 100
	}
}

# ---- processes: identified by PID and start time (PIDs wrap at 32768) ----

# Field 22 of /proc/PID/stat (after the parenthesised name), or "" if gone.
proc sshd::proc_starttime {pid} {
	set s [read_file /proc/$pid/stat]
	if {$s eq "" || ![regexp {\)\s+(\S)\s+(.*)$} $s -> state rest]} { return "" }
	if {$state eq "Z" || $state eq "X"} { return "" }
	return [lindex $rest 18]
}

proc sshd::proc_alive {pid} {
	return [expr {[proc_starttime $pid] ne ""}]
}

proc sshd::proc_cmdline {pid} {
	return [string trimright [string map [list \0 " "] [read_file /proc/$pid/cmdline]]]
}

# PID's parent, or "" if gone.
proc sshd::proc_ppid {pid} {
	set s [read_file /proc/$pid/stat]
	if {![regexp {\)\s+\S\s+(\d+)} $s -> pp]} { return "" }
	return $pp
}

# Every live descendant of pid as {pid starttime} pairs.
proc sshd::descendants {pid} {
	set kids {}
	foreach d [glob -nocomplain -directory /proc -tails {[0-9]*}] {
		set pp [proc_ppid $d]
		if {$pp ne ""} { dict lappend kids $pp $d }
	}
	set out {}
	set todo [list $pid]
	while {[llength $todo]} {
		set todo [lassign $todo p]
		if {![dict exists $kids $p]} continue
		foreach c [dict get $kids $p] {
			set st [proc_starttime $c]
			if {$st ne ""} { lappend out [list $c $st]; lappend todo $c }
		}
	}
	return $out
}

# Signals each {pid starttime} whose process still has that start time.
proc sshd::kill_recorded {pids {sig TERM}} {
	foreach ps $pids {
		lassign $ps p st
		if {$st ne "" && [proc_starttime $p] eq $st} {
			catch {exec kill -$sig $p}
		}
	}
}

# Waits until none of the {pid starttime} pairs is alive; 1, or 0 on timeout.
proc sshd::wait_gone {pids ms} {
	return [wait_for {apply {{pids} {
		foreach ps $pids {
			lassign $ps p st
			if {[sshd::proc_starttime $p] eq $st} { return 0 }
		}
		return 1
	}} $pids} $ms]
}

# ---- the daemon ----

proc sshd::start {dir args} {
	variable started
	set o [dict create -user myriad-test -addresses {127.0.0.1} -setenv {} \
		-path /usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin -permit-root 0 -config-extra "" -timeout 10000]
	foreach {k v} $args {
		if {![dict exists $o $k]} { error "sshd::start: unknown option $k" }
		dict set o $k $v
	}
	foreach a [dict get $o -addresses] {
		if {![regexp {^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$} $a]} {
			error "sshd::start: $a is not a loopback address (127.0.0.0/8)"
		}
	}
	set user [dict get $o -user]
	file mkdir $dir /run/sshd
	if {$user ne "root"} { ensure_user $user }
	set hostkey [keygen $dir/host_ed25519]
	keygen $dir/client
	write_file $dir/authorized_keys [read_file $dir/client.pub] 0644
	set port [free_port]
	set env "PATH=[dict get $o -path]"
	foreach {k v} [dict get $o -setenv] {
		if {[regexp {[\s"\\]} $v]} { error "sshd::start: SetEnv value for $k has blanks or quotes" }
		append env " $k=$v"
	}
	set conf "# private sshd of a myriad test run\nPort $port\n"
	foreach a [dict get $o -addresses] { append conf "ListenAddress $a\n" }
	append conf "HostKey $dir/host_ed25519
PidFile $dir/sshd.pid
AuthorizedKeysFile $dir/authorized_keys
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PermitRootLogin [expr {[dict get $o -permit-root] || $user eq "root" ? "prohibit-password" : "no"}]
MaxStartups 100
MaxSessions 100
SetEnv $env
[dict get $o -config-extra]
"
	write_file $dir/sshd_config $conf
	set known ""
	foreach a [dict get $o -addresses] { append known "\[$a\]:$port [join $hostkey { }]\n" }
	write_file $dir/known_hosts $known
	set pid [exec /usr/sbin/sshd -D -f $dir/sshd_config -e < /dev/null >& $dir/sshd.log &]
	set st [proc_starttime $pid]
	# A guardian kills it if this process ends without sshd::stop.
	set guard [open |[list /bin/sh -c {
trap '' INT HUP TERM PIPE
IFS= read -r line
[ "$line" = done ] && exit 0
grep -qF "$1" "/proc/$2/cmdline" 2>/dev/null && kill "$2"
} sshd-guardian $dir/sshd_config $pid > /dev/null 2> /dev/null] w]
	set info [dict create pid $pid starttime $st guardian $guard port $port addresses [dict get $o -addresses] \
		dir $dir config $dir/sshd_config log $dir/sshd.log user $user \
		key $dir/client pubkey $dir/client.pub hostkey $hostkey \
		hostkey_type [lindex $hostkey 0] hostkey_base64 [lindex $hostkey 1] \
		known_hosts $dir/known_hosts]
	dict set started $pid $info
	set addr [lindex [dict get $o -addresses] 0]
	if {![wait_for {expr {![sshd::proc_alive $pid] || ![catch {close [socket $addr $port]}]}} [dict get $o -timeout]]
	    || ![proc_alive $pid]} {
		set log [read_file $dir/sshd.log]
		stop $info
		error "sshd did not start on $addr:$port: $log"
	}
	return $info
}

# Kills the sshd of INFO (if it is still the one started) and its session
# processes; waits until they are gone. Safe to call twice.
proc sshd::stop {info} {
	variable started
	set pid [dict get $info pid]
	if {![dict exists $started $pid]} return
	dict unset started $pid
	set st [dict get $info starttime]
	if {[proc_starttime $pid] eq $st && [string first [dict get $info dir] [proc_cmdline $pid]] >= 0} {
		set all [concat [list [list $pid $st]] [descendants $pid]]
		kill_recorded $all TERM
		if {![wait_gone $all 3000]} {
			kill_recorded $all KILL
			wait_gone $all 3000
		}
	}
	catch {puts [dict get $info guardian] done}
	catch {close [dict get $info guardian]}
}

proc sshd::stop_all {} {
	variable started
	dict for {pid info} $started { stop $info }
}

# Runs COMMAND (one shell command line, quoted by the caller, e.g. with
# sshd::quote) on the sshd of INFO; returns {rc stdout stderr}. rc 255 is
# ssh's own failure.
proc sshd::ssh {info command args} {
	set o [dict create -user [dict get $info user] -address [lindex [dict get $info addresses] 0] -timeout 30000]
	foreach {k v} $args {
		if {![dict exists $o $k]} { error "sshd::ssh: unknown option $k" }
		dict set o $k $v
	}
	set errf [file join [dict get $info dir] ssh-stderr.[pid].[clock microseconds]]
	set cmd [list ssh -F none -i [dict get $info key] -p [dict get $info port] \
		-o BatchMode=yes -o StrictHostKeyChecking=yes -o IdentitiesOnly=yes \
		-o UserKnownHostsFile=[dict get $info known_hosts] -o LogLevel=ERROR \
		-o ConnectTimeout=[expr {max(1, [dict get $o -timeout] / 1000)}] \
		[dict get $o -user]@[dict get $o -address] $command]
	set rc 0
	if {[catch {exec -ignorestderr {*}$cmd < /dev/null 2> $errf} out opts]} {
		set code [dict get $opts -errorcode]
		if {[lindex $code 0] eq "CHILDSTATUS"} {
			set rc [lindex $code 2]
			regsub {\n?child process exited abnormally$} $out {} out
		} else {
			set rc -1
		}
	}
	set err [read_file $errf]
	file delete $errf
	return [list $rc $out $err]
}
