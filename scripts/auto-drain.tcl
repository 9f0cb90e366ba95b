# auto-drain.tcl - drain a node as soon as one of its GPUs reports a
# hardware XID.
#
# Hardware XIDs - 79 (fallen off the bus), 48 (double-bit ECC), 64 (row-remap
# failure), 95 (uncontained ECC error), 74 (NVLink) and the others the XID
# catalogue sends to a drain - drain the node with a reason in the site
# convention, "xid79 gpu3 fallen-off-bus". Sympathetic XIDs - 43, 45, 63, 92 -
# follow another error instead of causing one and are ignored. A node already
# drained (or drained by this runbook, before the scheduler's next poll shows
# it) is left alone. The jobs running on the node are rerouted: requeued
# elsewhere, never again on this node (a GPU that fell off the bus took its
# job's processes with it); -reroute 0 leaves them to the operator. Every
# drain and requeue goes through the action engine, so --read-only,
# --dry-run and the blast-radius guard apply; with a Slurm service they are
# scontrol commands on the head node (myriad(1), SLURM BACKEND).
#
#   myriad --sim accel=600 --ticks 3600 run scripts/auto-drain.tcl ?-codes {79 48}? ?-reroute 0? ?-dry-run?
#   in the configuration:  source /usr/local/share/myriad/scripts/auto-drain.tcl

namespace eval ::autodrain {
	variable codes {79 48 64 95 74 62 109 119 120 136 140}
	variable ignore {43 45 63 92}
	variable tags {
		79 fallen-off-bus  48 dbe  64 remap-fail  95 uncontained-ecc  74 nvlink
		62 fw-halt  109 ctxsw-timeout  119 gsp-timeout  120 gsp-error
		136 nvlink-training  140 ecc-unrecovered
	}
	variable dry 0
	variable reroute 1
	variable pending {}   ;# node -> when this runbook drained it
	variable drained {}   ;# what it did: a list of {time node reason}
}

proc ::autodrain::reason {code index} {
	variable tags
	set tag [expr {[dict exists $tags $code] ? [dict get $tags $code] : "hardware"}]
	set gpu [expr {$index >= 0 ? "gpu$index" : "gpu?"}]
	return "xid$code $gpu $tag"
}

# The hook: every field of the fault arrives as a variable.
proc ::autodrain::on_xid {node index code} {
	variable codes
	variable ignore
	variable dry
	variable reroute
	variable pending
	variable drained
	if {$node eq "" || $code in $ignore || $code ni $codes} return
	if {[dict exists $pending $node] || [dict get [node info $node] drain]} return
	set reason [reason $code $index]
	set opts [expr {$dry ? "-dry-run" : ""}]
	if {[catch {node drain $node -reason $reason {*}$opts} result]} {
		notify -level error "auto-drain: $node: $result"
		return
	}
	dict set pending $node [now]
	lappend drained [list [now -iso] $node $reason]
	notify -level warn "auto-drain: [dict get $result status] $node ($reason)"
	if {!$reroute} return
	foreach job [job list -node $node -state RUNNING] {
		if {[catch {job requeue $job -exclude $node {*}$opts} r]} {
			notify -level error "auto-drain: job $job not rerouted: $r"
		} else {
			notify -level warn "auto-drain: job $job [dict get $r status]: rerouted away from $node"
		}
	}
}

# Run as a runbook: options from the command line.
if {[info exists ::argv0] && [lindex [split $::argv0 /] end] eq [lindex [split [info script] /] end]} {
	foreach {opt value} $::argv {
		switch -- $opt {
			-codes { set ::autodrain::codes $value }
			-ignore { set ::autodrain::ignore $value }
			-dry-run { set ::autodrain::dry 1 }
			-reroute { set ::autodrain::reroute [string is true -strict $value] }
			default { error "auto-drain: unknown option $opt (-codes LIST, -ignore LIST, -reroute 0|1, -dry-run)" }
		}
	}
}

set ::autodrain::hook [on fault [list xid {*}$::autodrain::codes] {
	::autodrain::on_xid $node $index $code
}]

return
