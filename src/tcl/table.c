/*
 * table.c - the one command table of myriad's Tcl language. Registration,
 * `help`, completion and man/myriad-tcl.7 are all built from it; keep the
 * entries of one head word together and every option of `opts` in `usage`
 * (tests/unit/test_tcl.c checks both).
 */
#include "tcl_int.h"

#define Q (TC_RO | TC_SAFE)                   /* a query */
#define A (TC_ACTS | TC_BACKEND)              /* an action */
#define ACT_OPTS "dry-run force reason="

const char *const tc_section_names[SEC_COUNT] = {
	"Queries", "Actions", "Events and time", "Log and replay", "Console", "Fan-out", "Configuration", "Running",
};

/* clang-format off */
const struct tcl_cmd tc_table[] = {
	/* ---- queries ---- */
	{"cluster", "", "summary of the cluster: the snapshot's fields (gpus nodes sus jobs faults_open it_kw facility_kw pue tick time model_hash) and more",
		"", 0, 0, Q, SEC_QUERY, tc_cluster},
	{"now", "?-iso?", "cluster time in seconds since the epoch, or ISO 8601 with -iso",
		"iso", 0, 0, Q, SEC_QUERY, tc_now},
	{"nodes", "?-state S? ?-su N? ?-rack N? ?-fault KIND? ?-job ID? ?NODESET?",
		"nodes matching every filter, as a folded nodeset (state: idle alloc mixed down drain drained draining up ...; several as a list)",
		"state= su= rack= fault= job=", 0, 1, Q, SEC_QUERY, tc_nodes},
	{"nodeset expand", "NODESET", "the names of a nodeset, as a list", "", 1, 1, Q, SEC_QUERY, tc_nodeset_expand},
	{"nodeset fold", "NAME ?NAME ...?", "fold names (or lists of names, or nodesets) into one nodeset", "", 1, -1, Q, SEC_QUERY, tc_nodeset_fold},
	{"nodeset count", "NODESET", "how many names a nodeset holds", "", 1, 1, Q, SEC_QUERY, tc_nodeset_count},
	{"nodeset and", "NODESET NODESET ?NODESET ...?", "intersection", "", 2, -1, Q, SEC_QUERY, tc_nodeset_op},
	{"nodeset or", "NODESET NODESET ?NODESET ...?", "union", "", 2, -1, Q, SEC_QUERY, tc_nodeset_op},
	{"nodeset diff", "NODESET NODESET ?NODESET ...?", "the first set without the others", "", 2, -1, Q, SEC_QUERY, tc_nodeset_op},
	{"nodeset xor", "NODESET NODESET", "names in exactly one of the two", "", 2, 2, Q, SEC_QUERY, tc_nodeset_op},
	{"nodeset contains", "NODESET NODESET", "1 if every name of the second nodeset (a name, say) is in the first, else 0",
		"", 2, 2, Q, SEC_QUERY, tc_nodeset_member},
	{"nodeset subset", "NODESET NODESET", "1 if every name of the first nodeset is in the second, else 0",
		"", 2, 2, Q, SEC_QUERY, tc_nodeset_member},
	{"nodeset index", "NODESET INDEX", "the name at INDEX in the order of expand: 0 first, -1 or end the last, end-N",
		"", 2, 2, Q, SEC_QUERY, tc_nodeset_index},
	{"nodeset slice", "NODESET POSITIONS", "the names at POSITIONS, 0 first, in ClusterShell's range syntax as nodeset -I takes them "
		"(0-9, 0-99/2, 5,7), as a nodeset", "", 2, 2, Q, SEC_QUERY, tc_nodeset_slice},
	{"nodeset split", "NODESET N", "N nodesets in order (fewer if there are fewer names) whose sizes differ by at most one, "
		"the larger first, as nodeset --split", "", 2, 2, Q, SEC_QUERY, tc_nodeset_split},
	{"nodeset contiguous", "NODESET", "the runs of consecutive indexes as a list of nodesets, as nodeset --contiguous: "
		"n[1-3,5] gives n[1-3] n5", "", 1, 1, Q, SEC_QUERY, tc_nodeset_contiguous},
	{"node info", "NODE", "a node as a dict: state, drain reason, who and when, SU, rack, jobs, open faults, data age",
		"", 1, 1, Q, SEC_QUERY, tc_node_info},
	{"gpu info", "NODE:INDEX | NODE INDEX", "one GPU as a dict: metrics, throttle reasons, last XID, uuid, PCI id, job, model (nvidia-smi's name)",
		"", 1, 2, Q, SEC_QUERY, tc_gpu_info},
	{"gpu get", "NODESET FIELD", "a dict node -> list of FIELD per GPU (util mem_used mem_total temp power power_limit sm_clock ecc throttle last_xid job uuid pci model)",
		"", 2, 2, Q, SEC_QUERY, tc_gpu_get},
	{"job list", "?-node NODESET? ?-state S? ?-user U? ?-detail?", "job ids (or dicts with -detail) matching every filter",
		"node= state= user= detail", 0, 0, Q, SEC_QUERY, tc_job_list},
	{"job info", "ID", "a job as a dict: name, user, state, nodes, GPUs, times", "", 1, 1, Q, SEC_QUERY, tc_job_info},
	{"fault list", "?-unacked? ?-all? ?-since T? ?-node NODESET? ?-kind K? ?-detail?",
		"open fault ids (-all: closed ones too; -detail: dicts); T is ISO 8601, epoch seconds or an age such as 1h",
		"unacked all since= node= kind= detail", 0, 0, Q, SEC_QUERY, tc_fault_list},
	{"fault info", "ID", "a fault as a dict: time, node, gpu, kind, code, severity, text, recommended action, ack",
		"", 1, 1, Q, SEC_QUERY, tc_fault_info},
	{"power", "?-history N?", "facility kW, IT kW, cooling, PUE, CDU temperatures and flow (-history: the last N PUE values)",
		"history=", 0, 0, Q, SEC_QUERY, tc_power},
	{"links", "?-state S? ?-node NODESET? ?-rail R?", "node ports as dicts: node, rail, leaf switch, state, downs, error counters",
		"state= node= rail=", 0, 0, Q, SEC_QUERY, tc_links},
	{"xid", "CODE", "the XID catalogue entry: meaning, bucket, action, hardware, sympathetic", "", 1, 1, Q, SEC_QUERY, tc_xid},
	/* ---- actions ---- */
	{"node drain", "NODESET -reason TEXT ?-dry-run? ?-force?",
		"drain nodes; TEXT as \"xid79 gpu3 fallen-off-bus\" (at most 64 characters, no commas)",
		ACT_OPTS, 1, 1, A, SEC_ACT, tc_node_drain},
	{"node resume", "NODESET ?-dry-run? ?-force -reason TEXT?", "return drained or down nodes to service",
		ACT_OPTS, 1, 1, A, SEC_ACT, tc_node_resume},
	{"job requeue", "ID ?-exclude NODESET? ?-dry-run? ?-force -reason TEXT?",
		"requeue a job (reroute: never again on the excluded nodes)", ACT_OPTS " exclude=", 1, 1, A, SEC_ACT, tc_job_requeue},
	{"job checkpoint", "ID ?-signal SIG? ?-dry-run? ?-force -reason TEXT?",
		"tell a job to checkpoint: send SIG (default USR1) to it", ACT_OPTS " signal=", 1, 1, A, SEC_ACT, tc_job_checkpoint},
	{"fault ack", "ID ?ID ...? ?-note TEXT? ?-dry-run?", "acknowledge faults", "dry-run note=", 1, -1, TC_ACTS, SEC_ACT, tc_fault_ack},
	{"guard", "?-nodes N? ?-gpus N? ?-window DURATION? ?-timeout DURATION? ?-hook-errors N? ?-hook-commands N? ?-hook-ms MS? ?-command-ms MS? ?-force -reason TEXT?",
		"the blast-radius limits (per window of cluster time), how long a backend call may take, and hook limits; returns them and what the window holds. Raising a limit outside the configuration is an audited action: it needs -force -reason TEXT",
		"nodes= gpus= window= timeout= hook-errors= hook-commands= hook-ms= command-ms= force reason=", 0, 0, TC_RO, SEC_ACT, tc_guard},
	{"whatif", "SCRIPT ?-minutes N? ?-runs K? ?-seed S? ?-json? ?-table?",
		"what SCRIPT's actions would do, on twins of the cluster run N minutes ahead (default 30) without and with them: jobs killed, requeued and delayed, queue waits, utilization, IT power, PUE, the guards' verdict; nothing is sent (-runs: K workload seeds, with the spread)",
		"minutes= runs= seed= json table", 1, 1, TC_RO, SEC_ACT, tc_whatif},
	{"action list", "?-all?", "actions held for confirmation or sent and not answered yet, as dicts (-all: the last finished too, newest first)",
		"all", 0, 0, TC_RO | TC_SAFE, SEC_ACT, tc_action_list},
	{"action info", "ID", "one action as a dict: id verb target status source who submitted age detail", "", 1, 1,
		TC_RO | TC_SAFE, SEC_ACT, tc_action_info},
	{"action wait", "ID ?-timeout DURATION?", "batch: wait until the action ends (the loop runs meanwhile); returns its dict",
		"timeout=", 1, 1, TC_RO, SEC_ACT, tc_action_wait},
	/* ---- events and time ---- */
	{"on", "fault|node|job|conn|tick|event ?FILTER? SCRIPT",
		"run SCRIPT on each event that passes FILTER; returns a handle (see HOOKS)", "", 2, 3, TC_RO | TC_SAFE, SEC_EVENT, tc_on},
	{"off", "HANDLE", "remove a hook", "", 1, 1, TC_RO | TC_SAFE, SEC_EVENT, tc_off},
	{"every", "DURATION SCRIPT", "run SCRIPT every DURATION of cluster time (10s, 5m, 1h); returns a handle",
		"", 2, 2, TC_RO | TC_SAFE, SEC_EVENT, tc_every},
	{"hooks", "", "the hooks as dicts: handle, kind, filter, runs, errors, disabled, last error", "", 0, 0, TC_RO | TC_SAFE, SEC_EVENT, tc_hooks_cmd},
	{"advance", "?DURATION?", "batch: let cluster time pass (default: to the end of the run, --ticks), running hooks and timers; returns the tick",
		"", 0, 1, TC_RO, SEC_EVENT, tc_advance_cmd},
	/* ---- log and replay ---- */
	{"log query", "SQL", "rows of a read-only query on the recording, as dicts", "", 1, 1, TC_RO, SEC_LOG, tc_log_query},
	{"log mark", "TEXT", "an operator's note in the event stream (and the log)", "", 1, 1, TC_RO | TC_SAFE, SEC_LOG, tc_log_mark},
	{"replay open", "FILE", "replay a recording: it becomes the only source", "", 1, 1, TC_RO | TC_TRUSTED, SEC_LOG, tc_replay},
	{"replay seek", "WHEN", "go to a time: +SECONDS from the start, ISO 8601, or a fault: next|prev", "", 1, 1, TC_RO, SEC_LOG, tc_replay},
	{"replay step", "TICKS", "move by TICKS (negative: back)", "", 1, 1, TC_RO, SEC_LOG, tc_replay},
	{"replay play", "?SPEED?", "play at SPEED times real time (default 1; 0 pauses)", "", 0, 1, TC_RO, SEC_LOG, tc_replay},
	{"replay info", "", "start, end, now and speed of the replay", "", 0, 0, TC_RO, SEC_LOG, tc_replay},
	/* ---- console ---- */
	{"ui bind", "KEY SCRIPT ?-table TABLE?", "bind a key (in the root table by default) to a script", "table=", 2, 2, TC_RO, SEC_UI, tc_ui_bind},
	{"ui bindings", "", "the bindings made by scripts: a list of {table key script}", "", 0, 0, TC_RO, SEC_UI, tc_ui_bindings},
	{"ui panel", "NAME", "show a panel: utilization topology power faults jobs node log job, or next, prev", "", 1, 1, TC_RO, SEC_UI, tc_ui_panel},
	{"ui confirm", "?on|off?", "whether an acting command typed at the : line asks first, as the keys do (default on); returns 1 or 0",
		"", 0, 1, TC_RO, SEC_UI, tc_ui_confirm},
	{"ui theme", "NAME", "switch the colour theme", "", 1, 1, TC_RO, SEC_UI, tc_ui_theme},
	{"ui message", "TEXT", "show a message on the status line", "", 1, 1, TC_RO | TC_SAFE, SEC_UI, tc_ui_message},
	{"ui selection", "?WHAT?", "what the cursor is on: a dict, or one of node gpu job fault panel", "", 0, 1, TC_RO, SEC_UI, tc_ui_selection},
	{"ui do", "ACTION ?ARG?", "one of the console's own actions: help filter command-line quit refresh select", "", 1, 2, TC_RO, SEC_UI, tc_ui_do},
	{"confirm", "TEXT ?SCRIPT?", "ask yes or no: in a coroutine returns 1 or 0; else SCRIPT runs later with the answer appended",
		"", 1, 2, TC_RO, SEC_UI, tc_confirm},
	{"prompt", "TEXT ?SCRIPT?", "ask for a line of text, as confirm does", "", 1, 2, TC_RO, SEC_UI, tc_prompt},
	{"notify", "TEXT ?-level info|warn|error?", "tell the operator: the status line, or a line with the cluster time on stdout in batch",
		"level=", 1, 1, TC_RO | TC_SAFE, SEC_UI, tc_notify},
	{"fanout", "-w NODESET ?-timeout DURATION? ?-max N? ?-then SCRIPT? ?-dry-run? COMMAND",
		"run COMMAND on nodes over SSH (default timeout 30s); a dict node -> {status output stderr why conn}. "
		"Batch waits for it; the console never does: -then SCRIPT gets the dict appended, a coroutine "
		"yields until it, at the : line the outputs go to the log panel; -max N: refuse more than N nodes (131072)",
		"w= timeout= max= then= dry-run", 1, 1, 0, SEC_FANOUT, tc_fanout},
	/* ---- configuration ---- */
	{"sim", "?SPEC?", "start the embedded simulator (gpus=2048,seed=3,accel=1,start=...,load=0.9); ignored when --sim is given",
		"", 0, 1, TC_RO, SEC_CONFIG, tc_sim},
	{"host", "NODESET ?-user U? ?-port P? ?-identity FILE? ?-via GATEWAY? ?-hostname ADDR? ?-gpus N?",
		"declare GPU nodes reached over SSH (in -user and -hostname, %n is the node's name; "
		"-via: a gateway whose one session carries every node's connection, a host of the "
		"configuration or an ssh_config name)",
		"", 1, -1, TC_RO | TC_RAW, SEC_CONFIG, tc_inventory_word},
	{"service", "NAME -host HOST ?-user U? ?-port P? ?-identity FILE? ?-via GW? ?-hostname ADDR? ?-command CMD? ?-every SECONDS?",
		"declare a service host: slurm (squeue/sinfo), facility (the meter command)",
		"", 1, -1, TC_RO | TC_RAW, SEC_CONFIG, tc_inventory_word},
	{"probe", "NAME ?-command CMD? ?-rails LIST?", "override what runs on the nodes: nvidia-smi, kmsg or ib (\"\" disables it); ib -rails: the HCAs in rail order",
		"", 1, -1, TC_RO | TC_RAW, SEC_CONFIG, tc_inventory_word},
	{"hostkey", "HOSTS TYPE BASE64", "trust a host key (a known_hosts line), in memory", "", 3, 3, TC_RO | TC_RAW, SEC_CONFIG, tc_inventory_word},
	{"ssh", "?-accept-new yes|no? ?-config FILE|none? ?-known-hosts FILE|none? ?-log FILE? ?-cluster NAME? ?-connect-timeout S? ?-silence-timeout S? ?-handshakes N? ?-backoff-max S?",
		"options of the SSH transport", "", 0, -1, TC_RO | TC_RAW, SEC_CONFIG, tc_inventory_word},
	{"plugin load", "NAME ?-budget MS? ?-commands N? ?-time MS? ?ARG ...?",
		"load a plugin: NAME.so (a shared object, myriad-plugins(7)) or NAME.tcl (a safe interpreter with its "
		"manifest's commands) from the search path, or a path; the other arguments go to the plugin",
		"", 1, -1, TC_RO | TC_RAW, SEC_CONFIG, tc_plugin},
	{"plugin list", "", "plugins as dicts: name version state why path summary (built in, loaded, available)",
		"", 0, 0, TC_RO | TC_SAFE, SEC_CONFIG, tc_plugin_list},
	{"theme", "NAME", "the colour theme the console starts with", "", 1, 1, TC_RO, SEC_CONFIG, tc_theme},
	{"inventory", "", "what host, service and probe declared: hosts (a nodeset), nhosts, services, probes, cluster",
		"", 0, 0, TC_RO, SEC_CONFIG, tc_inventory_cmd},
	/* ---- running ---- */
	{"help", "?COMMAND? ?-man?", "the commands, one line each; or one command's usage and flags; -man: this manual page",
		"man", 0, 2, TC_RO | TC_SAFE, SEC_RUN, tc_help},
	{"quit", "?STATUS?", "leave the console, or end a batch run with STATUS (exit does the same)", "", 0, 1, TC_RO, SEC_RUN, tc_quit},
	{"inject xid", "NODE:INDEX CODE", "test and demo only: the simulator's GPU reports XID CODE at the next tick",
		"", 2, 2, TC_RO | TC_TEST, SEC_RUN, tc_inject},
	{"inject fault", "NODE KIND ?INDEX?", "test and demo only: the simulator makes a fault now (host thermal link_down symbol nic gpu hbm sram gsp)",
		"", 2, 3, TC_RO | TC_TEST, SEC_RUN, tc_inject},
};
/* clang-format on */

const int tc_count = (int)ARRAY_LEN(tc_table);
