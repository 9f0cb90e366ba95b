/*
 * man_text.h - the prose of man/myriad-tcl.7 around the command list, which
 * help.c generates from the table. Lines starting with ".X" (a capital) are
 * troff requests; other lines are text, escaped by help.c. Included by
 * help.c only.
 */
#ifndef MYRIAD_TCL_MAN_TEXT_H
#define MYRIAD_TCL_MAN_TEXT_H

static const char *const man_intro[] = {
	".SH NAME",
	"myriad-tcl - the command language of myriad: configuration, key bindings, hooks and runbooks",
	".SH SYNOPSIS",
	".B myriad",
	"[-c CONFIG | --sim SPEC] [--read-only] [--dry-run] [--json] [--ticks T] -e SCRIPT",
	".br",
	".B myriad",
	"[-c CONFIG | --sim SPEC] [--read-only] [--dry-run] [--json] [--ticks T] run RUNBOOK.tcl [ARGS...]",
	".br",
	"the console's : line, its key bindings, and the configuration file",
	".SH DESCRIPTION",
	"One embedded Tcl 8.6 interpreter is myriad's command language. The : line of the console, every key "
	"binding, every hook, the configuration file, batch runbooks and the tests all call the same commands, "
	"declared once in one command table; this page, help and completion are generated from that table.",
	".PP",
	"Commands are ensembles with -option value arguments: an argument is an option only when it is exactly "
	"the name of one of the command's options, and -- ends the options. Results are Tcl lists and dicts. "
	"Subcommands may be abbreviated to a unique prefix. Errors set errorCode to {MYRIAD KIND}, where KIND is "
	"USAGE, INPUT, READONLY, GUARD, CONFIG, NOBACKEND, BACKEND, TIMEOUT, UNREACHABLE, NOTAVAIL, TIME, BLOCK, UI, "
	"STORE, SAFE or EXIT.",
	".PP",
	"Nodesets use ClusterShell syntax and must be braced in Tcl, where brackets are command substitution: "
	"node drain {gpu[0001-0004]} -reason \"xid79 gpu3 fallen-off-bus\". They are read as ClusterShell 1.9 "
	"reads them, with its errors (n[01-100] and n[1-4]0[3-4] are errors, as a typo must not select nodes), "
	"and folded as it folds, in every number: gpu[0001-1280]-ib[0-7], n[1,03,05]; names are ordered by "
	"their numbers. Topology groups: @all, @su:N, "
	"@rack:N, @leaf:SU.RAIL (the nodes cabled to that leaf switch), @job:ID, @state:S. Scalable units and "
	"racks count from 1, as the switch names (leaf-s03-r5) do; GPU indexes and rails count from 0, as "
	"nvidia-smi does. One GPU is NODE:INDEX, as gpu0007:3.",
	".PP",
	"Every string that comes from outside (job names, node output) is passed as a Tcl value, never pasted "
	"into a script: a hostile job name cannot break a command.",
	".SH COMMANDS",
	"Each entry gives the usage, what the command does, and its flags from the table: whether it acts on the "
	"cluster, needs a backend, is allowed in read-only mode and in the safe interpreter.",
	NULL,
};

static const char *const man_rest[] = {
	".SH HOOKS",
	"on KIND ?FILTER? SCRIPT runs SCRIPT for each event of KIND that passes FILTER and returns a handle "
	"(hook1, hook2 ...) for off. SCRIPT runs at global level as the body of "
	"apply {ev} {dict with ev {}; SCRIPT}: the event's fields are variables, and $ev is the whole dict.",
	".TP",
	".B fault",
	"a fault opened (or, with -event ack|close|any, was acknowledged or closed). Variables: event id time node "
	"gpu (gpu0007:3) index kind code xid severity text action count burst hardware sympathetic. FILTER words "
	"are fault kinds (xid: faults from an XID line, whatever their kind; ecc nvlink ib thermal cooling power "
	"parse conn host; any) and codes (XID numbers with xid); options -node NODESET, -severity LEVEL (at "
	"least), -event E. Example: on fault {xid 79 48 64 95} { node drain $node -reason \"xid$code $gpu\" }",
	".TP",
	".B node",
	"a node's scheduler state or drain reason changed. Variables: node state previous drain reason who time. "
	"FILTER words are states as for nodes -state; option -node NODESET.",
	".TP",
	".B job",
	"a job appeared (event new), changed state (change) or left the queue (end). Variables: id state previous "
	"name user partition nodes gpus time. FILTER words are job states and new, change, end; options -user U, "
	"-node NODESET.",
	".TP",
	".B conn",
	"a host's connection state changed. Variables: node host state detail time. FILTER words are connection "
	"states; options -node, -host.",
	".TP",
	".B tick",
	"every tick (one second of cluster time). Variables: tick time seconds.",
	".TP",
	".B event",
	"every event of the types named in FILTER (xid, sample, ib, power, node_state, job, job_end, fault_ack, "
	"fault_close, parse_error, conn, action, mark ...), as recorded in the log: its fields come from the one "
	"event schema (myriad-log(5) names them), with event, time and source; a node index is also given as "
	"the node's name (node) and node_index. Option -node NODESET. Example: on event action {if {$phase == 3} "
	"{notify \"action $id: $status\"}} reports every action's end. A sample hook runs once per GPU per tick: "
	"prefer fault, node and job hooks where they say what you need.",
	".PP",
	"every DURATION SCRIPT runs SCRIPT every DURATION of cluster time (at least 1s; the tick is the "
	"resolution). Nothing fires for what the sources announce at tick 0 (inventory, the first queue); node "
	"and job hooks fire on changes, never on a repeated poll.",
	".PP",
	"A hook never blocks the loop: vwait and a synchronous after are refused inside hooks, and a hook that "
	"must wait (for a checkpoint, say) starts a coroutine that yields and is resumed by after or by another "
	"hook. Each run of a hook may execute guard -hook-commands commands (default 1000000) and "
	"take guard -hook-ms milliseconds of wall time (default 1000; a loop with no command in it, as while 1 {}, "
	"is stopped only by this one, in a batch run on virtual time too); a hook that fails guard -hook-errors times (default 5) is disabled and "
	"reported; hooks lists them. A command typed at the : line or bound to a key may take guard -command-ms "
	"milliseconds (default 10000).",
	".SH TIME",
	"In the console cluster time passes by itself, one tick per second, and Tcl's after and timers run on "
	"the console's event loop (Tcl's notifier is replaced: its timers are loop timers, its file handlers "
	"loop watches; vwait and a synchronous after are refused there).",
	".PP",
	"In a batch run on the simulator, cluster time is virtual and Tcl's clock (clock seconds, after) is the "
	"cluster's. It moves only while the run waits: advance DURATION (or advance alone: to the end of the "
	"run), a synchronous after MS, a vwait (one tick at a time until the variable is set), and, with --ticks "
	"T, after the script has run until tick T. After every tick the hooks have run and the Tcl timers that "
	"came due run. A vwait may let time pass up to tick T (--ticks), or one hour without --ticks; after that "
	"it fails. Without the simulator a batch run waits in real time.",
	".SH BATCH RUNS",
	"myriad ... -e SCRIPT and myriad ... run RUNBOOK.tcl ARGS run with no terminal; -e runs before the "
	"runbook when both are given. The runbook gets argv, argc and argv0; ::myriad::batch is 1, and "
	"::myriad::ticks is T with --ticks T (the end of the run, which advance alone reaches; with replay --run, "
	"the end of the recording), empty without. Output goes "
	"to stdout (notify prints lines with the cluster time), errors with errorInfo to stderr. The script's "
	"result is printed when it is not empty. exit N (or quit N) ends the run with status N. What goes to a "
	"terminal is printed without escape sequences or control characters (tabs and newlines kept), so that "
	"a job name or a node's output a runbook prints stays inert; to a file or a pipe the bytes pass "
	"unchanged. In the console, puts writes to the log panel (stderr lines marked err), drawn the same way.",
	".PP",
	"With --json stdout holds one JSON object: ok, status, result (dicts become objects, lists arrays, "
	"numbers numbers), error, errorinfo, output (what the script printed), actions (the audit of every "
	"action decided or done), tick and time. --dry-run makes every acting command of the run a dry run.",
	".PP",
	"Runbooks shipped in scripts/: auto-drain.tcl, checkpoint-drain.tcl, drain-leaf.tcl, pue-watch.tcl, "
	"morning-report.tcl, and keys.tcl (the default key bindings). A partial failure is not a success: "
	"checkpoint-drain and drain-leaf do what they can (a node is drained even when one of its jobs cannot be "
	"requeued), say what could not be done, and then end with an error naming all of it (exit status 1, or "
	"2 when the scheduler could not be reached); the result dict of their procs lists it in failed. auto-drain acts from a hook while the run lasts: a drain or reroute refused there is a line of "
	"its output (notify -level error), not the exit status. morning-report reports the end of the run "
	"(tick T with --ticks T).",
	".SH CONFIGURATION",
	"-c FILE, or else $XDG_CONFIG_HOME/myriad/myriad.tcl (~/.config/myriad/myriad.tcl) when it exists and "
	"--sim is not given, is a Tcl script using the same commands, plus sim, host, service, probe, plugin "
	"and theme. With --sim SPEC the simulator starts first and sim in the configuration is ignored. When the "
	"configuration starts no source and declares no host or service, the default simulator starts.",
	".PP",
	"host, service and probe record the inventory for the SSH engine (inventory shows it). Key bindings and "
	"the theme given before the console exists are kept and applied when it starts, after the defaults of "
	"scripts/keys.tcl. The configuration may define hooks but may not act on the cluster, nor exit.",
	".PP",
	"An error names the file and line (FILE:LINE: message) and myriad exits with status 1 (2 when the file "
	"cannot be read): the console never starts half-configured.",
	".SH SAFETY",
	"Every acting command goes through one action engine, which emits an action event for each phase "
	"(requested, decided, sent, result; the recorder keeps them as the audit trail) and applies, in order:",
	".IP 1.",
	"read-only: with --read-only every acting command is refused, from every path (the : line, keys, hooks, "
	"runbooks); a dry run still says what would happen (it sends nothing), which is how a runbook is tried "
	"on a recording: myriad replay FILE --run RUNBOOK (which is a dry run), or myriad --read-only --dry-run "
	"run RUNBOOK on the live cluster.",
	".IP 2.",
	"input: a drain needs a reason in the convention <source><code> <target> <detail>, such as "
	"xid79 gpu3 fallen-off-bus: at most 64 characters, no commas, no control characters.",
	".IP 3.",
	"dry run: --dry-run or -dry-run decides and says what would happen (the nodes, GPUs and jobs it would "
	"touch, and whether it would need confirmation), and sends nothing.",
	".IP 4.",
	"blast radius: when the nodes or GPUs touched by actions within guard -window (default 60s of cluster "
	"time) would exceed guard -nodes (64) or guard -gpus (512), the action is held: the engine itself never "
	"asks; whoever submitted it decides. The console asks the operator and acts on yes; a batch run declines "
	"it (it needs -force -reason TEXT). A checkpoint signal (USR1, USR2, CONT: the job keeps running) does "
	"not count towards the blast radius, so checkpoint-drain's checkpoint does not weigh on its requeue; "
	"any other signal and every requeue count the job's nodes and GPUs "
	"(all the GPUs of its nodes when Slurm does not say how many it holds).",
	".IP 5.",
	"backend: actions reach the scheduler only through the backend (the simulator's, or Slurm's); with none "
	"(a recording) they fail with status 2. The effect comes back from the scheduler: a drain shows when "
	"sinfo says so.",
	".PP",
	"An action sent to the backend is pending until the backend answers or guard -timeout (default 20s of "
	"wall time) passes, and then ends as done, partial (some targets failed: the detail names them), failed "
	"(the detail is the scheduler's own message) or timed-out. A batch run waits for the end (the loop runs "
	"meanwhile) and returns it; the console returns at once with status sent, and the end shows in the log "
	"panel, on the status line (N actions pending) and in action list. Refused, failed and timed-out actions "
	"are errors (errorCode MYRIAD GUARD, BACKEND, UNREACHABLE, TIMEOUT ...); partial is not, its dict says "
	"failed N.",
	".SH WHAT-IF",
	"whatif SCRIPT asks what SCRIPT's actions would do before anyone does them. SCRIPT runs as any script "
	"does, but its acting commands (node drain, node resume, job requeue, job checkpoint) are taken instead of "
	"submitted: the guards give their verdict (input, and the blast radius counting every action of the script "
	"together: allowed, confirm or refused; read-only and the lack of a backend are this session's, not the "
	"action's, and are not consulted), and nothing is sent, held, audited or logged. The model is then forked "
	"into a twin: every node with its state (drained; down, not responding or failed), every running job on "
	"its nodes with the utilization and power its GPUs reported last, every waiting job with its size, the "
	"idle GPUs' power and the facility meter's last reading. The simulator's scheduler (FIFO with backfill), "
	"its submitter (which keeps the queue a little above what can run, as the users of a busy cluster do) "
	"and its power and cooling physics advance the twin one second at a time, -minutes ahead (default 30), "
	"without printing or parsing anything: once as it is, once with the actions applied at the start. Both "
	"futures draw the same random streams (-seed S, default 1): what differs is what the actions changed.",
	".PP",
	"Slurm does not say when a running job will end: the twin draws each job's run time left from the run "
	"times of jobs of its size, beyond what it has run, and the jobs its submitter adds. -runs K repeats with "
	"K seeds (S, S+1, ...) and gives each figure as the mean, with the least and greatest in spread: the "
	"prediction's uncertainty. The twin invents no faults and models nodes of 8 GPUs. Its figures: how many "
	"GPUs and nodes the actions take out of service at once (out), jobs killed (ended cancelled, failed or "
	"node-failed with the actions but not without, having started at the same time in both), requeued and "
	"delayed (starting a minute or more later, or not in the horizon) with the delay's p50 and max in "
	"seconds (jobs; the first seed's job ids in killed_ids, requeued_ids, delayed_ids), and for each future "
	"(without, with): GPUs in service, mean and final utilization of every GPU, IT kW and PUE, queue wait "
	"p50 and p95 in seconds (of the jobs that started, and so far of those still waiting at the end), jobs "
	"started and waiting at the end; series holds both futures minute by minute. A drain lets running jobs "
	"finish, as Slurm's does: its cost is the capacity it holds back, which shows as waits and delays once "
	"the queue needs it. The result is a dict; -json gives it as JSON, -table as a table to read. It works "
	"in --read-only, in batch runs and runbooks, at the console's : line, and on a recording: myriad replay "
	"FILE --at WHEN --whatif ACTIONS [--minutes N] [--runs K] [--json] answers what would have happened had "
	"ACTIONS been done at WHEN. When the blast-radius guard holds an action at the console, its question "
	"shows this what-if in one line. The twins run on the console's loop: at the : line and in a hook, a "
	"what-if that would take more CPU than guard -command-ms or -hook-ms (about 0.15 s per million "
	"GPU-minutes of a future, twice per run) is refused before it starts (errorCode MYRIAD BUDGET).",
	".PP",
	"whatif {node drain @su:3 -reason \"leaf swap\"} -minutes 30 -runs 3 -table",
	".SH TRUST",
	"What runs where, and what it may do:",
	".IP \\(bu 2",
	"The configuration (-c FILE, or the default file) is the site's own: full Tcl (exec, open, source, "
	"socket), like a shell script the site keeps. It may not act on the cluster or exit.",
	".IP \\(bu 2",
	"The : line and the console's keys are the operator at the terminal: full Tcl, acting through the "
	"action engine and its guards. An acting command typed at the : line is held and put to the operator "
	"with what it touches, as the keys d r c a do, before it is sent (ui confirm off turns this off for "
	"experts; a declined one is refused in the audit as declined by the operator); what it returns is "
	"shown as a line (#ID VERB TARGET: STATUS (N nodes, G GPUs) DETAIL), and a nodeset Tcl read as a "
	"command (gpu[0500-0501] unbraced) gets a hint to brace it.",
	".IP \\(bu 2",
	"A runbook (myriad run RUNBOOK, -e SCRIPT) is as trusted as the account that runs it: full Tcl. "
	"Run it with --read-only or --dry-run to try it, or on a recording with myriad replay FILE --run "
	"RUNBOOK: then it runs in a safe interpreter, made so after the configuration was read: no exec, "
	"open, socket, file, source, load, cd, glob, env or interp invokehidden, and none of myriad's "
	"commands that read files or reach hosts (host, service, probe, ssh, hostkey, sim, plugin load, "
	"replay open: error code MYRIAD SANDBOX). It can read the model, the recording (log query) and "
	"say what it would do; it cannot act (read-only refuses, dry-run only says), nor touch files, "
	"processes or the network. puts writes to stdout and stderr.",
	".IP \\(bu 2",
	"A Tcl plugin runs in a safe interpreter of its own with only its manifest's commands, all of "
	"them among those that cannot act (myriad-plugins(7)). A C plugin is code in the process: it can "
	"do anything the process can; load only what you would link.",
	".PP",
	"What every script prints reaches the terminal sanitised (BATCH RUNS).",
	".SH BACKENDS",
	"The backend is where actions go: the embedded simulator's scheduler when the simulator runs, Slurm when "
	"the configuration names service slurm. One call acts on a whole nodeset.",
	".PP",
	"Slurm: every command runs on the head node of service slurm -host HOST over the SSH session myriad "
	"keeps to it (the one that polls sinfo --json and squeue --json), with the service's -user, -via and "
	"key; -bin DIR runs DIR/scontrol, -conf FILE sets SLURM_CONF, -sudo prefixes sudo -n, -signal SIG is the "
	"checkpoint signal (USR1). Every word is quoted for the remote shell: a reason, a job name or a node "
	"name never becomes shell syntax. What each action runs:",
	".IP drain",
	"scontrol update NodeName=NODESET State=DRAIN Reason=TEXT (a drain of a drained node is not an error)",
	".IP resume",
	"scontrol update NodeName=NODESET State=RESUME (a node that is not drained is reported: partial or failed)",
	".IP reroute",
	"scontrol requeue JOB, then, retried every 100 ms while the job is still leaving its nodes, scontrol "
	"update JobId=JOB ExcNodeList=NODESET StartTime=now (Slurm refuses ExcNodeList on a running job, and "
	"without StartTime=now a requeued job waits out its credential's expiry). If the exclusion cannot be "
	"set the action is partial.",
	".IP checkpoint",
	"scancel --full --signal=SIG JOB (--full reaches the batch script too, not only its steps)",
	".PP",
	"When a command for a whole nodeset fails, it is run node by node to tell which nodes failed. Slurm's "
	"message on stderr is the action's detail. After every action sinfo and squeue are read again at once, "
	"so what the console shows is what Slurm says. A head node that refuses the connection or fails to "
	"authenticate fails the action at once (UNREACHABLE, exit status 2); one that is still connecting "
	"holds the command until it is up; one that hangs times out. --dry-run prints the exact command lines.",
	".PP",
	"A second scheduler is one more file of the shape of src/action/backend.h: send(call) starts the work "
	"for a verb (drain, resume, requeue, signal) on a nodeset or a job and answers once with "
	"backend_reply(call, done|partial|failed|unreachable, failed targets, message); cancel(call) stops "
	"waiting; describe(call) prints the commands. For Kubernetes: drain is kubectl cordon plus kubectl "
	"drain --ignore-daemonsets --delete-emptydir-data NODE, resume is kubectl uncordon NODE, reroute is the "
	"eviction of the job's pods (kubectl delete pod, or the Eviction API) with a node anti-affinity, "
	"checkpoint is a signal through kubectl exec.",
	".PP",
	"plugin FILE loads a Tcl script into a safe interpreter that holds only the commands marked safe, with a "
	"command budget (-commands, default 100000) and a time budget of wall time (-time MS, default 1000) "
	"for every call into it, its hooks included, in the console and in batch runs.",
	".SH EXIT STATUS",
	"0 ok; 1 an error in what was asked (a script error, bad input, a guard that refused, a scheduler that "
	"refused the action); 2 could not reach what it needed (a part not available, no backend, a head node "
	"that cannot be reached or does not answer in time, a file that cannot be read).",
	".SH EXAMPLES",
	"myriad --sim gpus=2048,seed=3 -e 'nodes -state drain'",
	".br",
	"myriad --sim gpus=2048,seed=3,accel=600 --ticks 3600 run scripts/auto-drain.tcl",
	".br",
	"myriad --sim gpus=256 --json -e 'node drain {gpu[0001-0002]} -reason \"hc dcgmi-diag-r2 fail\" -dry-run'",
	".br",
	"myriad --sim gpus=2048,seed=3 -e 'whatif {node drain @su:2 -reason \"leaf swap\"} -runs 3 -table'",
	".SH SEE ALSO",
	"myriad(1), tclsh(1), coroutine(n), after(n)",
	NULL,
};

#endif
