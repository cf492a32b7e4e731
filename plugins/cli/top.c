/*
 * memz top: one table of groups or processes, largest PSS first.
 *
 * The name is the last column and is never truncated: it is hostile input
 * whose display width we cannot know, so nothing is aligned after it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* getopt_long */
#endif

#include <getopt.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "memz/cgname.h"
#include "memz/cgroup.h"
#include "memz/report.h"
#include "memz/sampler.h"

enum sort_key { SORT_PSS, SORT_USS, SORT_RSS, SORT_SWAP, SORT_GROWTH,
		SORT_NAME, SORT_PID };

static const char *const sort_names[] = { "pss", "uss", "rss", "swap",
					  "growth", "name", "pid", NULL };

struct row {
	int pid;          /* 0 for a group */
	unsigned members; /* a group's processes */
	const char *name;
	uint64_t pss, uss, rss, swap;
	bool has_growth, leak;
	bool estimated;   /* PSS, USS from status: above ExactMaxRss */
	double growth;
	const struct cli_base_entry *base; /* --baseline: then, or NULL: new */
	/* GroupBy cgroup: what the cgroup is called, its usage and limit */
	const struct memz_cgroup *cg;
	char cgname[MEMZ_CGNAME_MAX];
};

struct top_opts {
	bool processes, users, raw, watch, tty;
	enum sort_key sort;
	double interval;
	unsigned count, limit;
	bool has_limit;
	const char *filter;
	regex_t re;
	bool has_re;
	bool by_cgroup; /* GroupBy cgroup: the cgroup's columns */
	const char *baseline_file;
	struct cli_baseline base;
	bool has_base;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: memz top [OPTIONS]\n"
		"Groups (GroupBy, default the process name), processes or users, by PSS.\n\n"
		"  -p, --processes      one row per process instead of per group\n"
		"  -u, --users          one row per user (uid, named from PasswdFile): its\n"
		"                       processes summed, whatever GroupBy is\n"
		"  -s, --sort KEY       pss (default), uss, rss, swap, growth, name, pid\n"
		"  -w, --watch [SECS]   refresh every SECS (default 2) with growth and [LEAK?]\n"
		"  -c, --count N        stop after N tables (with --watch)\n"
		"  -l, --limit N        at most N rows (0: all; default all, 25 on a terminal)\n"
		"  -f, --filter TEXT    rows whose name or pid contains TEXT\n"
		"  -m, --match REGEX    rows whose name or pid matches REGEX (extended)\n"
		"  -b, --bytes          raw bytes instead of KiB/MiB/GiB\n"
		"      --baseline FILE  a SINCE column: PSS change since FILE, a saved\n"
		"                       `memz json --out FILE` (\"new\": not in it)\n"
		"      --set NAME=VALUE a memz setting (ProcRoot, GroupBy, Leak*, ...)\n"
		"  -h, --help           this text\n\n"
		"GROWTH is the detector's PSS growth estimate; '-' until two samples.\n"

		"With --set GroupBy=cgroup, NAME is the unit, container or pod and\n"
		"CGROUP/LIMIT are the cgroup's own usage and limit (largest groups only).\n");
}

/* Growth is known once the detector rests on two samples. */
static void fill_verdict(struct row *r, const struct memz_verdict *v)
{
	r->has_growth = v->samples >= 2;
	r->growth = v->rate_bps;
	r->leak = v->leak;
}

static bool row_selected(const struct top_opts *o, const struct row *r)
{
	char pid[16] = "";

	if (r->pid)
		snprintf(pid, sizeof pid, "%d", r->pid);
	if (o->filter && !strstr(r->name, o->filter) &&
	    !(r->pid && strstr(pid, o->filter)))
		return false;
	if (o->has_re && regexec(&o->re, r->name, 0, NULL, 0) &&
	    !(r->pid && !regexec(&o->re, pid, 0, NULL, 0)))
		return false;
	return true;
}

static enum sort_key sort_by;

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? 1 : a > b ? -1 : 0;
}

static int cmp_rows(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;
	int c = 0;

	switch (sort_by) {
	case SORT_PSS: c = cmp_u64(a->pss, b->pss); break;
	case SORT_USS: c = cmp_u64(a->uss, b->uss); break;
	case SORT_RSS: c = cmp_u64(a->rss, b->rss); break;
	case SORT_SWAP: c = cmp_u64(a->swap, b->swap); break;
	case SORT_GROWTH:
		/* unknown growth sorts last, not as zero */
		if (a->has_growth != b->has_growth)
			c = a->has_growth ? -1 : 1;
		else if (a->has_growth && a->growth != b->growth)
			c = a->growth > b->growth ? -1 : 1;
		break;
	case SORT_NAME: c = strcmp(a->name, b->name); break;
	case SORT_PID: c = (a->pid > b->pid) - (a->pid < b->pid); break;
	}
	if (!c)
		c = cmp_u64(a->pss, b->pss);
	if (!c)
		c = strcmp(a->name, b->name);
	if (!c)
		c = (a->pid > b->pid) - (a->pid < b->pid);
	return c;
}

/* The sampler names published groups; the rest get the name the path
 * alone gives (no container name: that takes a read). */
static void name_cgroup(const struct top_opts *o, const struct memz_group *g,
			struct row *r)
{
	struct memz_cgname n;

	if (!o->by_cgroup)
		return;
	r->cg = g->cgroup;
	if (g->cgroup)
		snprintf(r->cgname, sizeof r->cgname, "%s", g->cgroup->n.name);
	else if (!memz_cgname_parse(r->name, &n))
		snprintf(r->cgname, sizeof r->cgname, "%s", n.name);
	if (r->cgname[0])
		r->name = r->cgname; /* filters match what is shown */
}

/* A signed change in bytes: "+1.2 MiB", "-512 B", or "new". */
static const char *since(const struct top_opts *o, const struct row *r,
			 char *buf, size_t len)
{
	char b[32];
	bool down;

	if (!r->base) {
		snprintf(buf, len, "new");
		return buf;
	}
	down = r->pss < r->base->pss;
	snprintf(buf, len, "%s%s", down ? "-" : "+",
		 cli_bytes(down ? r->base->pss - r->pss : r->pss - r->base->pss,
			   o->raw, b, sizeof b));
	return buf;
}

static size_t collect(struct top_opts *o, const struct memz_snapshot *s,
		      struct row *rows)
{
	size_t n = 0;

	for (size_t i = 0; i < o->base.groups.n; i++)
		o->base.groups.e[i].seen = false;
	for (size_t i = 0; i < o->base.procs.n; i++)
		o->base.procs.e[i].seen = false;

	if (o->users) {
		/* the core's per-user totals (users.h), as smem -u shows them;
		 * no detector judges a user, so no growth */
		for (size_t i = 0; i < s->view.n_users; i++) {
			const struct memz_user_total *u = s->view.users[i];
			struct row r = { .members = u->members, .name = u->name,
					 .pss = u->pss, .uss = u->uss,
					 .rss = u->rss, .swap = u->swap };

			if (row_selected(o, &r))
				rows[n++] = r;
		}
	} else if (o->processes) {
		for (size_t i = 0; i < s->view.n_procs; i++) {
			const struct memz_proc *p = s->view.procs[i];
			struct row r = { .pid = p->pid, .members = 1,
					 .name = p->name ? p->name : "",
					 .pss = p->mem.pss,
					 .uss = memz_rollup_uss(&p->mem),
					 .rss = p->mem.rss, .swap = p->mem.swap,
					 .estimated = p->estimated };

			fill_verdict(&r, &p->det.verdict);
			if (o->has_base) {
				struct cli_base_entry *e = cli_baseline_proc(
					&o->base, p->pid, p->start);

				if (e)
					e->seen = true;
				r.base = e;
			}
			if (row_selected(o, &r))
				rows[n++] = r;
		}
	} else {
		for (size_t i = 0; i < s->view.n_groups; i++) {
			const struct memz_group *g = s->view.groups[i];
			struct row r = { .members = g->members,
					 .name = g->name ? g->name : "",
					 .pss = g->pss, .uss = g->uss,
					 .rss = g->rss, .swap = g->swap };

			fill_verdict(&r, &g->det.verdict);
			if (o->has_base) {
				struct cli_base_entry *e =
					cli_baseline_group(&o->base, r.name);

				if (e)
					e->seen = true;
				r.base = e;
			}
			name_cgroup(o, g, &r);
			if (row_selected(o, &r))
				rows[n++] = r;
		}
	}
	/* the rows hold their names: point at them once the array is final */
	for (size_t i = 0; i < n; i++)
		if (rows[i].cgname[0])
			rows[i].name = rows[i].cgname;
	sort_by = o->sort;
	qsort(rows, n, sizeof *rows, cmp_rows);
	return n;
}

static void print_breakdown(const struct top_opts *o,
			    const struct memz_breakdown *br)
{
	const struct memz_series_table *t = &memz_series_breakdown;
	char b[32];

	printf("RAM %s:", cli_bytes(br->mem_total, o->raw, b, sizeof b));
	for (size_t i = 0; i < t->n; i++)
		printf("%s %s %s", i ? "," : "", t->s[i].label,
		       cli_bytes((uint64_t)memz_series_value(&t->s[i], br),
				 o->raw, b, sizeof b));
	putchar('\n');
}

/* What the baseline held that is gone now, so a shrinking table is not
 * read as nothing changed. */
static void print_gone(const struct top_opts *o)
{
	const struct cli_base_list *l =
		o->processes ? &o->base.procs : &o->base.groups;
	size_t gone = 0;
	uint64_t pss = 0;
	char b[32];

	for (size_t i = 0; i < l->n; i++)
		if (!l->e[i].seen) {
			gone++;
			pss += l->e[i].pss;
		}
	printf("since %s: %zu of its %zu %s gone (%s PSS then)\n",
	       o->baseline_file, gone, l->n,
	       o->processes ? "processes" : "groups",
	       cli_bytes(pss, o->raw, b, sizeof b));
}

static const char *duration(double s, char *buf, size_t len)
{
	if (s < 120)
		snprintf(buf, len, "%.0f s", s);
	else if (s < 7200)
		snprintf(buf, len, "%.0f min", s / 60);
	else if (s < 172800)
		snprintf(buf, len, "%.1f h", s / 3600);
	else
		snprintf(buf, len, "%.1f d", s / 86400);
	return buf;
}

/* A line per scope with a forecast and per kill memz remembers; nothing
 * while nothing leaks and nothing was killed. */
static void print_oom(const struct top_opts *o, const struct memz_snapshot *s)
{
	const struct memz_oom_view *v = &s->oom;
	char b[3][32], name[4 * MEMZ_OOM_PATH_MAX + 16];

	for (size_t i = 0; i < v->n_scopes; i++) {
		const struct memz_oom_scope *sc = &v->scope[i];

		if (isnan(sc->seconds))
			continue;
		printf("OOM in %s %s%s: %s available, growing %s, confidence %d%%",
		       duration(sc->seconds, b[0], 32),
		       sc->path[0] ? "in cgroup " : "for the machine",
		       sc->path[0] ? cli_name(sc->path, name, sizeof name) : "",
		       cli_bytes(sc->available, o->raw, b[1], 32),
		       cli_rate(sc->growth_bps, o->raw, b[2], 32), sc->confidence);
		for (unsigned j = 0; j < sc->n_drivers; j++)
			printf("%s %s %.0f%%", j ? "," : ";",
			       cli_name(sc->drivers[j].name, name, sizeof name),
			       sc->drivers[j].share * 100);
		putchar('\n');
	}
	for (size_t i = 0; i < v->n_kills; i++) {
		const struct memz_oom_kill *k = &v->kill[i];

		printf("OOM KILL %s ago %s%s: ", duration(s->t - k->t, b[0], 32),
		       k->scope[0] ? "in cgroup " : "on the machine",
		       k->scope[0] ? cli_name(k->scope, name, sizeof name) : "");
		if (!k->known) {
			printf("unknown (no process that left fits)\n");
			continue;
		}
		printf("%s (pid %d), PSS %s%s, sure %d%%\n",
		       cli_name(k->name, name, sizeof name), k->pid,
		       cli_bytes(k->pss, o->raw, b[1], 32),
		       k->leak ? ", [LEAK?]" : "", k->sure);
	}
}

static int print_table(struct top_opts *o,
		       const struct memz_snapshot *s)
{
	size_t cap = o->users	  ? s->view.n_users
		     : o->processes ? s->view.n_procs
				    : s->view.n_groups;
	struct row *rows = calloc(cap ? cap : 1, sizeof *rows);
	char b[9][32], name[4 * MEMZ_COMM_MAX + 512];
	size_t n, shown;

	if (!rows) {
		fprintf(stderr, "memz: out of memory\n");
		return 1;
	}
	n = collect(o, s, rows);
	shown = o->limit && o->limit < n ? o->limit : n;
	print_breakdown(o, &s->br);
	printf("%zu %s, %u leak suspect%s\n", cap,
	       o->users ? "users" : o->processes ? "processes" : "groups",
	       s->view.leak_suspects, s->view.leak_suspects == 1 ? "" : "s");
	print_oom(o, s);
	if (o->has_base)
		print_gone(o);
	printf("%8s %11s %11s %11s %11s", o->processes ? "PID" : "PROCS", "PSS",
	       "USS", "RSS", "SWAP");
	if (o->by_cgroup && !o->processes && !o->users)
		printf(" %11s %11s", "CGROUP", "LIMIT");
	if (o->has_base)
		printf(" %11s", "SINCE");
	if (o->users)
		printf(" %s\n", "USER");
	else
		printf(" %13s %-7s %s\n", "GROWTH", "LEAK", "NAME");
	for (size_t i = 0; i < shown; i++) {
		const struct row *r = &rows[i];
		char pss[34], uss[34];

		if (r->pid)
			snprintf(b[0], 32, "%d", r->pid);
		else
			snprintf(b[0], 32, "%ux", r->members);
		if (r->has_growth)
			cli_rate(r->growth, o->raw, b[5], 32);
		else
			snprintf(b[5], 32, "-");
		/* "~": an estimate (status, not smaps_rollup), PSS as RSS */
		snprintf(pss, sizeof pss, "%s%s", r->estimated ? "~" : "",
			 cli_bytes(r->pss, o->raw, b[1], 32));
		snprintf(uss, sizeof uss, "%s%s", r->estimated ? "~" : "",
			 cli_bytes(r->uss, o->raw, b[2], 32));
		printf("%8s %11s %11s %11s %11s", b[0], pss, uss,
		       cli_bytes(r->rss, o->raw, b[3], 32),
		       cli_bytes(r->swap, o->raw, b[4], 32));
		if (o->users) {
			printf(" %s\n", cli_name(r->name, name, sizeof name));
			continue;
		}
		if (o->by_cgroup && !o->processes) {
			bool mem = r->cg && r->cg->has_mem;

			printf(" %11s %11s",
			       mem ? cli_bytes(r->cg->mem.usage, o->raw, b[6], 32)
				   : "-",
			       mem && r->cg->mem.limited
				       ? cli_bytes(r->cg->mem.limit, o->raw, b[7], 32)
				       : mem ? "none" : "-");
		}
		if (o->has_base)
			printf(" %11s", since(o, r, b[8], 32));
		printf(" %13s %-7s %s\n", b[5], r->leak ? "[LEAK?]" : "",
		       cli_name(r->name, name, sizeof name));
	}
	if (shown < n)
		printf("(%zu more rows; --limit 0 shows all)\n", n - shown);
	free(rows);
	return 0;
}

static int parse_args(int argc, char **argv, struct top_opts *o,
		      struct memz_settings *set)
{
	static const struct option longopts[] = {
		{ "processes", no_argument, NULL, 'p' },
		{ "users", no_argument, NULL, 'u' },
		{ "sort", required_argument, NULL, 's' },
		{ "watch", optional_argument, NULL, 'w' },
		{ "count", required_argument, NULL, 'c' },
		{ "limit", required_argument, NULL, 'l' },
		{ "filter", required_argument, NULL, 'f' },
		{ "match", required_argument, NULL, 'm' },
		{ "bytes", no_argument, NULL, 'b' },
		{ "set", required_argument, NULL, CLI_OPT_SET },
		{ "baseline", required_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, i, rc;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":pus:w::c:l:f:m:bh", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'p': o->processes = true; break;
		case 'u': o->users = true; break;
		case 'b': o->raw = true; break;
		case 's':
			for (i = 0; sort_names[i] && strcmp(sort_names[i], optarg); i++)
				;
			if (!sort_names[i]) {
				fprintf(stderr, "memz top: unknown sort key \"%s\" "
					"(pss, uss, rss, swap, growth, name, pid)\n",
					optarg);
				return 2;
			}
			o->sort = (enum sort_key)i;
			break;
		case 'w':
			o->watch = true;
			/* "--watch 5" as well as "--watch=5": take a following
			 * number as the interval */
			if (!optarg && optind < argc &&
			    !cli_parse_seconds(argv[optind], &o->interval)) {
				optind++;
				break;
			}
			if (optarg && cli_parse_seconds(optarg, &o->interval)) {
				fprintf(stderr, "memz top: bad --watch interval "
					"\"%s\" (seconds, 0 < s <= 86400)\n", optarg);
				return 2;
			}
			break;
		case 'c':
		case 'l':
			if (cli_parse_count(optarg, c == 'c' ? &o->count : &o->limit)) {
				fprintf(stderr, "memz top: bad --%s \"%s\" "
					"(a number 0..1000000)\n",
					c == 'c' ? "count" : "limit", optarg);
				return 2;
			}
			if (c == 'l')
				o->has_limit = true;
			break;
		case 'f': o->filter = optarg; break;
		case 'm':
			if (o->has_re)
				regfree(&o->re);
			o->has_re = false;
			if (regcomp(&o->re, optarg, REG_EXTENDED | REG_NOSUB)) {
				fprintf(stderr, "memz top: bad --match regex \"%s\"\n",
					optarg);
				return 2;
			}
			o->has_re = true;
			break;
		case 'B': o->baseline_file = optarg; break;
		default:
			rc = cli_shared_option("memz top", c, argv, NULL, set,
					       usage);
			if (rc >= 0)
				return rc;
		}
	}
	/* a baseline holds groups and processes, not users */
	if (o->users && (o->processes || o->baseline_file)) {
		fprintf(stderr, "memz top: --users takes neither --processes "
			"nor --baseline\n");
		return 2;
	}
	return cli_no_operands("memz top", argc, argv);
}

static int run(struct top_opts *o, const struct memz_settings *set)
{
	const struct memz_allocator *a = memz_allocator_libc();
	struct memz_sampler *sm = NULL;
	struct memz_snapshot snap;
	unsigned shown = 0;
	bool warned = false;
	int rc, status = 0;
	bool told = false;

	if (cli_sampler_open("memz top", &sm, set, a))
		return 1;
	memz_snapshot_init(&snap);
	cli_catch_signals();
	for (;;) {
		rc = memz_sampler_run(sm, memz_now(), &snap);
		if (cli_cycle_report("memz top", set, &snap, rc, &warned)) {
			status = 1;
			break;
		}
		cli_tell_denied("memz top", snap.stats.denied, &told);
		if (o->watch && o->tty)
			fputs("\033[H\033[2J", stdout);
		else if (shown)
			putchar('\n');
		status = print_table(o, &snap);
		fflush(stdout);
		shown++;
		if (status || !o->watch || (o->count && shown >= o->count) ||
		    cli_interrupted() || cli_sleep(o->interval))
			break;
	}
	memz_snapshot_release(&snap);
	memz_sampler_free(&sm);
	return status;
}

int cli_top(int argc, char **argv)
{
	struct top_opts o = { .sort = SORT_PSS, .interval = 2 };
	struct memz_settings set;
	int rc;

	memz_settings_init(&set);
	rc = parse_args(argc, argv, &o, &set);
	if (rc < 0 && o.baseline_file) {
		char err[256];

		if (cli_baseline_load(&o.base, o.baseline_file, err, sizeof err)) {
			fprintf(stderr, "memz top: --baseline %s: %s\n",
				o.baseline_file, err);
			rc = 1;
		} else {
			o.has_base = true;
		}
	}
	if (rc < 0) {
		o.by_cgroup = set.group_by == MEMZ_GROUP_CGROUP;
		o.tty = isatty(STDOUT_FILENO);
		if (!o.has_limit && o.tty)
			o.limit = 25;
		rc = run(&o, &set);
	}
	if (o.has_re)
		regfree(&o.re);
	if (o.has_base)
		cli_baseline_free(&o.base);
	return rc;
}
