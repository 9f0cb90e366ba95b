# bench_inventory.tcl BUILD_DIR - declaring the hosts of a fleet: the time of
# one `host {gpu[1-N]}` in a configuration, for 12,800 to 102,400 hosts, and
# the ratio of each to the one half its size (2.0 is linear; a name table
# rebuilt per host made it 4). Printed, not asserted: make bench.
set bin [file join [lindex $argv 0] myriad]
set dir [file join [expr {[info exists env(TMPDIR)] ? $env(TMPDIR) : "/tmp"}] myriad-bench-inv-[pid]]
file mkdir $dir
puts "declaring hosts (host {gpu\[1-N\]} in a configuration; best of 3 runs)"
puts [format "%10s %10s %s" hosts ms "ratio to N/2"]
set prev ""
foreach n {12800 25600 51200 102400} {
	set conf [file join $dir h$n.conf]
	set f [open $conf w]
	puts $f "set ::t0 \[clock microseconds\]\nhost {gpu\[1-$n\]} -hostname 127.0.0.1\nset ::t1 \[clock microseconds\]"
	close $f
	set best ""
	for {set i 0} {$i < 3} {incr i} {
		set us [exec $bin --record none -c $conf --ticks 0 -e {expr {$::t1 - $::t0}}]
		if {$best eq "" || $us < $best} { set best $us }
	}
	set ratio [expr {$prev eq "" ? "" : [format %.2f [expr {double($best) / $prev}]]}]
	puts [format "%10d %10.1f %s" $n [expr {$best / 1000.0}] $ratio]
	set prev $best
}
file delete -force $dir
