/*
 * serve_int.h - state of `myriad-sim serve`, shared by serve.c (sessions,
 * channels, the step), serve_setup.c (keys, listening, the configuration
 * file), serve_cmd.c (what a channel's command does, and routing the
 * simulator's text to channels), serve_slurm.c (the head node's scontrol and
 * scancel), serve_control.c (--control: faults injected from stdin) and
 * serve_exporter.c (--exporter: the fleet as dcgm-exporter over HTTP).
 */
#ifndef MYRIAD_SIM_SERVE_INT_H
#define MYRIAD_SIM_SERVE_INT_H

#include <libssh/libssh.h>
#include <libssh/callbacks.h>
#include <libssh/server.h>
#include "serve.h"
#include "sim.h"
#include "../loop.h"
#include "../util.h"

#define NODE_HEAD (-2)             /* login "head01": the Slurm head node */
#define NODE_BMS (-3)              /* login "bms01": the facility meter */
#define OUT_MAX ((size_t)8 << 20)  /* pending output per channel before we drop */

enum chan_kind { CK_NONE, CK_NVSMI, CK_KMSG, CK_IB, CK_ONESHOT, CK_SLEEP };

struct schan {
	struct sess *sess;
	struct schan *next;          /* in the session */
	struct schan *sub_next;      /* in the node's subscriber list */
	ssh_channel ch;
	struct ssh_channel_callbacks_struct cb;
	int kind;                    /* enum chan_kind */
	char *cmd;                   /* exec request not yet handled */
	struct sbuf out;
	size_t off;
	int status;                  /* exit status once output is sent */
	int finishing, closed, dead;
	int64_t wake;                /* CK_SLEEP: mono us */
};

struct sess {
	struct srv *srv;
	struct sess *next;
	ssh_session s;
	ssh_event ev;
	struct ssh_server_callbacks_struct cb;
	int fd, watched;
	int node;                    /* node index, NODE_HEAD, NODE_BMS, or -1 before auth */
	char user[32];               /* the login name, once authenticated */
	int kex_done, dead;
	int64_t deadline;            /* until authenticated */
	struct schan *chans;
};

struct srv_ctl {                 /* --control -: commands on stdin, answers on stdout */
	int in, out;                 /* 0 and 1 while open, -1 once closed */
	int in_watched, out_watched, discarding;
	struct sbuf line;            /* the input line being read */
	struct sbuf ans;             /* answers not yet written */
	size_t ans_off;
};

struct srv {
	struct sim *sim;
	const struct serve_opts *o;
	struct loop *loop;
	ssh_bind bind;
	int bind_fd;
	ssh_key client;              /* the one public key accepted */
	struct sess *sessions;
	int nsessions;
	struct schan **subs;         /* nodes x 3 (nvsmi, kmsg, ib) lists */
	struct sbuf *last_nvsmi;     /* per node: the latest second of nvidia-smi */
	struct sbuf docs[3];         /* sinfo, squeue, facility */
	int32_t nodes;
	int name_width;
	int64_t accepted, logins, commands, dropped;
	struct srv_ctl ctl;
	struct exporter *exp;        /* --exporter, NULL if not asked for */
	int exp_port;
};

/* serve.c */
void srv_on_bind(void *ctx, int fd, int events);      /* accept what is waiting */
void srv_on_step(void *ctx, int64_t id);             /* one simulated second */
void srv_on_housekeeping(void *ctx, int64_t id);     /* timeouts, sleeps */
void srv_free_sessions(struct srv *srv);
void srv_kick(struct srv *srv, int node);           /* write what is queued now (node -1: all) */

/* serve_cmd.c */
int srv_node_of(const struct srv *srv, const char *user);
void srv_node_name(const struct srv *srv, int node, char *out, size_t cap);
void chan_start(struct schan *c);                 /* handle the exec request */
void srv_sim_text(void *ctx, enum sim_stream s, int32_t node, const char *buf, size_t n);
void chan_unsubscribe(struct schan *c);
void chan_queue(struct schan *c, const char *buf, size_t n);
void chan_answer(struct schan *c, int status, const char *out, size_t n, const char *err);
int srv_subscribers(const struct srv *srv, int node, int kind);
void srv_refresh_docs(struct srv *srv);           /* sinfo and squeue now, time unchanged */

/* serve_slurm.c: scontrol and scancel on the head node; -1 if w[0] is neither */
int slurm_command(struct schan *c, int n, char **w);

/* serve_control.c */
void ctl_start(struct srv *srv);
void ctl_free(struct srv *srv);

/* serve_exporter.c: listen on addr:*port (0: any; the port is written back);
 * 0 or -1. exp_kmsg reads a node's kernel lines for the XID gauge. */
int exp_start(struct srv *srv, const char *addr, int *port);
void exp_kmsg(struct srv *srv, int32_t node, const char *buf, size_t n);
void exp_free(struct srv *srv);

#endif
