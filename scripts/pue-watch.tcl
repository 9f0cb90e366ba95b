# pue-watch.tcl - warn when the facility's PUE stays above a threshold.
#
#   myriad ... --ticks 3600 run scripts/pue-watch.tcl ?-threshold 1.25? ?-every 60s? ?-for 3?
#
# Every -every of cluster time the runbook reads `power`; after -for readings
# in a row above -threshold it warns (notify: the console's status line, or a
# line with the cluster time on stdout in a batch run) and leaves a note in the
# log (log mark); when PUE is back under the threshold it says so once.

namespace eval ::puewatch {
	variable threshold 1.25
	variable every 60s
	variable for 3
	variable above 0
	variable alarm 0
	variable warnings {}
}

proc ::puewatch::check {} {
	variable threshold
	variable for
	variable above
	variable alarm
	variable warnings
	set p [power]
	if {![dict get $p known]} return
	set pue [dict get $p pue]
	if {$pue > $threshold} {
		incr above
		if {$above >= $for && !$alarm} {
			set alarm 1
			set msg [format "PUE %.3f above %.3f for %d readings (facility %.0f kW, IT %.0f kW)" \
				$pue $threshold $above [dict get $p facility_kw] [dict get $p it_kw]]
			lappend warnings [list [now -iso] $pue]
			notify -level warn "pue-watch: $msg"
			log mark "pue-watch: $msg"
		}
	} else {
		if {$alarm} { notify "pue-watch: PUE back to [format %.3f $pue]" }
		set above 0
		set alarm 0
	}
}

if {[info exists ::argv0] && [lindex [split $::argv0 /] end] eq [lindex [split [info script] /] end]} {
	foreach {opt value} $::argv {
		switch -- $opt {
			-threshold { set ::puewatch::threshold $value }
			-every { set ::puewatch::every $value }
			-for { set ::puewatch::for $value }
			default { error "pue-watch: unknown option $opt (-threshold X, -every DURATION, -for N)" }
		}
	}
	if {![string is double -strict $::puewatch::threshold]} { error "pue-watch: -threshold wants a number" }
}

set ::puewatch::hook [every $::puewatch::every ::puewatch::check]

return
