/*
 * slurm_doc.c - an `sinfo --json` or `squeue --json` document read as it
 * arrives (parse.h, slurm_doc_*), and the whole-document parsers
 * slurm_parse_nodes and slurm_parse_jobs on top of it.
 *
 * At 12,800 nodes and a few thousand jobs the documents are some 13 and 4
 * MB: jansson took about half a second for them, in one piece, when the
 * poll's last byte came. Here the top-level object is followed byte by byte
 * and each element of its "nodes", "sinfo" or "jobs" array is read (jtape.h)
 * into a record as soon as its last byte is there, every other member just
 * checked; what is left when the document ends is the callbacks. The records
 * wait for the end: a document that turns out bad says nothing, as before.
 *
 * jtape refuses what jansson refuses; when it refuses, jansson reads the
 * whole document once more, so that a bad document is said in jansson's
 * words ("not JSON (line 3, column 7)"), as it always was.
 */
#include <jansson.h>
#include <string.h>
#include "slurm_int.h"

enum { K_OTHER = -1, K_NODES, K_SINFO, K_JOBS, K_COUNT };
enum { S_OPEN, S_FIRST_KEY, S_KEY, S_COLON, S_VALUE, S_FIRST_ELEM, S_ELEM, S_ELEM_SEP, S_MEMBER_SEP, S_DONE };

struct slurm_doc {
	int jobs;                     /* squeue (else sinfo) */
	int state, kind, failed;
	size_t pos;                   /* read up to here */
	size_t wait_for;              /* a value cut short: read again once the bytes reach this */
	int is_array[K_COUNT];        /* the member was there, an array */
	char **keys;                  /* the top level's keys so far */
	size_t nkeys;
	struct jtape tape;
	struct slurm_node_rec *nodes[2];   /* from "nodes", from "sinfo" */
	size_t nnodes[2], cap[2];
	int bad[K_COUNT];
	struct slurm_job_rec *job;
	size_t njobs, jcap;
};

struct slurm_doc *slurm_doc_new(int jobs)
{
	struct slurm_doc *d = xcalloc(1, sizeof *d);

	d->jobs = jobs;
	return d;
}

void slurm_doc_reset(struct slurm_doc *d)
{
	for (size_t i = 0; i < d->nkeys; i++)
		free(d->keys[i]);
	d->nkeys = 0;
	d->state = S_OPEN;
	d->failed = 0;
	d->pos = d->wait_for = 0;
	memset(d->is_array, 0, sizeof d->is_array);
	memset(d->bad, 0, sizeof d->bad);
	d->nnodes[0] = d->nnodes[1] = d->njobs = 0;
}

void slurm_doc_free(struct slurm_doc *d)
{
	if (!d)
		return;
	slurm_doc_reset(d);
	free(d->keys);
	jt_free(&d->tape);
	free(d->nodes[0]);
	free(d->nodes[1]);
	free(d->job);
	free(d);
}

static void add_node(struct slurm_doc *d, int k, const struct slurm_node_rec *r)
{
	if (d->nnodes[k] == d->cap[k]) {
		d->cap[k] = d->cap[k] ? d->cap[k] * 2 : 256;
		d->nodes[k] = xrealloc(d->nodes[k], sizeof *d->nodes[k] * d->cap[k]);
	}
	d->nodes[k][d->nnodes[k]++] = *r;
}

/* One element of the array being read: its record(s), or a rejected one. */
static void element(struct slurm_doc *d)
{
	struct jtape *t = &d->tape;
	struct slurm_node_rec r;
	struct slurm_job_rec j;
	int names, nm;
	uint32_t i;

	if (d->kind == K_JOBS) {
		if (slurm_job_of(t, 0, &j) < 0) {
			d->bad[K_JOBS]++;
			return;
		}
		if (d->njobs == d->jcap) {
			d->jcap = d->jcap ? d->jcap * 2 : 64;
			d->job = xrealloc(d->job, sizeof *d->job * d->jcap);
		}
		d->job[d->njobs++] = j;
	} else if (d->kind == K_NODES) {
		if (slurm_node_of(t, 0, &r) < 0)
			d->bad[K_NODES]++;
		else
			add_node(d, K_NODES, &r);
	} else if (slurm_sinfo_group(t, 0, &r, &names) < 0) {
		d->bad[K_SINFO]++;
	} else {
		jt_foreach(t, names, i, nm) {
			const char *s = jt_str(t, nm);

			if (!s || !*s || strlen(s) >= sizeof r.name) {
				d->bad[K_SINFO]++;
				continue;
			}
			parse_copy(r.name, sizeof r.name, s, strlen(s));
			add_node(d, K_SINFO, &r);
		}
	}
}

/* The member whose key was just read: one of the arrays of records? */
static int key_kind(const struct slurm_doc *d, const char *key)
{
	if (d->jobs)
		return !strcmp(key, "jobs") ? K_JOBS : K_OTHER;
	return !strcmp(key, "nodes") ? K_NODES : !strcmp(key, "sinfo") ? K_SINFO : K_OTHER;
}

static int new_key(struct slurm_doc *d, const char *key)
{
	for (size_t i = 0; i < d->nkeys; i++)
		if (!strcmp(d->keys[i], key))
			return -1;   /* JSON_REJECT_DUPLICATES */
	d->keys = xrealloc(d->keys, sizeof *d->keys * (d->nkeys + 1));
	d->keys[d->nkeys++] = xstrdup(key);
	d->kind = key_kind(d, key);
	return 0;
}

/* A whole value at pos (depth: its container's), then state next. 1 when
 * it is not all there yet. */
static int whole_value(struct slurm_doc *d, const char *buf, size_t len, int depth, int final, int next)
{
	size_t start = d->pos;
	int rc;

	if (!final && len < d->wait_for)
		return 1;
	rc = jt_read(&d->tape, buf, &d->pos, len, depth, final);
	if (rc == JT_MORE) {
		d->wait_for = len + (len - start);   /* a long value is not read again at every piece */
		return 1;
	}
	d->wait_for = 0;
	if (rc != JT_OK) {
		d->failed = 1;
		return 0;
	}
	if (next == S_COLON && new_key(d, jt_str(&d->tape, 0)) < 0)
		d->failed = 1;
	else if (next == S_ELEM_SEP)
		element(d);
	d->state = next;
	return 0;
}

/* One step of the top level at byte c; 1 to wait for more bytes. */
static int step(struct slurm_doc *d, const char *buf, size_t len, int final)
{
	char c = buf[d->pos];
	int expect = -1;

	switch (d->state) {
	case S_OPEN: expect = '{'; d->state = S_FIRST_KEY; break;
	case S_FIRST_KEY:
		if (c == '}') {
			d->pos++;
			d->state = S_DONE;
			return 0;
		}
		d->state = S_KEY;
		return 0;
	case S_KEY:
		if (c != '"')
			break;
		return whole_value(d, buf, len, 1, final, S_COLON);
	case S_COLON: expect = ':'; d->state = S_VALUE; break;
	case S_VALUE:
		if (c == '[' && d->kind != K_OTHER) {
			d->pos++;
			d->is_array[d->kind] = 1;
			d->state = S_FIRST_ELEM;
			return 0;
		}
		return whole_value(d, buf, len, 1, final, S_MEMBER_SEP);
	case S_FIRST_ELEM:
		if (c == ']') {
			d->pos++;
			d->state = S_MEMBER_SEP;
			return 0;
		}
		d->state = S_ELEM;
		return 0;
	case S_ELEM: return whole_value(d, buf, len, 2, final, S_ELEM_SEP);
	case S_ELEM_SEP:
	case S_MEMBER_SEP:
		if (c == ',' || c == (d->state == S_ELEM_SEP ? ']' : '}')) {
			d->pos++;
			d->state = c != ',' ? (d->state == S_ELEM_SEP ? S_MEMBER_SEP : S_DONE)
					    : (d->state == S_ELEM_SEP ? S_ELEM : S_KEY);
			return 0;
		}
		break;
	default: break;   /* S_DONE: only whitespace may follow */
	}
	if (expect >= 0 && c == expect)
		d->pos++;
	else
		d->failed = 1;
	return 0;
}

static void advance(struct slurm_doc *d, const char *buf, size_t len, int final)
{
	while (!d->failed) {
		while (d->pos < len && (buf[d->pos] == ' ' || buf[d->pos] == '\n' || buf[d->pos] == '\r' ||
					buf[d->pos] == '\t'))
			d->pos++;
		if (d->pos >= len || step(d, buf, len, final))
			return;
	}
}

void slurm_doc_more(struct slurm_doc *d, const char *buf, size_t len)
{
	advance(d, buf, len, 0);
}

/* ---- the end ---- */

/* The fast reader gave up: jansson says why (it always refuses too). */
static char *jansson_says(const char *buf, size_t len, json_t **root)
{
	json_error_t je;

	*root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	if (!*root)
		return xasprintf("not JSON (line %d, column %d)", je.line, je.column);
	if (!json_is_object(*root))
		return xstrdup("not a JSON object");
	return NULL;
}

/* jansson took a document the fast reader refused (a bug of jtape): read
 * jansson's compact print of it instead. */
static char *read_as_jansson(struct slurm_doc *d, json_t *root)
{
	char *txt = json_dumps(root, JSON_COMPACT);

	slurm_doc_reset(d);
	if (txt)
		advance(d, txt, strlen(txt), 1);
	if (!txt || d->failed || d->state != S_DONE) {
		free(txt);
		return xstrdup("not JSON (refused by the document reader)");
	}
	free(txt);
	return NULL;
}

static int records(struct slurm_doc *d, void (*node_fn)(void *, const struct slurm_node_rec *),
		   void (*job_fn)(void *, const struct slurm_job_rec *), void *ctx, int *rejected, char **err)
{
	int k = d->is_array[K_NODES] ? K_NODES : K_SINFO, n;

	if (d->jobs ? !d->is_array[K_JOBS] : !d->is_array[K_NODES] && !d->is_array[K_SINFO]) {
		*err = d->jobs ? xstrdup("no \"jobs\" array") : xstrdup("no \"nodes\" or \"sinfo\" array");
		return -1;
	}
	n = d->jobs ? (int)d->njobs : (int)d->nnodes[k];
	for (int i = 0; i < n; i++)
		if (d->jobs && job_fn)
			job_fn(ctx, &d->job[i]);
		else if (!d->jobs && node_fn)
			node_fn(ctx, &d->nodes[k][i]);
	if (rejected)
		*rejected = d->bad[d->jobs ? K_JOBS : k];
	return n;
}

int slurm_doc_end(struct slurm_doc *d, const char *buf, size_t len,
		  void (*node_fn)(void *ctx, const struct slurm_node_rec *r),
		  void (*job_fn)(void *ctx, const struct slurm_job_rec *r), void *ctx, int *rejected, char **err)
{
	int n = -1;

	if (rejected)
		*rejected = 0;
	*err = NULL;
	if (!buf) {
		*err = xstrdup("no input");
	} else {
		advance(d, buf, len, 1);
		if (d->failed || d->state != S_DONE) {
			json_t *root = NULL;

			*err = jansson_says(buf, len, &root);
			if (!*err)
				*err = read_as_jansson(d, root);
			json_decref(root);
		}
		if (!*err)
			n = records(d, node_fn, job_fn, ctx, rejected, err);
	}
	slurm_doc_reset(d);
	return n;
}

int slurm_parse_nodes(const char *json, size_t len, void (*fn)(void *ctx, const struct slurm_node_rec *r),
		      void *ctx, int *rejected, char **err)
{
	struct slurm_doc *d = slurm_doc_new(0);
	int n = slurm_doc_end(d, json, len, fn, NULL, ctx, rejected, err);

	slurm_doc_free(d);
	return n;
}

int slurm_parse_jobs(const char *json, size_t len, void (*fn)(void *ctx, const struct slurm_job_rec *r),
		     void *ctx, int *rejected, char **err)
{
	struct slurm_doc *d = slurm_doc_new(1);
	int n = slurm_doc_end(d, json, len, NULL, fn, ctx, rejected, err);

	slurm_doc_free(d);
	return n;
}
