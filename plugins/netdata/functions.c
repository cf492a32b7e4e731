#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <yajl/yajl_gen.h>

#include "memz/procfs.h"
#include "memz/sanitize.h"
#include "fnviews.h"
#include "functions.h"
#include "ndtable.h"

#define MAX_WORDS 20

/* The same splitting netdata applies to what it reads, so a call is seen
 * the way netdata meant it. */
static int split(char *s, char **w, int max)
{
	int n = 0;

	while (*s && n < max) {
		while (*s == ' ' || *s == '\t' || *s == '=')
			s++;
		if (!*s)
			break;
		if (*s == '"' || *s == '\'') {
			char q = *s++;
			w[n++] = s;
			while (*s && *s != q)
				s++;
		} else {
			w[n++] = s;
			while (*s && *s != ' ' && *s != '\t' && *s != '=')
				s++;
		}
		if (*s)
			*s++ = '\0';
	}
	return n;
}

enum fn { FN_TOP, FN_INSPECT, FN_OOM, FN_NONE };

static const char *const fn_names[] = { "memz-top", "memz-inspect",
					"memz-oom" };
/* what each takes, for the 400's reason */
static const char *const fn_takes[] = {
	"memz-top takes info, groups, processes, view:groups|processes and group:NAME",
	"memz-inspect takes info and pid:N (or N)",
	"memz-oom takes info",
};

/* The words netdata's UIs add to any table function's call (1.37's after:
 * and before:, 2.x's query words): not memz's business, never an error. */
static bool netdata_word(const char *w)
{
	static const char *const keys[] = { "after:", "before:", "last:",
		"timeout:", "anchor:", "direction:", "query:", "slice:",
		"data_only:", "delta:", "tail:", "sampling:", "histogram:",
		"facets:", "if_modified_since:", "source:", NULL };

	for (int i = 0; keys[i]; i++)
		if (!strncmp(w, keys[i], strlen(keys[i])))
			return true;
	return false;
}

/* Shown in a reply: label-safe and short, whatever the caller sent. */
static void bad(char *out, size_t len, const char *fmt, const char *word,
		const char *more)
{
	char shown[64];

	memz_sanitize_label(word, strlen(word), shown, sizeof shown);
	snprintf(out, len, fmt, shown, more);
}

/* 0, or 400's reason in why[len]. */
static int parse_args(enum fn fn, char **a, int na, struct memz_nd_args *p,
		      char *why, size_t len)
{
	memset(p, 0, sizeof *p);
	for (int i = 1; i < na; i++) {
		const char *w = a[i];

		if (!strcmp(w, "info")) {
			p->info = true;
		} else if (netdata_word(w)) {
			continue;
		} else if (fn == FN_TOP && (!strcmp(w, "groups") ||
					    !strcmp(w, "view:groups"))) {
			p->processes = false;
		} else if (fn == FN_TOP && (!strcmp(w, "processes") ||
					    !strcmp(w, "view:processes"))) {
			p->processes = true;
		} else if (fn == FN_TOP && !strncmp(w, "view:", 5)) {
			bad(why, len, "view must be groups or processes, not '%s'%s",
			    w + 5, "");
			return -EINVAL;
		} else if (fn == FN_TOP && !strncmp(w, "group:", 6)) {
			p->processes = true;
			p->group = w + 6;
		} else if (fn == FN_INSPECT &&
			   (!strncmp(w, "pid:", 4) || (w[0] >= '0' && w[0] <= '9'))) {
			const char *v = w[0] == 'p' ? w + 4 : w;
			if (memz_parse_pid(v, strlen(v), &p->pid)) {
				bad(why, len, "pid must be a process id (1 to 2147483647), not '%s'%s",
				    v, "");
				return -EINVAL;
			}
			p->has_pid = true;
		} else {
			bad(why, len, "unknown parameter '%s': %s", w,
			    fn_takes[fn]);
			return -EINVAL;
		}
	}
	return 0;
}

static int function_body(yajl_gen g, char *fn, const struct memz_nd_fctx *ctx)
{
	char *a[MAX_WORDS], why[256];
	int na = split(fn, a, MAX_WORDS);
	enum fn f = FN_NONE;
	struct memz_nd_args args;

	for (int i = 0; na >= 1 && i < FN_NONE; i++)
		if (!strcmp(a[0], fn_names[i]))
			f = (enum fn)i;
	if (f == FN_NONE) {
		memz_nd_error_body(g, 404, "unknown function (memz has memz-top, memz-inspect and memz-oom)");
		return 404;
	}
	if (parse_args(f, a, na, &args, why, sizeof why)) {
		memz_nd_error_body(g, 400, why);
		return 400;
	}
	if (!ctx->snap && !args.info) {
		memz_nd_error_body(g, 503, "memz has not sampled yet");
		return 503;
	}
	switch (f) {
	case FN_TOP:
		return memz_nd_view_top(g, ctx, &args);
	case FN_INSPECT:
		return memz_nd_view_inspect(g, ctx, &args);
	default:
		return memz_nd_view_oom(g, ctx, &args);
	}
}

static int result(FILE *out, const char *tx, int status, int update_every,
		  const unsigned char *body, size_t blen, size_t *bytes)
{
	if (bytes)
		*bytes += blen;
	fprintf(out, "FUNCTION_RESULT_BEGIN %s %d application/json %lld\n",
		tx, status, (long long)time(NULL) + update_every);
	fwrite(body, 1, blen, out);
	fputs("\nFUNCTION_RESULT_END\n", out);
	return fflush(out) || ferror(out) ? -EIO : 0;
}

static int answer_error(FILE *out, const char *tx, int status,
			const char *msg, int update_every)
{
	yajl_gen g = yajl_gen_alloc(NULL);
	const unsigned char *body;
	size_t blen;
	int rc;

	if (!g)
		return -ENOMEM;
	memz_nd_error_body(g, status, msg);
	yajl_gen_get_buf(g, &body, &blen);
	rc = result(out, tx, status, update_every, body, blen, NULL);
	yajl_gen_free(g);
	return rc;
}

static int answer(FILE *out, const char *tx, const char *fn,
		  const struct memz_nd_fctx *ctx, size_t *bytes)
{
	char copy[MEMZ_ND_LINE_MAX];
	const unsigned char *body;
	size_t blen;
	yajl_gen g;
	int status, rc;

	snprintf(copy, sizeof copy, "%s", fn);
	if (!(g = yajl_gen_alloc(NULL)))
		return -ENOMEM;
	status = function_body(g, copy, ctx);
	yajl_gen_get_buf(g, &body, &blen);
	rc = result(out, tx, status, ctx->update_every, body, blen, bytes);
	yajl_gen_free(g);
	return rc;
}

int memz_nd_answer(FILE *out, const char *tx, const char *fn,
		   const struct memz_nd_fctx *ctx)
{
	return answer(out, tx, fn, ctx, NULL);
}

/* A transaction id goes back on our stdout as one word: it must be one
 * netdata splits as one word and that fits. */
static bool usable_tx(const char *tx)
{
	size_t n = strlen(tx);

	if (!n || n >= MEMZ_ND_TX_MAX)
		return false;
	for (const char *p = tx; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '-' || c == '_' ||
		      c == '.'))
			return false;
	}
	return true;
}

static struct memz_nd_call *slot(struct memz_nd_input *in, size_t i)
{
	return &in->q[(in->head + i) % MEMZ_ND_QUEUE];
}

static int cancel(struct memz_nd_input *in, FILE *out, const char *tx,
		  int update_every)
{
	for (size_t i = 0; i < in->count; i++) {
		if (strcmp(slot(in, i)->tx, tx))
			continue;
		/* close the gap, keeping the order of the others */
		for (size_t j = i; j + 1 < in->count; j++)
			*slot(in, j) = *slot(in, j + 1);
		in->count--;
		in->cancelled++;
		return answer_error(out, tx, 499, "cancelled", update_every);
	}
	return 0; /* answered already, or never ours */
}

int memz_nd_input_line(struct memz_nd_input *in, FILE *out, char *s,
		       const struct memz_nd_fctx *ctx, double now)
{
	char *w[MAX_WORDS];
	int nw;

	if (in->in_payload) {
		if (!strcmp(s, "FUNCTION_PAYLOAD_END"))
			in->in_payload = false;
		return 0;
	}
	nw = split(s, w, MAX_WORDS);
	if (nw == 1 && !strcmp(w[0], "QUIT")) {
		in->quit = true;
		return 0;
	}
	if (nw >= 2 && !strcmp(w[0], "FUNCTION_CANCEL"))
		return usable_tx(w[1]) ? cancel(in, out, w[1], ctx->update_every)
				       : 0;
	if (nw < 1)
		return 0;
	/* A call with a body (2.x's POST) comes as FUNCTION_PAYLOAD with
	 * FUNCTION's words and a content type, the body's lines, and a line
	 * FUNCTION_PAYLOAD_END (2.10.4's src/plugins.d/pluginsd_functions.c).
	 * memz's functions take their parameters as words, so the call is
	 * queued as if it had no body, as apps.plugin answers it, and the
	 * body, which the remote caller wrote, is skipped unread: none of its
	 * lines is taken for a command, nothing of it is kept. */
	if (!strcmp(w[0], "FUNCTION_PAYLOAD"))
		in->in_payload = true;
	else if (strcmp(w[0], "FUNCTION"))
		return 0; /* FUNCTION_PROGRESS and the like need no answer */
	if (nw < 4)
		return 0;
	if (!usable_tx(w[1])) {
		in->bad_tx++;
		return 0;
	}
	if (in->count == MEMZ_ND_QUEUE) {
		in->busy++;
		return answer_error(out, w[1], 503,
				    "memz.plugin is busy: too many function calls queued, retry later",
				    ctx->update_every);
	}
	{
		struct memz_nd_call *c = slot(in, in->count);
		char *end;
		long t = strtol(w[2], &end, 10);

		snprintf(c->tx, sizeof c->tx, "%s", w[1]);
		snprintf(c->fn, sizeof c->fn, "%s", w[3]);
		c->deadline = now + (*end || t <= 0 || t > 3600 ? 10 : t);
		in->count++;
	}
	return 0;
}

int memz_nd_input_init(struct memz_nd_input *in)
{
	memset(in, 0, sizeof *in);
	in->q = calloc(MEMZ_ND_QUEUE, sizeof *in->q);
	return in->q ? 0 : -ENOMEM;
}

void memz_nd_input_release(struct memz_nd_input *in)
{
	free(in->q);
	in->q = NULL;
	in->count = 0;
}

/* Whether a line too long to take (buf[len] is free) is the start of a
 * call with a body: its body must be skipped all the same, or the caller's
 * lines in it would be read as commands. The keyword must end inside what
 * was taken. */
static bool opens_payload(char *buf, size_t len)
{
	char *w[1];

	buf[len] = '\0';
	return split(buf, w, 1) == 1 && !strcmp(w[0], "FUNCTION_PAYLOAD") &&
	       w[0] + strlen(w[0]) < buf + len;
}

int memz_nd_input_read(struct memz_nd_input *in, int fd, FILE *out,
		       const struct memz_nd_fctx *ctx, double now)
{
	size_t taken = 0;

	while (taken < MEMZ_ND_READ_BUDGET && !in->quit) {
		ssize_t n = read(fd, in->buf + in->len, sizeof in->buf - 1 - in->len);
		size_t start = 0;

		if (n < 0) {
			/* EINTR: back to the loop, which may have a signal to
			 * act on; any other error ends input like EOF would */
			if (errno != EINTR && errno != EAGAIN &&
			    errno != EWOULDBLOCK)
				in->eof = true;
			return 0;
		}
		if (n == 0) {
			in->eof = true;
			return 0;
		}
		taken += (size_t)n;
		in->len += (size_t)n;
		for (size_t i = 0; i < in->len && !in->quit; i++) {
			if (in->buf[i] != '\n')
				continue;
			in->buf[i] = '\0';
			if (!in->discarding &&
			    memz_nd_input_line(in, out, in->buf + start, ctx,
					       now))
				return -EIO;
			in->discarding = false;
			start = i + 1;
		}
		memmove(in->buf, in->buf + start, in->len - start);
		in->len -= start;
		if (in->len == sizeof in->buf - 1) {
			if (!in->discarding && !in->in_payload &&
			    opens_payload(in->buf, in->len))
				in->in_payload = true;
			in->discarding = true;
			in->len = 0;
		}
	}
	return 0;
}

int memz_nd_serve(struct memz_nd_input *in, FILE *out,
		  const struct memz_nd_fctx *ctx, double now,
		  double time_budget, size_t byte_budget)
{
	size_t bytes = 0;
	bool served = false;

	while (in->count) {
		struct memz_nd_call *c = slot(in, 0);

		if (served && (memz_now() - now >= time_budget ||
			       bytes >= byte_budget))
			break;
		in->head = (in->head + 1) % MEMZ_ND_QUEUE;
		in->count--;
		if (memz_now() > c->deadline) {
			in->expired++;
			continue;
		}
		if (answer(out, c->tx, c->fn, ctx, &bytes))
			return -EIO;
		served = true;
	}
	return 0;
}
