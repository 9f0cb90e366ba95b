# nodeset_eval.tcl - run inside myriad (`myriad -e {source nodeset_eval.tcl}`)
# by tests/nodeset.test: reads case lines ($::env(NODESET_CASES), the format
# of tests/data/nodeset/README and tests/tools/nodeset_clustershell.py) and
# writes for each one line of what myriad's nodeset commands answer to
# $::env(NODESET_RESULTS), tab-separated, fields escaped as in the cases:
#   parse       ok COUNT FOLD NAMES SAME     | error MESSAGE
#   op          ok FOLD SAME                 | error MESSAGE
#   contains    ok 0|1                       | error MESSAGE
#   index       ok NAME                      | error MESSAGE
#   slice       ok FOLD                      | error MESSAGE
#   split, contiguous   ok FOLD FOLD ...     | error MESSAGE
# NAMES: every name in order when there are at most 64, else "-". SAME: how
# many names ClusterShell's answer (its fold, from the case line) and ours
# do not share, or "error MESSAGE" if myriad cannot read ClusterShell's fold.

proc nsx_unesc {s} { string map {\\\\ \\ \\t \t \\n \n \\r \r} $s }
proc nsx_esc {s} { string map [list \\ \\\\ \t \\t \n \\n \r \\r] $s }

# How many names ClusterShell's answer (fold) and our set (text) do not share.
proc nsx_same {text fold} {
	if {[catch {nodeset count [nodeset xor $text $fold]} n]} { return "error $n" }
	return $n
}

proc nsx_case {f} {
	set kind [lindex $f 0]
	switch -- $kind {
		parse {
			set p [lindex $f 1]
			set c [nodeset count $p]
			set names -
			set same -
			if {$c <= 64} { set names [join [nodeset expand $p] " "] }
			if {[lindex $f 2] eq "ok"} { set same [nsx_same $p [lindex $f 4]] }
			return [list ok $c [nodeset fold [list $p]] $names $same]
		}
		op {
			lassign $f - a op b expect cs
			set r [nodeset $op $a $b]
			set same -
			if {$expect eq "ok"} { set same [nsx_same $r $cs] }
			return [list ok $r $same]
		}
		contains { return [list ok [nodeset contains [lindex $f 1] [lindex $f 2]]] }
		index { return [list ok [nodeset index [lindex $f 1] [lindex $f 2]]] }
		slice {
			if {[lindex $f 2] eq "-"} { return [list ok ""] }
			return [list ok [nodeset slice [lindex $f 1] [lindex $f 2]]]
		}
		split { return [list ok {*}[nodeset split [lindex $f 1] [lindex $f 2]]] }
		contiguous { return [list ok {*}[nodeset contiguous [lindex $f 1]]] }
	}
	error "unknown case kind \"$kind\""
}

set nsx_in [open $::env(NODESET_CASES)]
set nsx_out [open $::env(NODESET_RESULTS) w]
fconfigure $nsx_in -encoding utf-8
fconfigure $nsx_out -encoding utf-8
while {[gets $nsx_in nsx_line] >= 0} {
	set nsx_f {}
	foreach x [split $nsx_line \t] { lappend nsx_f [nsx_unesc $x] }
	if {[catch {nsx_case $nsx_f} nsx_r]} { set nsx_r [list error $nsx_r] }
	set nsx_o {}
	foreach x $nsx_r { lappend nsx_o [nsx_esc $x] }
	puts $nsx_out [join $nsx_o \t]
}
close $nsx_in
close $nsx_out
