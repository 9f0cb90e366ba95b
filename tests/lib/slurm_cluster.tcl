# slurm_cluster.tcl - a private, real Slurm 22.05 cluster on loopback for
# myriad's Tcl test suites, its head node reached through a private sshd.
#
# Everything lives in one folder (default <tester tmpdir>/slurm): its own
# munged (key from /dev/urandom, mode 0400, own socket), slurmctld, one slurmd
# per node (`slurmd -D -N gpu0001`, each with its own Port=), GPUs as
# character devices (mknod c 195 N; gres.conf AutoDetect=off, File=...), and
# an sshd (tests/lib/sshd.tcl) as the head node with SetEnv SLURM_CONF=... so
# remote scontrol/sinfo/squeue find the cluster. Only 127.0.0.1; only free
# ports (checked by binding; see free_port_range); never a fixed one.
# Daemons are started by absolute path (Slurm decides what it is from
# argv[0]). Needs root. Source tests/tester.tcl first (it uses `tmpdir`).
#
# Catalogue (namespace slurm):
#   slurm::start ?-nodes 8? ?-prefix gpu? ?-gpus 8? ?-cpus 64? ?-memory 1000000?
#                ?-partition gpu? ?-user myriad-slurm? ?-dir DIR? ?-timeout MS?
#                ?-debug info? ?-conf-extra TEXT?
#       returns a dict: dir conf gres_conf nodes (list of names) nodeset
#       (gpu[0001-0008]) partition gpus slurm_user munge_socket jobs_dir
#       ctld_port slurmd_ports ({first last}) pids (name -> {pid starttime};
#       names munged, slurmctld, slurmd:gpu0001...) sshd (sshd::start's dict)
#       ssh_host (127.0.0.1) ssh_port ssh_user ssh_key (client private key)
#       ssh_hostkey ({TYPE BASE64}) ssh_hostkey_type ssh_hostkey_base64
#       ssh_known_hosts guardian (a pipe channel, see below) start_ms.
#       Returns once every node is "idle" (not "idle*"); an error (after
#       cleaning up) when a daemon dies or -timeout (default 30000 ms) runs
#       out. One cluster at a time per process.
#   slurm::stop            scancel every job, kill the daemons this run started
#                          (only while /proc/PID still has the recorded start
#                          time and a command line naming the daemon and the
#                          folder), then stray processes of the run (see
#                          strays), munged, the sshd; remove the folder.
#                          Idempotent; returns the ms it took (0: nothing to do)
#   slurm::running         1 while a cluster runs
#   slurm::get ?KEY?       the start dict, or one key of it
#   slurm::cmd ARGS...     run a client command with SLURM_CONF: {rc stdout stderr}
#   slurm::cmd_ok ARGS...  the same, an error unless rc 0; returns stdout
#   slurm::ssh CMDLINE ?-user U?  run a shell command line on the head node
#                          as the head-node user: {rc stdout stderr}
#   slurm::quote WORD      WORD quoted for that shell command line
#   slurm::node_state NAME {STATE REASON} from `sinfo -h -N -n NAME -o %t|%E`
#                          (idle, idle*, drain, drng, mix, alloc...; "none")
#   slurm::node_states     dict name -> compact state of every node
#   slurm::submit ?-nodes 1? ?-gpus 8? ?-name myriad-test? ?-requeue 1? ?-args {}?
#                          sbatch (as root) the test batch script; returns the id
#   slurm::job_state ID    PENDING, RUNNING, COMPLETING, COMPLETED, CANCELLED...
#                          or "" once forgotten (squeue -h -t all -j ID -o '%T %N')
#   slurm::job_nodes ID    its node list ("" while pending)
#   slurm::jobs            ids of the jobs squeue lists (pending/running/completing)
#   slurm::job_starts ID   {RESTART_COUNT NODE} per start marker, in order
#   slurm::ckpt_file ID ?RESTART?  the marker SIGUSR1 makes the job write
#   slurm::wait_for SCRIPT ?MS? ?EVERY?  poll SCRIPT until true: 1, or 0 after
#                          MS (default 10000); every 50 ms by default
#   slurm::config_for_myriad PATH ?-host head01? ?-log FILE? ?-extra TEXT?
#                          write a myriad configuration (ssh, hostkey, service
#                          slurm lines) reaching the head node; returns PATH
#   slurm::strays DIR      {pid starttime} of the run's unrecorded processes
#
# The batch script (slurm::submit) writes <jobs_dir>/start.ID.RESTART.NODE at
# each start (RESTART is SLURM_RESTART_COUNT, 0 the first time), appends to
# <jobs_dir>/ckpt.ID.RESTART on SIGUSR1 and keeps running (it waits on a
# background `sleep` with `wait`, which a trapped signal interrupts: the
# marker appears ~50 ms after a local `scancel --full --signal=USR1`,
# 0.35-0.45 s when that runs over SSH, login included), ends on SIGTERM. Submitted with --requeue (or
# --no-requeue) and --open-mode=append, output in <jobs_dir>/out.ID.
#
# Leftovers: slurmstepd is reparented to init and jobs are real processes,
# so stop also kills every process whose environment holds
# MYRIAD_SLURM_RUN=<dir> (given to the daemons, inherited by slurmstepd; given
# to jobs by slurm::submit and to head-node logins by SetEnv) or whose
# working folder is inside <dir>, and their descendants. If the Tcl process
# dies without stop (killed, SIGPIPE, an error outside any test), a guardian
# shell holding a pipe from it sees end-of-file and does the same (checked:
# kill -9 of tclsh with a job running leaves nothing, folder removed, ~3 s).
# The test users (myriad-slurm; sshd.tcl's) stay in /etc/passwd for the next run.
#
# WHO MAY ACT. Without slurmdbd only root and the SlurmUser are Slurm admins
# (drain/resume, requeue and scancel of other users' jobs). This cluster runs
# slurmctld as root with SlurmUser=myriad-slurm (a test user, shell /bin/sh,
# made if missing; slurmctld drops to it; its StateSaveLocation, pid and log
# in <dir>/ctld, owned by it); slurmd stays root (SlurmdUser=root); the head
# node's sshd logs in as myriad-slurm. Verified: as myriad-slurm over SSH,
# scontrol update NodeName=... State=DRAIN/RESUME, scontrol requeue,
# scontrol update JobId=... ExcNodeList=... StartTime=now and
# scancel --full --signal=USR1 all work on root's jobs; sinfo --json and
# squeue --json work. No root login is needed (the sshd has
# PermitRootLogin no). `-user root` is the fallback, also checked: SlurmUser
# root, the sshd logs in as root (PermitRootLogin prohibit-password). Slurm records the acting user: sinfo --json
# "reason_set_by_user": "myriad-slurm", and scontrol show node prints
# "Reason=smoke [myriad-slurm@2026-12-01T15:54:57]". A user that is neither
# root nor the SlurmUser gets (exit status, then stderr, verbatim):
#   scontrol update NodeName=gpu0004 State=DRAIN Reason=x
#       1  slurm_update error: Invalid user id
#   scontrol requeue 1                 1  Access/permission denied for job 1
#   scancel --full --signal=USR1 1     210  scancel: error: Kill job error on job id 1: Access/permission denied
# The slurm.conf keys: see start_parts. SchedulerParameters=sched_interval=2,
# bf_interval=2: a job starts ~1 s after sbatch (by the backfill pass);
# adding batch_sched_delay=0 did not make it sooner.
#
# WHAT SLURM 22.05.8 ANSWERS (observed on this cluster, run over SSH as the
# SlurmUser; "exit N" then stderr verbatim; stdout was empty in every case):
#
# Nodes
#   drain without Reason: scontrol update NodeName=gpu0003 State=DRAIN
#       exit 1  You must specify a reason when DOWNING or DRAINING a node. Request denied
#     (the same for Reason='' ; note: no "slurm_update error:" prefix here)
#   RESUME of a node that is not drained (idle): ... NodeName=gpu0003 State=RESUME
#       exit 1  slurm_update error: Invalid node state specified
#     slurmctld.log: "Invalid node state transition requested for node
#     gpu0003 from=IDLE to=RESUME"
#   RESUME of a nodeset where only one node is drained:
#     scontrol update NodeName=gpu[0003-0005] State=RESUME  (gpu0004 drained)
#       exit 1  slurm_update error: Invalid node state specified
#     Slurm DOES act on the others: gpu0004 is resumed (idle* then idle
#     within ~1 s) whatever its place in the set (first, middle or last were
#     tried); each not-drained node is refused on its own; one message for the
#     whole set that names no node. The exit status cannot tell what
#     happened: read the states back.
#   RESUME of a draining node (drng, job running): exit 0, node back to
#     alloc (shown "alloc*" for a moment). Drain of a node already drained or
#     draining: exit 0, the reason is replaced. RESUME clears the reason.
#   drain of an unknown node: NodeName=nosuch0001 (or gpu0099, past the end)
#       exit 1  slurm_update error: Invalid node name specified
#     a list mixing known and unknown (gpu0003,nosuch0001 or
#     nosuch0001,gpu0006): the same exit 1 and message, but the known node
#     IS drained with the reason. RESUME of an unknown node: the same message.
#   a drain by a busy node: sinfo shows drng while its job runs, drain after.
#
# Reasons (sent as one single-quoted shell word over SSH; all exit 0, no output)
#   Reason='it'\''s broken'       stored verbatim: it's broken
#   Reason='$(touch FILE)'        stored verbatim: $(touch FILE); nothing ran
#                                 (FILE not created), neither on the head node
#                                 nor later in sinfo/scontrol output
#   Reason='GPU 3 überhitzt — 95°C 温度'  stored verbatim as UTF-8 bytes:
#       sinfo -o %E prints the same bytes; scontrol show node prints
#       "Reason=GPU 3 überhitzt — 95°C 温度 [myriad-slurm@...]"; sinfo --json
#       has "reason": "GPU 3 überhitzt — 95°C 温度" (raw UTF-8, not \u
#       escapes; "/" is escaped as "\/": "$(touch \/tmp\/x)")
#   Reason='line1<newline>line2'  stored with the newline: sinfo %E prints two
#       lines; sinfo --json "line1\nline2"; tab likewise ("tab\tx")
#   double quotes are NOT verbatim: scontrol drops one leading and one trailing
#       '"' of the value: '"all quoted"' -> all quoted; 'say "hi"' -> say "hi;
#       'a"b' and 'a"b"c' stay as they are
#   'semi;colon', 'x=y z' verbatim; 1000 characters stored whole
#   sinfo --json per node: "state": "idle" with "state_flags": ["DRAIN"],
#       "reason", "reason_set_by_user", "reason_changed_at" (epoch), "gres":
#       "gpu:8". scontrol has no JSON in 22.05:
#       scontrol --json show nodes -> exit 1
#       scontrol: unrecognized option '--json'
#       Try "scontrol --help" for more information
#
# Jobs
#   scontrol requeue 99999 (unknown)      exit 1  Invalid job id specified for job 99999
#   scontrol requeue abc                  exit 1  Invalid job id specified for job abc
#   scontrol requeue 4,99999              exit 1  Invalid job id specified for job 99999
#                                         (job 4 IS requeued)
#   scontrol requeue of a finished job still known to slurmctld (COMPLETED,
#     FAILED or CANCELLED, within MinJobAge, default 300 s): exit 0, no
#     output, and the job goes back to PENDING (Reason=BeginTime) and RUNS
#     AGAIN. Once purged (checked with MinJobAge=2): exit 1
#     Invalid job id specified for job 1
#   scontrol requeue of a PENDING job (requeued, or never started)
#                                         exit 1  Job is pending execution for job 3
#     (so a second requeue right after a first one fails this way)
#   scontrol requeue of a RUNNING job submitted with --no-requeue
#                                         exit 1  Requested operation is presently disabled for job 4
#   scontrol update JobId=1 ExcNodeList=gpu0003 on a RUNNING job
#                                         exit 1  Job is no longer pending execution for job 1
#     (exit 0 and nothing done when the value equals the current one)
#     Right after `scontrol requeue` the update already succeeds (slurmctld
#     has the job PENDING, squeue may still print COMPLETING for ~50 ms);
#     the job then starts elsewhere ~0.5 s later with StartTime=now
#     (without it, Reason=BeginTime: it restarted after 11.6 s with
#     cred_expire=10, and on the same node when nothing was excluded).
#   scontrol update JobId=99999 ExcNodeList=gpu0001
#                                         exit 1  Invalid job id specified for job 99999
#   ExcNodeList=nosuch0001 on a pending job  exit 1  Invalid node name specified for job 3
#   update of a CANCELLED job             exit 1  Job has already finished for job 1
#   scancel --full --signal=USR1 99999 (unknown)
#                                         exit 1  scancel: error: Kill job error on job id 99999: Invalid job id specified
#     the same for a job that has ended (CANCELLED) and for --signal=USR1
#     without --full or with --batch.
#   scancel --full --signal=USR1 of a PENDING job
#                                         exit 228  scancel: error: Kill job error on job id 3: Job can not be altered now, try again later
#   scancel 99999 (unknown, no --signal)  exit 0, prints nothing (with -v:
#     "scancel: Terminating job 99999" and
#     "scancel: error: Kill job error on job id 99999: Invalid job id specified",
#     still exit 0); the same for a job that has ended.
#   scancel --signal=USR1 JOB without --full/--batch on a running batch job:
#     exit 0, but the batch script gets nothing (only job steps would): no
#     checkpoint marker within 2 s.
#   squeue -h -j ID of a finished job prints nothing, exit 0 (add -t all to
#     see COMPLETED/CANCELLED/FAILED); of an unknown id:
#     exit 1  slurm_load_jobs error: Invalid job id specified
#   sbatch --export=ALL,VAR=x (anything but plain ALL) makes slurmd load the
#     user's login environment first ("_get_user_env: get env for user root
#     here" in the slurmd log): +1.3 s per job start. slurm::submit does not.

source [file join [file dirname [info script]] sshd.tcl]

namespace eval slurm {
	# The running cluster (the dict slurm::start returned), or {} when none.
	variable run {}
	# SLURM_CONF as it was before start (restored by stop); "-" when unset.
	variable saved_conf -
}

# ---- small helpers ----

# Runs a Slurm client command with this cluster's SLURM_CONF; {rc stdout stderr}.
proc slurm::cmd {args} {
	variable run
	set errf [file join [dict get $run dir] cmd-stderr.[pid].[clock microseconds]]
	set rc 0
	set saved [expr {[info exists ::env(SLURM_CONF)] ? $::env(SLURM_CONF) : "-"}]
	set ::env(SLURM_CONF) [dict get $run conf]
	if {[catch {exec -ignorestderr {*}$args < /dev/null 2> $errf} out opts]} {
		set code [dict get $opts -errorcode]
		if {[lindex $code 0] eq "CHILDSTATUS"} {
			set rc [lindex $code 2]
			regsub {\n?child process exited abnormally$} $out {} out
		} else {
			set rc -1
		}
	}
	if {$saved eq "-"} { unset ::env(SLURM_CONF) } else { set ::env(SLURM_CONF) $saved }
	set err [sshd::read_file $errf]
	file delete $errf
	return [list $rc $out $err]
}

# The same, but an error unless it exits 0; returns stdout.
proc slurm::cmd_ok {args} {
	lassign [cmd {*}$args] rc out err
	if {$rc != 0} { error "`$args` exited $rc: $err" }
	return $out
}

# Runs one shell command line on the head node over SSH as the head-node
# user (or -user U, e.g. root); {rc stdout stderr}. Quote words with slurm::quote.
proc slurm::ssh {command args} {
	variable run
	return [sshd::ssh [dict get $run sshd] $command {*}$args]
}

proc slurm::quote {word} { return [sshd::quote $word] }

# Polls SCRIPT (in the caller's frame) every EVERY ms until true; 1, or 0
# once MS ran out. (Each Slurm client command costs ~10-30 ms of CPU on this
# 2-core kind of machine: poll them at 50 ms or more.)
proc slurm::wait_for {script {ms 10000} {every 50}} {
	set until [expr {[clock milliseconds] + $ms}]
	while 1 {
		if {[uplevel 1 $script]} { return 1 }
		if {[clock milliseconds] >= $until} { return 0 }
		after $every
	}
}

# The value of KEY in the running cluster's dict (the whole dict without KEY).
proc slurm::get {{key ""}} {
	variable run
	if {$run eq ""} { error "slurm: no cluster running" }
	if {$key eq ""} { return $run }
	return [dict get $run $key]
}

proc slurm::running {} {
	variable run
	return [expr {$run ne ""}]
}

# N contiguous free ports on 127.0.0.1; returns the first. Each is checked
# free by binding it. Not from binding port 0: that gives a port in the
# kernel's ephemeral range (ip_local_port_range), where the cluster's own
# outgoing connections (one per RPC) can take a port of the range before its
# slurmd binds it (seen with 256 nodes: "error: Unable to bind listen port
# (42104): Address already in use"). So the range is drawn at random below
# the ephemeral range (or above it when that has no room), never fixed.
proc slurm::free_port_range {n} {
	set lo 32768
	set hi 60999
	catch {lassign [sshd::read_file /proc/sys/net/ipv4/ip_local_port_range] lo hi}
	set windows {}
	if {$lo - $n - 10000 > 0} { lappend windows [list 10000 [expr {$lo - $n}]] }
	if {65535 - $n - $hi > 0} { lappend windows [list [expr {$hi + 1}] [expr {65536 - $n}]] }
	if {![llength $windows]} { error "slurm: no room for $n ports outside the ephemeral range $lo-$hi" }
	for {set try 0} {$try < 200} {incr try} {
		lassign [lindex $windows [expr {int(rand() * [llength $windows])}]] a b
		set first [expr {$a + int(rand() * ($b - $a))}]
		set held {}
		set ok 1
		for {set p $first} {$p < $first + $n} {incr p} {
			if {[catch {socket -server {apply {{c a p} {close $c}}} -myaddr 127.0.0.1 $p} s]} {
				set ok 0
				break
			}
			lappend held $s
		}
		foreach s $held { close $s }
		if {$ok} { return $first }
	}
	error "slurm: no $n contiguous free ports on 127.0.0.1"
}

# "gpu[0001-0008]" for names gpu0001..gpu0008 (plain name when one).
proc slurm::nodeset {prefix n} {
	if {$n == 1} { return ${prefix}0001 }
	return "$prefix\[0001-[format %04d $n]\]"
}

proc slurm::tail {path {lines 30}} {
	return [join [lrange [split [string trimright [sshd::read_file $path]] \n] end-[expr {$lines - 1}] end] \n]
}

# ---- start ----

# slurm::start ?-nodes 8? ?-prefix gpu? ?-gpus 8? ?-cpus 64? ?-partition gpu?
#              ?-user myriad-slurm? ?-dir DIR? ?-timeout MS?
proc slurm::start {args} {
	variable run
	variable saved_conf
	if {$run ne ""} { error "slurm::start: a cluster is already running (slurm::stop first)" }
	set o [dict create -nodes 8 -prefix gpu -gpus 8 -cpus 64 -memory 1000000 -partition gpu \
		-user myriad-slurm -dir "" -timeout 30000 -debug info -conf-extra ""]
	foreach {k v} $args {
		if {![dict exists $o $k]} { error "slurm::start: unknown option $k (one of [dict keys $o])" }
		dict set o $k $v
	}
	set t0 [clock milliseconds]
	set n [dict get $o -nodes]
	set gpus [dict get $o -gpus]
	set user [dict get $o -user]
	set prefix [dict get $o -prefix]
	if {![string is integer -strict $n] || $n < 1 || $n > 9999} { error "slurm::start: -nodes wants 1..9999" }
	if {![string is integer -strict $gpus] || $gpus < 0 || $gpus > 64} { error "slurm::start: -gpus wants 0..64" }
	if {![regexp {^[a-z][a-z0-9-]*$} $prefix]} { error "slurm::start: -prefix wants a plain name" }
	set dir [dict get $o -dir]
	if {$dir eq ""} { set dir [file join [tmpdir] slurm] }
	set dir [file normalize $dir]
	if {[file exists $dir] && [llength [glob -nocomplain -directory $dir *]]} {
		error "slurm::start: $dir is not empty"
	}
	set names {}
	for {set i 1} {$i <= $n} {incr i} { lappend names $prefix[format %04d $i] }
	set nodeset [nodeset $prefix $n]

	# slurmctld (as the SlurmUser) and the head-node logins read slurm.conf:
	# every folder above the run's folder must let others through.
	for {set a [file dirname $dir]} {$a ne "/"} {set a [file dirname $a]} {
		if {[file exists $a] && !([scan [file attributes $a -permissions] %o] & 1)} {
			error "slurm::start: $a is not searchable by other users (mode [file attributes $a -permissions]); use -dir or TMPDIR elsewhere"
		}
	}
	set run [dict create dir $dir conf $dir/slurm.conf gres_conf $dir/gres.conf \
		nodes $names nodeset $nodeset partition [dict get $o -partition] gpus $gpus \
		slurm_user $user munge_socket $dir/munge/munge.socket.2 jobs_dir $dir/jobs \
		pids {} sshd {}]
	set saved_conf [expr {[info exists ::env(SLURM_CONF)] ? $::env(SLURM_CONF) : "-"}]
	if {[catch {start_parts $o $t0} err opts]} {
		set msg "slurm::start failed: $err"
		catch {stop}
		return -code error -errorinfo [dict get $opts -errorinfo] $msg
	}
	dict set run start_ms [expr {[clock milliseconds] - $t0}]
	return $run
}

# Records a daemon we started: {pid starttime name}.
# Each PID also goes to <dir>/pids for the guardian.
proc slurm::record {name pid {track 1}} {
	variable run
	set st [sshd::proc_starttime $pid]
	if {$track} { dict set run pids $name [list $pid $st] }
	set f [open [dict get $run dir]/pids a]
	puts $f "$name $pid $st"
	close $f
}

# The guardian: a shell that reads from a pipe this process holds. When the
# Tcl process ends without slurm::stop (killed, SIGPIPE, an uncaught error
# before the suite's finally), the pipe closes and the guardian does what stop
# would have done, roughly: scancel, kill the recorded daemons (while their
# command line still names the run's folder), kill processes carrying
# MYRIAD_SLURM_RUN=<dir>, remove the folder. slurm::stop tells it "done".
proc slurm::guardian_script {} {
	return {
trap '' INT HUP TERM PIPE
dir=$1
IFS= read -r line
[ "$line" = done ] && exit 0
export SLURM_CONF="$dir/slurm.conf"
ids=$(squeue -h -o %A 2>/dev/null)
if [ -n "$ids" ]; then
	scancel $ids 2>/dev/null
	i=0
	while [ $i -lt 50 ] && [ -n "$(squeue -h -o %A 2>/dev/null)" ]; do sleep 0.1; i=$((i + 1)); done
fi
ours() { grep -qF "$dir" "/proc/$1/cmdline" 2>/dev/null; }
for sig in TERM KILL; do
	left=
	while read -r name pid st; do
		if ours "$pid"; then kill -$sig "$pid" 2>/dev/null; left="$left $pid"; fi
	done < "$dir/pids"
	i=0
	while [ $i -lt 50 ]; do
		alive=
		for p in $left; do ours "$p" && alive=1; done
		[ -z "$alive" ] && break
		sleep 0.1; i=$((i + 1))
	done
done
for pass in 1 2 3; do
	for f in $(grep -lzxF "MYRIAD_SLURM_RUN=$dir" /proc/[0-9]*/environ 2>/dev/null); do
		p=${f#/proc/}; p=${p%/environ}
		[ "$p" != $$ ] && kill -KILL "$p" 2>/dev/null
	done
done
rm -rf "$dir"
case "$(basename "$(dirname "$dir")")" in myriad-test-*) rmdir "$(dirname "$dir")" 2>/dev/null ;; esac
exit 0
}
}

proc slurm::start_parts {o t0} {
	variable run
	set dir [dict get $run dir]
	set n [llength [dict get $run nodes]]
	set gpus [dict get $run gpus]
	set user [dict get $run slurm_user]
	set deadline [expr {$t0 + [dict get $o -timeout]}]

	file mkdir $dir $dir/munge $dir/ctld/state $dir/run $dir/log $dir/dev $dir/jobs $dir/spool
	file attributes $dir -permissions 0755
	foreach nm [dict get $run nodes] { file mkdir $dir/spool/$nm }
	# jobs/ is where batch jobs write their markers: any user may write there.
	file attributes $dir/jobs -permissions 01777
	if {$user ne "root"} {
		sshd::ensure_user $user
		# slurmctld runs as SlurmUser: its state, pid and log live in ctld/.
		exec chown -R $user $dir/ctld
	}

	sshd::write_file $dir/pids ""
	dict set run guardian [open |[list /bin/sh -c [guardian_script] slurm-guardian $dir \
		> /dev/null 2> /dev/null] w]

	# munge: its own key, socket, pid, log and seed.
	set f [open /dev/urandom rb]
	set key [read $f 1024]
	close $f
	set kf [open $dir/munge/munge.key {WRONLY CREAT TRUNC BINARY} 0400]
	puts -nonewline $kf $key
	close $kf
	set sock [dict get $run munge_socket]
	set pid [exec /usr/sbin/munged -F --socket=$sock --key-file=$dir/munge/munge.key \
		--pid-file=$dir/munge/munged.pid --log-file=$dir/munge/munged.log \
		--seed-file=$dir/munge/munged.seed < /dev/null >& $dir/munge/munged.out &]
	record munged $pid
	if {![wait_for {expr {[file exists $sock] || ![sshd::proc_alive $pid]}} [expr {$deadline - [clock milliseconds]}]]
	    || ![sshd::proc_alive $pid]} {
		error "munged did not start: [tail $dir/munge/munged.out]"
	}

	# Ports: slurmctld's, then one per slurmd (contiguous, Port=[first-last]).
	set ctld_port [free_port_range [expr {$n + 1}]]
	set p1 [expr {$ctld_port + 1}]
	set pn [expr {$p1 + $n - 1}]
	dict set run ctld_port $ctld_port
	dict set run slurmd_ports [list $p1 $pn]

	# GPUs: character devices (File= is mandatory; plain files are refused).
	set gres ""
	set grestext "# gres.conf of the private test cluster\nAutoDetect=off\n"
	if {$gpus > 0} {
		for {set g 0} {$g < $gpus} {incr g} { exec mknod $dir/dev/nvidia$g c 195 $g }
		set files [expr {$gpus == 1 ? "$dir/dev/nvidia0" : "$dir/dev/nvidia\[0-[expr {$gpus - 1}]\]"}]
		append grestext "NodeName=[dict get $run nodeset] Name=gpu File=$files\n"
		set gres " Gres=gpu:$gpus"
	}
	sshd::write_file $dir/gres.conf $grestext 0644
	sshd::write_file $dir/plugstack.conf "# empty: no SPANK plugins\n" 0644
	set ports [expr {$n == 1 ? $p1 : "\[$p1-$pn\]"}]
	sshd::write_file $dir/slurm.conf "# slurm.conf of a private test cluster on loopback (myriad tests/lib/slurm_cluster.tcl)
ClusterName=myriadtest
SlurmctldHost=localhost
SlurmctldPort=$ctld_port
SlurmdPort=$p1
CommunicationParameters=NoInAddrAny
SlurmUser=$user
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock,cred_expire=10
StateSaveLocation=$dir/ctld/state
SlurmctldPidFile=$dir/ctld/slurmctld.pid
SlurmctldLogFile=$dir/ctld/slurmctld.log
SlurmdSpoolDir=$dir/spool/%n
SlurmdPidFile=$dir/run/slurmd.%n.pid
SlurmdLogFile=$dir/log/slurmd.%n.log
SlurmctldDebug=[dict get $o -debug]
SlurmdDebug=[dict get $o -debug]
PlugStackConfig=$dir/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=2,bf_interval=2
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=1024
GresTypes=gpu
SlurmdParameters=config_overrides
ReturnToService=2
JobRequeue=1
KillWait=2
RebootProgram=/bin/true
MailProg=/bin/true
NodeName=[dict get $run nodeset] NodeHostname=localhost NodeAddr=127.0.0.1 Port=$ports CPUs=[dict get $o -cpus] RealMemory=[dict get $o -memory]$gres State=UNKNOWN
PartitionName=[dict get $run partition] Nodes=ALL Default=YES MaxTime=INFINITE State=UP
[dict get $o -conf-extra]
" 0644

	# The daemons, by absolute path (Slurm tells what it is from argv[0]).
	# They and everything they start (slurmstepd, jobs) carry
	# MYRIAD_SLURM_RUN=<dir> in their environment: stop finds strays by it.
	set ::env(SLURM_CONF) $dir/slurm.conf
	set ::env(MYRIAD_SLURM_RUN) $dir
	# Their working folder is the run's folder too (core files stay in it).
	set here [pwd]
	cd $dir
	try {
		set pid [exec /usr/sbin/slurmctld -D -f $dir/slurm.conf < /dev/null >& $dir/log/slurmctld.out &]
		record slurmctld $pid
		foreach nm [dict get $run nodes] {
			set pid [exec /usr/sbin/slurmd -D -N $nm -f $dir/slurm.conf < /dev/null >& $dir/log/slurmd.$nm.out &]
			record slurmd:$nm $pid
		}
	} finally {
		unset ::env(MYRIAD_SLURM_RUN)
		cd $here
	}

	# The head node: a private sshd whose sessions find this cluster.
	dict set run sshd [sshd::start $dir/sshd -user $user \
		-setenv [list SLURM_CONF $dir/slurm.conf MYRIAD_SLURM_RUN $dir]]
	record sshd [dict get $run sshd pid] 0
	foreach k {port user key hostkey hostkey_type hostkey_base64 known_hosts} {
		dict set run ssh_$k [dict get $run sshd $k]
	}
	dict set run ssh_host 127.0.0.1

	# Ready: every node "idle" (not "idle*", which is not yet responding).
	set last ""
	if {![wait_for {all_idle last} [expr {$deadline - [clock milliseconds]}] 100]} {
		error "nodes not idle in time: $last\nslurmctld.log:\n[tail $dir/ctld/slurmctld.log]"
	}
}

# 1 when every node of the cluster is idle; else 0 (and an error if a daemon died).
proc slurm::all_idle {lastvar} {
	variable run
	upvar 1 $lastvar last
	dict for {name ps} [dict get $run pids] {
		if {[sshd::proc_starttime [lindex $ps 0]] ne [lindex $ps 1]} {
			set logs [expr {$name eq "slurmctld" ? {log/slurmctld.out ctld/slurmctld.log}
				: [string match slurmd:* $name]
				? [list log/slurmd.[string range $name 7 end].out log/slurmd.[string range $name 7 end].log]
				: {munge/munged.out}}]
			set text ""
			foreach l $logs { append text [tail [dict get $run dir]/$l 15] \n }
			error "$name exited early:\n[string trim $text]"
		}
	}
	lassign [cmd sinfo -h -N -o {%N %t}] rc out err
	if {$rc != 0} { set last $err; return 0 }
	set last $out
	set idle 0
	foreach line [split $out \n] {
		if {[lindex $line 1] eq "idle"} { incr idle }
	}
	return [expr {$idle == [llength [dict get $run nodes]]}]
}

# ---- state queries ----

# {STATE REASON} of a node from `sinfo -h -n NAME -o '%t|%E'` (STATE compact:
# idle, idle*, drng, drain, mix, alloc, down*...; REASON "none" when none).
proc slurm::node_state {name} {
	set out [cmd_ok sinfo -h -N -n $name -o {%t|%E}]
	set i [string first | $out]
	return [list [string range $out 0 [expr {$i - 1}]] [string range $out [expr {$i + 1}] end]]
}

# Every node's compact state: a dict name -> state.
proc slurm::node_states {} {
	set d {}
	foreach line [split [cmd_ok sinfo -h -N -o {%N %t}] \n] {
		if {$line ne ""} { dict set d [lindex $line 0] [lindex $line 1] }
	}
	return $d
}

# A job's state (PENDING, RUNNING, COMPLETING, COMPLETED, CANCELLED, FAILED,
# ...) or "" once Slurm forgot it. `-t all`: without it squeue -j prints
# nothing (exit 0) for a finished job.
proc slurm::job_state {id} {
	lassign [cmd squeue -h -t all -j $id -o {%T %N}] rc out err
	if {$rc != 0} { return "" }
	return [lindex $out 0]
}

# The nodes of a job (a Slurm node list, "" while pending or once forgotten).
proc slurm::job_nodes {id} {
	lassign [cmd squeue -h -t all -j $id -o {%T %N}] rc out err
	if {$rc != 0} { return "" }
	return [lindex $out 1]
}

# Every job id Slurm knows about (any user, any state squeue lists).
proc slurm::jobs {} {
	lassign [cmd squeue -h -o %A] rc out err
	if {$rc != 0} { return {} }
	return [lsort -integer -unique [split [string trim $out]]]
}

# ---- batch jobs ----

# The batch script: marks each start, writes a checkpoint marker on SIGUSR1
# (within ~1 s: the shell sits in `wait`, which a trapped signal interrupts),
# ends on SIGTERM (scancel, requeue) taking its sleep with it.
proc slurm::job_script {dir} {
	return [string map [list @DIR@ [quote $dir]] {#!/bin/sh
# batch job of a myriad test cluster (tests/lib/slurm_cluster.tcl)
d=@DIR@
r=${SLURM_RESTART_COUNT:-0}
n=${SLURMD_NODENAME:-$(hostname)}
p=
trap 'echo "$n $(date +%s.%N)" >> "$d/ckpt.$SLURM_JOB_ID.$r"' USR1
trap '[ -n "$p" ] && kill $p 2>/dev/null; exit 143' TERM
echo "$n $(date +%s.%N) CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-}" > "$d/start.$SLURM_JOB_ID.$r.$n"
while :; do
	sleep 3600 & p=$!
	wait $p
	kill $p 2>/dev/null
done
}]
}

# slurm::submit ?-nodes 1? ?-gpus 8? ?-name NAME? ?-requeue 1? ?-args {more sbatch args}?
# Submits the batch script (as root); returns the job id.
proc slurm::submit {args} {
	variable run
	set o [dict create -nodes 1 -gpus [dict get $run gpus] -name myriad-test -requeue 1 -args {}]
	foreach {k v} $args {
		if {![dict exists $o $k]} { error "slurm::submit: unknown option $k (one of [dict keys $o])" }
		dict set o $k $v
	}
	set d [dict get $run jobs_dir]
	if {![file exists $d/job.sh]} { sshd::write_file $d/job.sh [job_script $d] 0755 }
	# The job gets MYRIAD_SLURM_RUN (stop finds strays by it) through the
	# default --export=ALL: an explicit --export=ALL,VAR=... makes slurmd load
	# the user's login environment first (`_get_user_env`), 1.3 s a start.
	set sb [list sbatch --parsable -N [dict get $o -nodes] -J [dict get $o -name] \
		-p [dict get $run partition] -D $d -o $d/out.%j --open-mode=append]
	lappend sb [expr {[dict get $o -requeue] ? "--requeue" : "--no-requeue"}]
	if {[dict get $o -gpus] > 0} { lappend sb --gres=gpu:[dict get $o -gpus] }
	lappend sb {*}[dict get $o -args] $d/job.sh
	set ::env(MYRIAD_SLURM_RUN) [dict get $run dir]
	try {
		set out [cmd_ok {*}$sb]
	} finally {
		unset ::env(MYRIAD_SLURM_RUN)
	}
	return [lindex [split [string trim $out] {;}] 0]
}

# The start markers of a job: a list of {RESTART_COUNT NODE}, in restart order.
proc slurm::job_starts {id} {
	set d [get jobs_dir]
	set out {}
	foreach f [glob -nocomplain -directory $d -tails start.$id.*] {
		if {[regexp "^start\\.$id\\.(\\d+)\\.(.+)\$" $f -> r nm]} { lappend out [list $r $nm] }
	}
	return [lsort -integer -index 0 $out]
}

# The checkpoint marker file of a job's run RESTART (written on SIGUSR1).
proc slurm::ckpt_file {id {restart 0}} {
	return [file join [get jobs_dir] ckpt.$id.$restart]
}

# ---- myriad's configuration ----

# Writes a myriad configuration file for the console reaching this cluster's
# head node (service slurm); the caller appends host lines. Returns PATH.
proc slurm::config_for_myriad {path args} {
	set o [dict create -host head01 -log "" -extra ""]
	foreach {k v} $args {
		if {![dict exists $o $k]} { error "slurm::config_for_myriad: unknown option $k" }
		dict set o $k $v
	}
	set r [get]
	set log [expr {[dict get $o -log] ne "" ? " -log [dict get $o -log]" : ""}]
	sshd::write_file $path "# myriad configuration for a private test Slurm cluster
ssh -config none -known-hosts none -connect-timeout 5$log
hostkey {\[[dict get $r ssh_host]\]:[dict get $r ssh_port]} [dict get $r ssh_hostkey_type] [dict get $r ssh_hostkey_base64]
service slurm -host [dict get $o -host] -hostname [dict get $r ssh_host] -port [dict get $r ssh_port] -user [dict get $r ssh_user] -identity [dict get $r ssh_key]
[dict get $o -extra]"
	return $path
}

# ---- stop ----

# Processes of this run that nobody recorded (slurmstepd, job shells, sleeps,
# ssh sessions): MYRIAD_SLURM_RUN=<dir> in their environment (slurmstepd
# inherits it from slurmd, jobs from slurm::submit or the head node's SetEnv),
# or a working folder inside <dir>, and their descendants. Never this process
# nor its ancestors. A list of {pid starttime}.
proc slurm::strays {dir} {
	set mine {}
	for {set p [pid]} {$p ne "" && $p > 1} {set p [sshd::proc_ppid $p]} { lappend mine $p }
	set marker "MYRIAD_SLURM_RUN=$dir"
	set out {}
	foreach p [glob -nocomplain -directory /proc -tails {[0-9]*}] {
		if {$p in $mine} continue
		set st [sshd::proc_starttime $p]
		if {$st eq ""} continue
		set env [split [sshd::read_file /proc/$p/environ] \0]
		set cwd ""
		catch {set cwd [file readlink /proc/$p/cwd]}
		if {$marker in $env || $cwd eq $dir || [string first $dir/ $cwd] == 0} {
			lappend out [list $p $st]
		}
	}
	foreach ps $out {
		foreach d [sshd::descendants [lindex $ps 0]] {
			if {[lindex $d 0] ni $mine && $d ni $out} { lappend out $d }
		}
	}
	return $out
}

# Stops the cluster: cancels every job, kills the daemons this run started
# (only while /proc says they are still them), then any stray process of the
# run, and removes the folder. Idempotent; returns the milliseconds it took.
proc slurm::stop {} {
	variable run
	variable saved_conf
	if {$run eq ""} { return 0 }
	set t0 [clock milliseconds]
	set dir [dict get $run dir]
	set problems {}
	# No new commands over SSH.
	if {[dict get $run sshd] ne ""} { catch {sshd::stop [dict get $run sshd]} }
	# Cancel the jobs while slurmctld and the slurmds still run them.
	set ctld [dict get $run pids]
	if {[dict exists $ctld slurmctld] && [sshd::proc_alive [lindex [dict get $ctld slurmctld] 0]]} {
		set ids [jobs]
		if {[llength $ids]} {
			catch {cmd scancel {*}$ids}
			if {![wait_for {expr {[llength [jobs]] == 0}} 8000]} {
				lappend problems "jobs still listed after scancel: [jobs]"
			}
		}
	}
	# The daemons: TERM, then KILL after a deadline.
	set daemons {}
	dict for {name ps} [dict get $run pids] {
		lassign $ps pid st
		set exe [lindex [split $name :] 0]
		set cl [sshd::proc_cmdline $pid]
		if {[sshd::proc_starttime $pid] eq $st && [string first $exe $cl] >= 0 && [string first $dir $cl] >= 0} {
			lappend daemons [list $pid $st]
		}
	}
	# munged last: slurmctld and slurmd use it while shutting down.
	set munge [expr {[dict exists $run pids munged] ? [list [dict get $run pids munged]] : {}}]
	set slurmds {}
	foreach d $daemons { if {$d ni $munge} { lappend slurmds $d } }
	sshd::kill_recorded $slurmds TERM
	if {![sshd::wait_gone $slurmds 5000]} {
		sshd::kill_recorded $slurmds KILL
		sshd::wait_gone $slurmds 3000
	}
	# What is left of the jobs (slurmstepd is reparented to init; a job whose
	# script ignores SIGTERM would still run).
	set s [strays $dir]
	if {[llength $s]} {
		sshd::kill_recorded $s KILL
		if {![sshd::wait_gone $s 3000]} { lappend problems "stray processes survived: $s" }
	}
	sshd::kill_recorded $munge TERM
	if {![sshd::wait_gone $munge 3000]} { sshd::kill_recorded $munge KILL; sshd::wait_gone $munge 3000 }
	if {$saved_conf eq "-"} { catch {unset ::env(SLURM_CONF)} } else { set ::env(SLURM_CONF) $saved_conf }
	# Everything is stopped: the guardian may go.
	if {[dict exists $run guardian]} {
		catch {puts [dict get $run guardian] done}
		catch {close [dict get $run guardian]}
	}
	# Any exec makes Tcl reap its exited background children (no zombies left).
	catch {exec /bin/true}
	set run {}
	file delete -force $dir
	if {[llength $problems]} { error "slurm::stop: [join $problems {; }]" }
	return [expr {[clock milliseconds] - $t0}]
}
