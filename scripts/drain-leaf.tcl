# drain-leaf.tcl - drain every node cabled to one leaf switch, for switch
# maintenance, after checking that the rest of the cluster can take the jobs.
#
#   myriad ... run scripts/drain-leaf.tcl LEAF ?-reason TEXT? ?-min-up 0.75? ?-requeue? ?-force? ?-dry-run?
#
# LEAF is a switch name, leaf-s03-r5, or SU.RAIL, 3.5. In a rail-optimised
# SuperPOD every node of the SU has one port on each rail's leaf, so all of
# the SU's nodes go. The capacity check: after the drain at least -min-up
# (default 0.75) of the cluster's nodes must still be up; with -requeue,
# which requeues the jobs running there away from the drained nodes, their
# GPUs must also fit on idle healthy GPUs elsewhere. If not, the runbook
# stops unless -force. The drain reason is "maint leaf-s03-r5 TEXT".
# A job that the guard or the scheduler would not requeue is said (notify)
# and the others are still requeued; the report's failed lists them, and run
# directly the runbook then ends with that error: exit status 1, or 2 when
# the scheduler could not be reached (myriad(1)).

namespace eval ::drainleaf {}

proc ::drainleaf::parse {leaf} {
	if {[regexp {^leaf-s0*([0-9]+)-r([0-9]+)$} $leaf -> su rail] || [regexp {^([0-9]+)\.([0-9]+)$} $leaf -> su rail]} {
		return [list $su $rail]
	}
	error "drain-leaf: \"$leaf\" is not a leaf (leaf-s03-r5 or 3.5)"
}

# Idle GPUs on healthy nodes outside the set.
proc ::drainleaf::free_gpus {outside} {
	set free 0
	foreach n [nodeset expand [nodeset and $outside [nodes -state up]]] {
		foreach j [dict get [gpu get $n job] $n] {
			if {$j eq ""} { incr free }
		}
	}
	return $free
}

proc ::drainleaf::run {leaf args} {
	set o [dict merge {-reason switch-maintenance -min-up 0.75 -requeue 0 -force 0 -dry-run 0} \
		[::drainleaf::flags $args]]
	lassign [parse $leaf] su rail
	set name [format "leaf-s%02d-r%d" $su $rail]
	set set [nodes @leaf:$su.$rail]
	if {$set eq ""} { error "drain-leaf: $name has no nodes" }
	set jobs [job list -node $set -state RUNNING]
	set need 0
	foreach j $jobs { incr need [dict get [job info $j] gpus] }
	set free [free_gpus [nodeset diff @all $set]]
	set total [nodeset count [nodes]]
	set up [nodeset count [nodeset diff [nodes -state up] $set]]
	set report [dict create leaf $name nodes $set count [nodeset count $set] jobs $jobs \
		gpus_needed $need gpus_free $free up_after $up of $total]
	set min [dict get $o -min-up]
	if {![dict get $o -force]} {
		if {$up < $min * $total} {
			error "drain-leaf: capacity: only $up of $total nodes would stay up (under [expr {round($min * 100)}] %; -force to drain anyway)"
		}
		if {[dict get $o -requeue] && $need > $free} {
			error "drain-leaf: capacity: the jobs on $name need $need GPUs, $free are free elsewhere (-force to drain anyway)"
		}
	}
	set reason "maint $name [dict get $o -reason]"
	set opts {}
	if {[dict get $o -dry-run]} { lappend opts -dry-run }
	if {[dict get $o -force]} { lappend opts -force -reason $reason }
	set drain [node drain $set -reason $reason {*}$opts]
	dict set report drain [dict get $drain status]
	dict set report reason $reason
	set requeued {}
	set failed {}
	set codes {}
	if {[dict get $o -requeue]} {
		foreach j $jobs {
			if {[catch {job requeue $j -exclude $set {*}$opts} err eo]} {
				notify -level warn "drain-leaf: job $j: $err"
				lappend failed "job $j not requeued: $err"
				lappend codes [dict get $eo -errorcode]
			} else {
				lappend requeued $j
			}
		}
	}
	dict set report requeued $requeued
	dict set report failed $failed
	dict set report errorcode [worst $codes]
	notify "drain-leaf: $name: [dict get $drain status] [nodeset count $set] nodes, [llength $jobs] jobs ($need GPUs, $free free elsewhere)"
	return $report
}

# The errorCode that decides the run's exit status: one that says the
# scheduler could not be reached (2) before any other (1).
proc ::drainleaf::worst {codes} {
	foreach c $codes {
		if {[lindex $c 1] in {UNREACHABLE TIMEOUT NOBACKEND NOTAVAIL}} { return $c }
	}
	return [lindex $codes 0]
}

# -reason TEXT, -min-up F, and the flags -requeue -force -dry-run, into a dict.
proc ::drainleaf::flags {words} {
	set o {}
	for {set i 0} {$i < [llength $words]} {incr i} {
		set w [lindex $words $i]
		switch -- $w {
			-reason - -min-up { dict set o $w [lindex $words [incr i]] }
			-requeue - -force - -dry-run { dict set o $w 1 }
			default { error "drain-leaf: unknown option $w" }
		}
	}
	return $o
}

if {[info exists ::argv0] && [lindex [split $::argv0 /] end] eq [lindex [split [info script] /] end]} {
	if {![llength $::argv]} { error "usage: drain-leaf.tcl LEAF ?-reason TEXT? ?-min-up F? ?-requeue? ?-force? ?-dry-run?" }
	set r [::drainleaf::run {*}$::argv]
	if {[llength [dict get $r failed]]} {   ;# a partial failure is not a success
		return -code error -errorcode [dict get $r errorcode] \
			"drain-leaf: [dict get $r leaf]: [join [dict get $r failed] {; }]"
	}
	set r
}
