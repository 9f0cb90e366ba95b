manifest name hot-gpus version 1.0 summary {tells when a GPU runs hot} commands {on every {gpu get} nodes notify}
# hot-gpus.tcl - a Tcl plugin a site can copy (myriad-plugins(7)): every
# minute of cluster time it looks at every GPU's temperature and tells the
# operator about the ones at or above the limit, once per GPU until it
# cools down. A Tcl plugin runs in a safe interpreter of its own with only
# the commands its manifest (the first line) asks for: it can watch and
# tell, never act, open files or run programs.
#
#   plugin load hot-gpus
#   (the limit: set ::hot_gpus::limit 85 in the plugin's interpreter)

namespace eval ::hot_gpus {
	variable limit 87
	variable told {}
}

proc ::hot_gpus::look {} {
	variable limit
	variable told
	set now {}
	dict for {node temps} [gpu get [nodes] temp] {
		set i 0
		foreach t $temps {
			if {$t ne "" && $t >= $limit} {
				lappend now $node:$i
				if {"$node:$i" ni $told} { notify -level warn "hot-gpus: $node:$i at $t C (limit $limit C)" }
			}
			incr i
		}
	}
	set told $now
}

every 60s ::hot_gpus::look
