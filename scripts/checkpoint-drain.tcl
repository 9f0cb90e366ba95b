# checkpoint-drain.tcl - take a node out of service without losing work:
# tell every job running on it to checkpoint, wait until each has written its
# checkpoint (or a timeout passes), then drain the node and requeue the jobs
# elsewhere (never again on this node).
#
#   myriad ... run scripts/checkpoint-drain.tcl NODE ?-timeout 300? ?-reason TEXT? ?-signal USR1?
#   from the console:  source .../checkpoint-drain.tcl; ckptdrain::start gpu0042 -timeout 300
#
# The wait is a coroutine resumed by `after`, so it never blocks the console;
# a batch run waits for it with vwait (cluster time passes). A checkpoint is
# seen as the job's GPUs dipping (utilization under 40 %) and coming back
# (over 70 %): what a synchronous checkpoint write looks like from outside.
# A site with a better signal (a file, a log line, the job's comment)
# replaces ckptdrain::state.
#
# What cannot be done is said (notify) and the rest is still done: a job that
# could not be signalled is requeued all the same; a job the guard or the
# scheduler would not requeue keeps running on the drained node; a node that
# could not be drained keeps its jobs (none is requeued). The result's
# failed lists what failed, and run directly the runbook then ends with that
# error: exit status 1, or 2 when the scheduler could not be reached
# (myriad(1)). The checkpoint signal does not count towards the blast-radius
# guard (the job keeps running); the drain and each requeue do, so a job of
# more nodes than guard -nodes is not requeued without the operator.

namespace eval ::ckptdrain {
	variable n 0
	variable results {}
}

# The mean utilization of job's GPUs on node, or -1 when unknown.
proc ::ckptdrain::util {node job} {
	set sum 0
	set count 0
	foreach u [dict get [gpu get $node util] $node] j [dict get [gpu get $node job] $node] {
		if {$j eq $job && $u ne ""} {
			incr sum $u
			incr count
		}
	}
	expr {$count ? $sum / $count : -1}
}

# signalled -> writing (the dip) -> done (back to work)
proc ::ckptdrain::state {node job was} {
	set u [util $node $job]
	switch -- $was {
		signalled { return [expr {$u >= 0 && $u < 40 ? "writing" : "signalled"}] }
		writing { return [expr {$u > 70 ? "done" : "writing"}] }
		default { return $was }
	}
}

# The errorCode that decides the run's exit status: one that says the
# scheduler could not be reached (2) before any other (1).
proc ::ckptdrain::worst {codes} {
	foreach c $codes {
		if {[lindex $c 1] in {UNREACHABLE TIMEOUT NOBACKEND NOTAVAIL}} { return $c }
	}
	return [lindex $codes 0]
}

proc ::ckptdrain::run {node timeout reason sig} {
	variable results
	set jobs [job list -node $node -state RUNNING]
	set state {}
	set failed {}
	set codes {}
	foreach j $jobs {
		if {[catch {job checkpoint $j -signal $sig} err opts]} {
			notify -level warn "checkpoint-drain: job $j not signalled: $err"
			dict set state $j failed
			lappend failed "job $j not signalled: $err"
			lappend codes [dict get $opts -errorcode]
		} else {
			dict set state $j signalled
		}
	}
	set sent [dict keys [dict filter $state value signalled]]
	notify "checkpoint-drain: $node: signalled [llength $sent] job(s): $sent"
	set deadline [expr {[now] + $timeout}]
	while {[now] < $deadline} {
		set waiting 0
		dict for {j s} $state {
			dict set state $j [state $node $j $s]
			if {[dict get $state $j] in {signalled writing}} { incr waiting }
		}
		if {!$waiting} break
		after 5000 [info coroutine]
		yield
	}
	set requeued {}
	if {[catch {node drain $node -reason $reason} drain opts]} {
		notify -level warn "checkpoint-drain: $node not drained, its jobs not requeued: $drain"
		lappend failed "$node not drained: $drain"
		lappend codes [dict get $opts -errorcode]
		set status failed
	} else {
		set status [dict get $drain status]
		foreach j $jobs {
			if {[catch {job requeue $j -exclude $node} err opts]} {
				notify -level warn "checkpoint-drain: job $j not requeued: $err"
				lappend failed "job $j not requeued: $err"
				lappend codes [dict get $opts -errorcode]
			} else {
				lappend requeued $j
			}
		}
	}
	set r [dict create node $node jobs $jobs state $state requeued $requeued drain $status \
		failed $failed errorcode [worst $codes] time [now -iso]]
	set drained [expr {$status eq "failed" ? "not drained" : "drained ($status)"}]
	notify "checkpoint-drain: $node $drained; checkpoints: $state; requeued: $requeued"
	lappend results $r
	set ::ckptdrain::finished $r
	return $r
}

# Starts the work in a coroutine and returns its name.
proc ::ckptdrain::start {node args} {
	variable n
	set o [dict merge {-timeout 300 -reason "maint checkpoint-drain" -signal USR1} $args]
	foreach k [dict keys $o] {
		if {$k ni {-timeout -reason -signal}} { error "checkpoint-drain: unknown option $k" }
	}
	node info $node   ;# an unknown node is an error now, not later
	set co ::ckptdrain::co[incr n]
	coroutine $co ::ckptdrain::run $node [dict get $o -timeout] [dict get $o -reason] [dict get $o -signal]
	return $co
}

if {[info exists ::argv0] && [lindex [split $::argv0 /] end] eq [lindex [split [info script] /] end]} {
	if {![llength $::argv]} { error "usage: checkpoint-drain.tcl NODE ?-timeout S? ?-reason TEXT? ?-signal SIG?" }
	::ckptdrain::start {*}$::argv
	if {![info exists ::ckptdrain::finished]} { vwait ::ckptdrain::finished }
	set r $::ckptdrain::finished
	if {[llength [dict get $r failed]]} {   ;# a partial failure is not a success
		return -code error -errorcode [dict get $r errorcode] \
			"checkpoint-drain: [dict get $r node]: [join [dict get $r failed] {; }]"
	}
	set r
}
