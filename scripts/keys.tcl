# keys.tcl - myriad's default key bindings, in the command language.
#
# The console sources this file when it starts (tcl_console_ready), before
# the bindings of the configuration, which may override any of them with
# `ui bind KEY SCRIPT ?-table TABLE?`. A script whose first word is one of
# the console's built-in console commands (panel NAME, panel-next, help, filter,
# command-prompt, quit, drain, reroute, checkpoint, ack, ... : `?` in the
# console lists them) runs without Tcl; anything else is evaluated as Tcl,
# where `ui selection node|gpu|job|fault|panel` says what the cursor is on.
#
# Tables: global, and one per panel (looked up first): utilization topology
# power faults jobs node log job. Key names: q ? C-x Enter Tab BTab Escape BSpace
# Space Up Down Left Right PPage NPage Home End IC DC F1..F12.

namespace eval ::myriad::keys {
	variable global {
		1 {panel utilization}  2 {panel topology}  3 {panel power}  4 {panel faults}
		5 {panel jobs}  6 {panel node}  7 {panel log}  8 {panel job}
		Tab panel-next  BTab panel-prev
		? help  / filter  : command-prompt
		q quit  C-c quit  C-l redraw  C-z suspend  T theme-next
		Up cursor-up  k cursor-up  Down cursor-down  j cursor-down
		Left cursor-left  h cursor-left  Right cursor-right  l cursor-right
		PPage page-up  NPage page-down  Home top  g top  End bottom  G bottom
		Enter select  Escape back  BSpace back
		d drain  r reroute  c checkpoint  a ack
		, {replay-step -1}  . {replay-step +1}
		< {replay-seek -60}  > {replay-seek +60}
		[ {replay-seek -600}  ] {replay-seek +600}
		\{ {replay-fault -1}  \} {replay-fault +1}
		Space replay-play  + {replay-speed faster}  - {replay-speed slower}
	}
	variable panels {
		utilization {m metric-next  M metric-prev  z zoom  v aggregate  w rank}
		power {m metric-next  s sort-next}
		faults {s sort-next  S sort-reverse  o show-closed  b group-bursts  u unacked-only}
		jobs {s sort-next  S sort-reverse  f faulted-only}
		node {n node-next  p node-prev}
		log {f follow}
	}
}

foreach {key script} $::myriad::keys::global {
	ui bind $key $script
}
foreach {table keys} $::myriad::keys::panels {
	foreach {key script} $keys {
		ui bind $key $script -table $table
	}
}
