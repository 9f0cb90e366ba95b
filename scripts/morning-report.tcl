# morning-report.tcl - what happened overnight and what needs doing.
#
#   myriad ... run scripts/morning-report.tcl ?-since 24h?
#   myriad ... --json run scripts/morning-report.tcl      (the report as JSON)
#   myriad --sim ... --ticks 3600 run scripts/morning-report.tcl   (after an hour)
#
# Cluster and utilization, jobs, drained and down nodes grouped by reason,
# open faults by kind and severity with the unacknowledged ones, the XIDs of
# the period by code, and the facility's PUE. Printed as text; returned as a
# dict (which --json prints). The report is of the end of the run: with
# --ticks T it waits until tick T (on the simulator, cluster time passes at
# once), without --ticks it is of now; its first line says the time.

namespace eval ::morning {}

proc ::morning::count_by {list} {
	set counts [dict create]
	foreach k $list { dict incr counts $k }
	return [dict create {*}[lsort -stride 2 -index 1 -integer -decreasing $counts]]
}

proc ::morning::report {since} {
	set c [cluster]
	set r [dict create time [now -iso] since $since cluster [dict get $c cluster]]
	dict set r gpus [dict get $c gpus]
	dict set r gpus_busy [dict get $c gpus_busy]
	dict set r utilization [expr {[dict get $c gpus] ? 100.0 * [dict get $c gpus_busy] / [dict get $c gpus] : 0}]
	dict set r jobs_running [dict get $c jobs]
	dict set r jobs_pending [dict get $c jobs_pending]
	set reasons {}
	foreach n [nodeset expand [nodes -state {drain down}]] {
		set i [node info $n]
		dict lappend reasons [expr {[dict get $i reason] eq "" ? [dict get $i state] : [dict get $i reason]}] $n
	}
	set out [dict create]
	dict for {why ns} $reasons { dict set out $why [nodeset fold $ns] }
	dict set r drained $out
	dict set r drained_count [nodeset count [nodes -state {drain down}]]
	set faults [fault list -detail]
	dict set r faults_open [llength $faults]
	set kinds {}
	set unacked {}
	foreach f $faults {
		lappend kinds "[dict get $f kind]/[dict get $f severity]"
		if {[dict get $f acked] eq ""} {
			lappend unacked [list [dict get $f id] [dict get $f node] [dict get $f text]]
		}
	}
	dict set r faults_by_kind [count_by $kinds]
	dict set r unacked $unacked
	set xids {}
	foreach f [fault list -all -kind xid -since $since -detail] { lappend xids [dict get $f xid] }
	dict set r xids [count_by $xids]
	set p [power -history 60]
	dict set r pue [dict get $p pue]
	set h [dict get $p history]
	dict set r pue_avg [expr {[llength $h] ? round(1000.0 * [::tcl::mathop::+ {*}$h] / [llength $h]) / 1000.0 : ""}]
	return $r
}

proc ::morning::print {r} {
	puts "Morning report [dict get $r cluster], [dict get $r time] (XIDs since [dict get $r since])"
	puts [format "  GPUs      %d, %d busy (%.1f %%)" [dict get $r gpus] [dict get $r gpus_busy] [dict get $r utilization]]
	puts [format "  jobs      %d running, %d pending" [dict get $r jobs_running] [dict get $r jobs_pending]]
	puts "  drained   [dict get $r drained_count] nodes"
	dict for {why ns} [dict get $r drained] { puts "            $ns: $why" }
	puts "  faults    [dict get $r faults_open] open: [dict get $r faults_by_kind]"
	foreach u [dict get $r unacked] { puts "            unacked #[lindex $u 0] [lindex $u 1]: [lindex $u 2]" }
	puts "  XIDs      [expr {[dict size [dict get $r xids]] ? [dict get $r xids] : "none"}]"
	puts "  PUE       [dict get $r pue] now, [dict get $r pue_avg] over the last readings"
}

if {[info exists ::argv0] && [lindex [split $::argv0 /] end] eq [lindex [split [info script] /] end]} {
	set since 24h
	foreach {opt value} $::argv {
		switch -- $opt {
			-since { set since $value }
			default { error "morning-report: unknown option $opt (-since AGE)" }
		}
	}
	if {$::myriad::ticks ne ""} { advance }   ;# to the end of the run
	set ::morning::result [::morning::report $since]
	if {!$::myriad::json} {
		::morning::print $::morning::result
		set ::morning::result ""
	}
	set ::morning::result
}
