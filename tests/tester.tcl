# tester.tcl - the harness of myriad's Tcl test suites (tests/*.test).
#
# Catalogue:
#   test NAME BODY             run BODY; a failed assertion or an error fails it
#   skip NAME WHY              record a skipped test and why: only for what the
#                              test needs from outside myriad and lacks here (a
#                              missing external tool, not being root)
#   skip_all WHY               every test defined after it is recorded as
#                              skipped, each by its name (the suite cannot run here)
#   fail NAME WHY              record a failed test without running it: a part
#                              of ours (or a setup it needs) failed, which is
#                              never a reason to skip
#   missing_tools TOOL...      "" or "needs TOOL" (the first one not on PATH)
#   assert COND ?MSG?          COND (an expr) must hold
#   assert_equal GOT WANT ?MSG?
#   assert_match PATTERN GOT ?MSG?   glob match
#   assert_regexp RE GOT ?MSG?
#   run ARGS...                run the myriad binary; returns {rc stdout stderr}
#   run_ok ARGS...             run, fail unless rc == 0; returns stdout
#   json TEXT                  parse JSON into a dict (tcllib json)
#   tmpdir                     a fresh temporary folder, removed at the end
#   finish                     print "N passed, N failed[, N skipped]" and exit
#
# The binary comes from $env(MYRIAD_BIN) (default build/myriad). Run a suite
# as `tclsh tests/cli.test ?PATTERN?` to run only tests whose name matches.

package require json

namespace eval tester {
	variable passed 0 failed 0 skipped 0 failures {} dirs {} skip_all ""
	variable only [expr {[llength $::argv] ? [lindex $::argv 0] : ""}]
	variable bin [expr {[info exists ::env(MYRIAD_BIN)] ? $::env(MYRIAD_BIN) : "build/myriad"}]
}

proc test {name body} {
	if {$tester::only ne "" && ![string match *$tester::only* $name]} return
	if {$tester::skip_all ne ""} {
		skip $name $tester::skip_all
		return
	}
	set t0 [clock milliseconds]
	if {[catch {uplevel 1 $body} err opts]} {
		incr tester::failed
		puts "FAIL $name"
		foreach l [split $err \n] { puts "     $l" }
		if {![string match "assertion*" $err]} {
			puts "     [dict get $opts -errorinfo]"
		}
	} else {
		incr tester::passed
		puts [format "ok   %-60s %5d ms" $name [expr {[clock milliseconds] - $t0}]]
	}
	flush stdout
}

proc skip {name why} {
	if {$tester::only ne "" && ![string match *$tester::only* $name]} return
	incr tester::skipped
	puts "skip $name: $why"
	flush stdout
}

proc skip_all {why} {
	set tester::skip_all $why
}

proc fail {name why} {
	if {$tester::only ne "" && ![string match *$tester::only* $name]} return
	incr tester::failed
	puts "FAIL $name"
	foreach l [split $why \n] { puts "     $l" }
	flush stdout
}

proc missing_tools {args} {
	foreach t $args {
		if {[auto_execok $t] eq ""} { return "needs $t" }
	}
	return ""
}

proc assert {cond {msg ""}} {
	if {![uplevel 1 [list expr $cond]]} {
		error "assertion failed: $cond [uplevel 1 [list subst $msg]]"
	}
}

proc assert_equal {got want {msg ""}} {
	if {$got ne $want} {
		error "assertion failed: got \"$got\", want \"$want\" $msg"
	}
}

proc assert_match {pattern got {msg ""}} {
	if {![string match $pattern $got]} {
		error "assertion failed: \"$got\" does not match \"$pattern\" $msg"
	}
}

proc assert_regexp {re got {msg ""}} {
	if {![regexp -- $re $got]} {
		error "assertion failed: \"[string range $got 0 400]\" does not match /$re/ $msg"
	}
}

# Runs the binary; stdin from a string with -stdin TEXT as the first args.
proc run {args} {
	set input ""
	if {[lindex $args 0] eq "-stdin"} {
		set input [lindex $args 1]
		set args [lrange $args 2 end]
	}
	set errf [file join [tmpdir] stderr.[clock microseconds]]
	set cmd [list {*}[auto_execok $tester::bin] {*}$args 2> $errf]
	if {$input ne ""} { lappend cmd << $input }
	set rc 0
	if {[catch {exec -ignorestderr {*}$cmd} out opts]} {
		set code [dict get $opts -errorcode]
		if {[lindex $code 0] eq "CHILDSTATUS"} {
			set rc [lindex $code 2]
			regsub {\n?child process exited abnormally$} $out {} out
		} else {
			set rc -1
			set out "$out"
		}
	}
	set f [open $errf]
	set err [read $f]
	close $f
	file delete $errf
	return [list $rc $out $err]
}

proc run_ok {args} {
	lassign [run {*}$args] rc out err
	if {$rc != 0} { error "assertion failed: myriad $args exited $rc: $err" }
	return $out
}

proc json {text} { return [::json::json2dict $text] }

proc tmpdir {} {
	if {![llength $tester::dirs]} {
		set base [expr {[info exists ::env(TMPDIR)] ? $::env(TMPDIR) : "/tmp"}]
		set d [file join $base myriad-test-[pid]-[clock microseconds]]
		file mkdir $d
		lappend tester::dirs $d
	}
	return [lindex $tester::dirs 0]
}

proc finish {} {
	foreach d $tester::dirs { file delete -force $d }
	set line "$tester::passed passed, $tester::failed failed"
	if {$tester::skipped} { append line ", $tester::skipped skipped" }
	puts $line
	exit [expr {$tester::failed ? 1 : 0}]
}
