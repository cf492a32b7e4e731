/*
 * memz inspect PID: one process's memory by mapping category (the core's
 * taxonomy, memz/smapscat.h, read by memz/inspect.h), its largest
 * mappings, and what someone chasing a leak wants beside them: age,
 * oom_score_adj, peak RSS against the largest RSS seen, and the growth
 * trend when the sampler watched it a while.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* getopt_long */
#endif

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yajl/yajl_gen.h>

#include "cli.h"
#include "memz/json.h"
#include "memz/sampler.h"
#include "memz/inspect.h"
#include "memz/privilege.h"

enum map_sort { MSORT_RSS, MSORT_SIZE, MSORT_PSS, MSORT_ADDRESS };
static const char *const msort_names[] = { "rss", "size", "pss", "address",
					   NULL };

struct inspect_opts {
	int pid;
	bool json, raw;
	enum map_sort sort;
	unsigned limit;
	unsigned samples;
	double interval;
	struct memz_mapfilter filter;
};

/* What the sampler learnt over --samples cycles. */
struct history {
	/* the process: a pid names another once it is reused, so the
	 * process is (pid, start time), from the first look or cycle */
	bool know_start;
	unsigned long long start;
	bool have;
	unsigned cycles;
	uint64_t rss_max_seen;
	struct memz_verdict v;
	/* smaps by category at the first look, for what grew since */
	bool has_then;
	struct memz_smapscat then;
	double then_t, dt;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: memz inspect [OPTIONS] PID\n"
		"One process's memory by mapping category, from /proc/PID/smaps.\n\n"
		"Mappings listed (categories: first match of kernel, heap, stack,\n"
		"exe, shmem, device, lib, file, anon):\n"
		"  --heap --stack --libs --anon --file   only these categories (any of)\n"
		"  --writable --exec --shared --private  only with these permissions (all of)\n"
		"  -s, --sort KEY      rss (default), size, pss, address\n"
		"  -l, --limit N       at most N mappings (default 10; 0: all)\n"
		"Trend:\n"
		"  -n, --samples N     watch N cycles first (growth per hour, peak RSS seen)\n"
		"  -i, --interval S    seconds between those cycles (default 1)\n"
		"Output:\n"
		"  -j, --json          JSON instead of tables\n"
		"  -b, --bytes         raw bytes instead of KiB/MiB/GiB\n"
		"      --set NAME=VALUE  a memz setting (ProcRoot, ...)\n"
		"  -h, --help          this text\n");
}

static enum map_sort cmp_key;

/* The order --sort asks for; the core keeps the first --limit of it while
 * it streams smaps, so a process with a million mappings costs no more. */
static int cmp_maps(const struct memz_inspect_map *a,
		    const struct memz_inspect_map *b)
{
	uint64_t x = 0, y = 0;

	switch (cmp_key) {
	case MSORT_RSS: x = a->m.rss; y = b->m.rss; break;
	case MSORT_SIZE: x = a->m.size; y = b->m.size; break;
	case MSORT_PSS: x = a->m.pss; y = b->m.pss; break;
	case MSORT_ADDRESS:
		return (a->m.start > b->m.start) - (a->m.start < b->m.start);
	}
	if (x != y)
		return x < y ? 1 : -1;
	return (a->m.start > b->m.start) - (a->m.start < b->m.start);
}

/* What the core kept: the selected mappings, sorted, at most --limit. */
static const struct memz_inspect_map **sorted_maps(
	const struct memz_inspect *ins, size_t *n_out)
{
	const struct memz_inspect_map **v =
		calloc(ins->n_maps ? ins->n_maps : 1, sizeof *v);

	if (!v)
		return NULL;
	for (size_t i = 0; i < ins->n_maps; i++)
		v[i] = &ins->maps[i];
	*n_out = ins->n_maps;
	return v;
}

static void fmt_duration(double s, char *buf, size_t len)
{
	unsigned long long t = (unsigned long long)s;
	unsigned long long d = t / 86400, h = t / 3600 % 24, m = t / 60 % 60;

	if (d)
		snprintf(buf, len, "%llud %lluh %llum", d, h, m);
	else if (h)
		snprintf(buf, len, "%lluh %llum %llus", h, m, t % 60);
	else
		snprintf(buf, len, "%llum %llus", m, t % 60);
}

/* Wall-clock start in UTC so the output does not depend on TZ. */
static bool start_time(const struct memz_inspect *ins, time_t *out)
{
	if (!ins->boot_time || ins->clk_tck <= 0)
		return false;
	*out = (time_t)(ins->boot_time +
			(long long)(ins->stat.start_time /
				    (unsigned long long)ins->clk_tck));
	return true;
}

static void print_sum_row(const struct inspect_opts *o, const char *label,
			  const struct memz_catsum *c)
{
	char b[5][32];

	printf("%-22s %6u %11s %11s %11s %11s %11s\n", label, c->count,
	       cli_bytes(c->size, o->raw, b[0], 32),
	       cli_bytes(c->rss, o->raw, b[1], 32),
	       cli_bytes(c->pss, o->raw, b[2], 32),
	       cli_bytes(c->private_dirty, o->raw, b[3], 32),
	       cli_bytes(c->swap, o->raw, b[4], 32));
}

static void print_header(const struct inspect_opts *o,
			 const struct memz_inspect *ins,
			 const struct history *h)
{
	char name[4 * MEMZ_COMM_MAX], exe[4 * sizeof ins->exe], b[4][32];
	time_t st;
	struct tm tm;
	uint64_t rss_now = ins->has_rollup ? ins->rollup.rss : ins->cats.total.rss;

	printf("process %d %s", ins->pid, cli_name(ins->stat.comm, name, sizeof name));
	if (ins->exe[0])
		printf("  exe %s", cli_name(ins->exe, exe, sizeof exe));
	putchar('\n');
	if (start_time(ins, &st) && gmtime_r(&st, &tm)) {
		strftime(b[0], 32, "%Y-%m-%d %H:%M:%S UTC", &tm);
		fmt_duration(memz_inspect_age(ins), b[1], 32);
		printf("started %s, running %s", b[0], b[1]);
	} else {
		printf("start time unknown");
	}
	printf(", oom_score_adj %d\n", ins->oom_score_adj);
	printf("RSS %s, peak RSS (VmHWM) %s, largest RSS memz saw %s",
	       cli_bytes(rss_now, o->raw, b[0], 32),
	       cli_bytes(ins->status.vm_hwm, o->raw, b[1], 32),
	       cli_bytes(h->have && h->rss_max_seen > rss_now ? h->rss_max_seen
							       : rss_now,
			 o->raw, b[2], 32));
	printf(" (%u sample%s)\n", h->have ? h->cycles : 1,
	       h->have && h->cycles == 1 ? "" : h->have ? "s" : "");
	if (h->have && h->v.samples >= 2)
		printf("growth %+.2f MiB/h over %u samples (R2 %.2f)%s\n",
		       h->v.rate_bps * 3600.0 / 1048576.0, h->v.samples,
		       h->v.r2, h->v.leak ? " [LEAK?]" : "");
	else
		printf("growth unknown (one look; --samples N watches a while)\n");
	if (h->has_then) {
		struct memz_catdiff d[MEMZ_CAT_COUNT];
		char line[512];
		size_t n = memz_smapscat_diff(&h->then, &ins->cats, d);

		if (h->dt < 60)
			snprintf(b[3], 32, "%.1f s", h->dt);
		else
			fmt_duration(h->dt, b[3], 32);
		printf("PSS by category since the first look (%s ago): %s\n", b[3],
		       memz_smapscat_diff_format(d, n, line, sizeof line));
	}
}

static int print_text(const struct inspect_opts *o,
		      const struct memz_inspect *ins, const struct history *h)
{
	const struct memz_inspect_map **v;
	size_t shown;
	char b[4][32], path[4 * sizeof ins->maps[0].m.path];

	print_header(o, ins, h);
	printf("\n%-22s %6s %11s %11s %11s %11s %11s\n", "CATEGORY", "COUNT",
	       "SIZE", "RSS", "PSS", "PRIV_DIRTY", "SWAP");
	for (int c = 0; c < MEMZ_CAT_COUNT; c++)
		if (ins->cats.cat[c].count)
			print_sum_row(o, memz_mapcat_label(c), &ins->cats.cat[c]);
	print_sum_row(o, "total", &ins->cats.total);
	if (ins->has_rollup) {
		printf("%-22s %6s %11s %11s %11s %11s %11s\n", "smaps_rollup", "",
		       "", cli_bytes(ins->rollup.rss, o->raw, b[0], 32),
		       cli_bytes(ins->rollup.pss, o->raw, b[1], 32),
		       cli_bytes(ins->rollup.private_dirty, o->raw, b[2], 32),
		       cli_bytes(ins->rollup.swap, o->raw, b[3], 32));
	}
	v = sorted_maps(ins, &shown);
	if (!v) {
		fprintf(stderr, "memz inspect: out of memory\n");
		return 1;
	}
	printf("\nMAPPINGS by %s: %zu of %u selected\n", msort_names[o->sort],
	       shown, ins->selected.count);
	printf("%-25s %-5s %-6s %11s %11s %11s %11s  %s\n", "ADDRESS", "PERMS",
	       "KIND", "SIZE", "RSS", "PSS", "SWAP", "PATH");
	for (size_t i = 0; i < shown; i++) {
		const struct memz_mapping *m = &v[i]->m;

		printf("%012llx-%012llx %-5s %-6s %11s %11s %11s %11s%s%s\n",
		       (unsigned long long)m->start, (unsigned long long)m->end,
		       m->perms, memz_mapcat_name(v[i]->cat),
		       cli_bytes(m->size, o->raw, b[0], 32),
		       cli_bytes(m->rss, o->raw, b[1], 32),
		       cli_bytes(m->pss, o->raw, b[2], 32),
		       cli_bytes(m->swap, o->raw, b[3], 32),
		       m->path[0] ? "  " : "",
		       m->path[0] ? cli_name(m->path, path, sizeof path) : "");
	}
	if (o->filter.cats || o->filter.perms)
		print_sum_row(o, "selected", &ins->selected);
	free(v);
	return 0;
}

static void j_sum(yajl_gen g, const struct memz_catsum *c)
{
	memz_json_kv_u64(g, "count", c->count);
	memz_json_kv_u64(g, "size", c->size);
	memz_json_kv_u64(g, "rss", c->rss);
	memz_json_kv_u64(g, "pss", c->pss);
	memz_json_kv_u64(g, "private_dirty", c->private_dirty);
	memz_json_kv_u64(g, "swap", c->swap);
}

static void j_rollup(yajl_gen g, const struct memz_rollup *r)
{
	yajl_gen_map_open(g);
	memz_json_kv_u64(g, "rss", r->rss);
	memz_json_kv_u64(g, "pss", r->pss);
	memz_json_kv_u64(g, "pss_anon", r->pss_anon);
	memz_json_kv_u64(g, "pss_file", r->pss_file);
	memz_json_kv_u64(g, "pss_shmem", r->pss_shmem);
	memz_json_kv_u64(g, "shared_clean", r->shared_clean);
	memz_json_kv_u64(g, "shared_dirty", r->shared_dirty);
	memz_json_kv_u64(g, "private_clean", r->private_clean);
	memz_json_kv_u64(g, "private_dirty", r->private_dirty);
	memz_json_kv_u64(g, "swap", r->swap);
	memz_json_kv_u64(g, "swap_pss", r->swap_pss);
	yajl_gen_map_close(g);
}

static void j_maps(yajl_gen g, const struct memz_inspect_map **v, size_t n)
{
	char a[24];

	yajl_gen_array_open(g);
	for (size_t i = 0; i < n; i++) {
		const struct memz_mapping *m = &v[i]->m;

		yajl_gen_map_open(g);
		snprintf(a, sizeof a, "%llx", (unsigned long long)m->start);
		memz_json_kv_str(g, "start", a);
		snprintf(a, sizeof a, "%llx", (unsigned long long)m->end);
		memz_json_kv_str(g, "end", a);
		memz_json_kv_str(g, "perms", m->perms);
		memz_json_kv_str(g, "category", memz_mapcat_name(v[i]->cat));
		memz_json_kv_str(g, "path", m->path);
		memz_json_kv_u64(g, "size", m->size);
		memz_json_kv_u64(g, "rss", m->rss);
		memz_json_kv_u64(g, "pss", m->pss);
		memz_json_kv_u64(g, "private_dirty", m->private_dirty);
		memz_json_kv_u64(g, "swap", m->swap);
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
}

static void j_history(yajl_gen g, const struct history *h, uint64_t rss_now)
{
	memz_json_kv_u64(g, "rss_max_seen",
	      h->have && h->rss_max_seen > rss_now ? h->rss_max_seen : rss_now);
	memz_json_kv_u64(g, "samples", h->have ? h->cycles : 1);
	memz_json_str(g, "growth");
	if (!h->have || h->v.samples < 2) {
		yajl_gen_null(g);
		return;
	}
	yajl_gen_map_open(g);
	memz_json_kv_double(g, "rate_bps", h->v.rate_bps);
	memz_json_kv_double(g, "mib_per_hour", h->v.rate_bps * 3600.0 / 1048576.0);
	memz_json_kv_double(g, "r2", h->v.r2);
	memz_json_kv_u64(g, "samples", h->v.samples);
	memz_json_kv_bool(g, "leak", h->v.leak);
	memz_json_kv_u64(g, "confidence", (uint64_t)(h->v.confidence > 0 ? h->v.confidence : 0));
	yajl_gen_map_close(g);
}

/* "grew": PSS change per category since the first look, largest first;
 * null with one look. */
static void j_grew(yajl_gen g, const struct history *h,
		   const struct memz_smapscat *now)
{
	struct memz_catdiff d[MEMZ_CAT_COUNT];
	char line[512];
	size_t n;

	memz_json_str(g, "grew");
	if (!h->has_then) {
		yajl_gen_null(g);
		return;
	}
	n = memz_smapscat_diff(&h->then, now, d);
	yajl_gen_map_open(g);
	memz_json_kv_double(g, "over_s", h->dt);
	memz_json_kv_str(g, "text", memz_smapscat_diff_format(d, n, line,
							     sizeof line));
	memz_json_str(g, "categories");
	yajl_gen_array_open(g);
	for (size_t i = 0; i < n; i++) {
		yajl_gen_map_open(g);
		memz_json_kv_str(g, "category", memz_mapcat_name(d[i].cat));
		memz_json_kv_int(g, "pss", d[i].pss);
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
	yajl_gen_map_close(g);
}

static int print_json(const struct memz_inspect *ins, const struct history *h)
{
	yajl_gen g = yajl_gen_alloc(NULL);
	const struct memz_inspect_map **v;
	const unsigned char *out;
	size_t n, len;
	time_t st;

	v = sorted_maps(ins, &n);
	if (!g || !v) {
		if (g)
			yajl_gen_free(g);
		free(v);
		fprintf(stderr, "memz inspect: out of memory\n");
		return 1;
	}
	yajl_gen_map_open(g);
	memz_json_kv_u64(g, "pid", (uint64_t)ins->pid);
	memz_json_kv_str(g, "name", ins->stat.comm);
	memz_json_kv_str(g, "exe", ins->exe);
	memz_json_str(g, "start_time");
	if (start_time(ins, &st))
		yajl_gen_integer(g, (long long)st);
	else
		yajl_gen_null(g);
	memz_json_kv_double(g, "age_s", memz_inspect_age(ins));
	memz_json_kv_int(g, "oom_score_adj", ins->oom_score_adj);
	memz_json_kv_u64(g, "vm_hwm", ins->status.vm_hwm);
	j_history(g, h, ins->has_rollup ? ins->rollup.rss : ins->cats.total.rss);
	j_grew(g, h, &ins->cats);
	memz_json_str(g, "categories");
	yajl_gen_array_open(g);
	for (int c = 0; c < MEMZ_CAT_COUNT; c++) {
		yajl_gen_map_open(g);
		memz_json_kv_str(g, "category", memz_mapcat_name(c));
		memz_json_kv_str(g, "label", memz_mapcat_label(c));
		j_sum(g, &ins->cats.cat[c]);
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
	memz_json_str(g, "total");
	yajl_gen_map_open(g);
	j_sum(g, &ins->cats.total);
	yajl_gen_map_close(g);
	memz_json_str(g, "rollup");
	if (ins->has_rollup)
		j_rollup(g, &ins->rollup);
	else
		yajl_gen_null(g);
	memz_json_kv_u64(g, "mappings_selected", ins->selected.count);
	memz_json_str(g, "mappings");
	j_maps(g, v, n);
	yajl_gen_map_close(g);
	if (yajl_gen_get_buf(g, &out, &len) == yajl_gen_status_ok) {
		fwrite(out, 1, len, stdout);
		putchar('\n');
	}
	yajl_gen_free(g);
	free(v);
	return 0;
}

void (*cli_inspect_between)(unsigned cycle);

/* Run the sampler for --samples cycles and keep what it learnt of pid. */
static int watch(const struct inspect_opts *o, const struct memz_settings *set,
		 struct history *h)
{
	const struct memz_allocator *a = memz_allocator_libc();
	struct memz_sampler *sm = NULL;
	struct memz_snapshot snap;
	int rc;

	bool warned = false;

	if (cli_sampler_open("memz inspect", &sm, set, a))
		return 1;
	rc = 0;
	memz_snapshot_init(&snap);
	cli_catch_signals();
	for (unsigned i = 0; i < o->samples; i++) {
		if (i && cli_inspect_between)
			cli_inspect_between(i - 1);
		if (i && cli_sleep(o->interval))
			break;
		rc = memz_sampler_run(sm, memz_now(), &snap);
		if (cli_cycle_report("memz inspect", set, &snap, rc, &warned))
			break;
		h->cycles = i + 1;
		for (size_t k = 0; k < snap.view.n_procs; k++) {
			const struct memz_proc *p = snap.view.procs[k];

			if (p->pid != o->pid ||
			    (h->know_start && p->start != h->start))
				continue;
			h->know_start = true;
			h->start = p->start;
			h->have = true;
			h->v = p->det.verdict;
			if (p->rss_max_seen > h->rss_max_seen)
				h->rss_max_seen = p->rss_max_seen;
		}
	}
	memz_snapshot_release(&snap);
	memz_sampler_free(&sm);
	return rc ? 1 : 0;
}

/* A bare "Permission denied" leaves an operator guessing; say whose the
 * process is, which capabilities this memz lacks, and how to get them. */
static void tell_denied(const char *proc_root, int pid, const char *what,
			int rc)
{
	char dir[4096], missing[64] = "";
	struct memz_caps c;
	struct stat st;

	fprintf(stderr, "memz inspect: cannot read %s/%d/%s: %s", proc_root,
		pid, what ? what : "?", strerror(-rc));
	if (!memz_caps_get(&c))
		memz_priv_missing(c.effective, missing, sizeof missing);
	if (!missing[0]) {
		fputc('\n', stderr);
		return;
	}
	snprintf(dir, sizeof dir, "%s/%d", proc_root, pid);
	if (!stat(dir, &st) && st.st_uid != getuid())
		fprintf(stderr, ": process %d is uid %u's, and", pid,
			(unsigned)st.st_uid);
	else
		fprintf(stderr, ":");
	fprintf(stderr, " uid %u lacks %s, which reading another user's "
		"(or a protected) process takes. Run it as root (sudo memz "
		"inspect %d) or with those capabilities in effect, as the "
		"netdata plugin memz.plugin is installed\n",
		(unsigned)getuid(), missing, pid);
}

static int parse_args(int argc, char **argv, struct inspect_opts *o,
		      struct memz_settings *set)
{
	enum { O_HEAP = 256, O_STACK, O_LIBS, O_ANON, O_FILE, O_WRITABLE,
	       O_EXEC, O_SHARED, O_PRIVATE };
	static const struct option longopts[] = {
		{ "heap", no_argument, NULL, O_HEAP },
		{ "stack", no_argument, NULL, O_STACK },
		{ "libs", no_argument, NULL, O_LIBS },
		{ "anon", no_argument, NULL, O_ANON },
		{ "file", no_argument, NULL, O_FILE },
		{ "writable", no_argument, NULL, O_WRITABLE },
		{ "exec", no_argument, NULL, O_EXEC },
		{ "shared", no_argument, NULL, O_SHARED },
		{ "private", no_argument, NULL, O_PRIVATE },
		{ "sort", required_argument, NULL, 's' },
		{ "limit", required_argument, NULL, 'l' },
		{ "samples", required_argument, NULL, 'n' },
		{ "interval", required_argument, NULL, 'i' },
		{ "json", no_argument, NULL, 'j' },
		{ "bytes", no_argument, NULL, 'b' },
		{ "set", required_argument, NULL, CLI_OPT_SET },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, i, rc;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":s:l:n:i:jbh", longopts,
				NULL)) != -1) {
		switch (c) {
		case O_HEAP: o->filter.cats |= 1u << MEMZ_CAT_HEAP; break;
		case O_STACK: o->filter.cats |= 1u << MEMZ_CAT_STACK; break;
		case O_LIBS: o->filter.cats |= 1u << MEMZ_CAT_LIB; break;
		case O_ANON: o->filter.cats |= MEMZ_CATS_ANON; break;
		case O_FILE: o->filter.cats |= MEMZ_CATS_FILE; break;
		case O_WRITABLE: o->filter.perms |= MEMZ_MAPF_WRITABLE; break;
		case O_EXEC: o->filter.perms |= MEMZ_MAPF_EXEC; break;
		case O_SHARED: o->filter.perms |= MEMZ_MAPF_SHARED; break;
		case O_PRIVATE: o->filter.perms |= MEMZ_MAPF_PRIVATE; break;
		case 'j': o->json = true; break;
		case 'b': o->raw = true; break;
		case 's':
			for (i = 0; msort_names[i] && strcmp(msort_names[i], optarg); i++)
				;
			if (!msort_names[i]) {
				fprintf(stderr, "memz inspect: unknown sort key \"%s\" "
					"(rss, size, pss, address)\n", optarg);
				return 2;
			}
			o->sort = (enum map_sort)i;
			break;
		case 'l':
		case 'n':
			if (cli_parse_count(optarg, c == 'l' ? &o->limit : &o->samples)) {
				fprintf(stderr, "memz inspect: bad --%s \"%s\" "
					"(a number 0..1000000)\n",
					c == 'l' ? "limit" : "samples", optarg);
				return 2;
			}
			break;
		default:
			rc = cli_shared_option("memz inspect", c, argv,
					       &o->interval, set, usage);
			if (rc >= 0)
				return rc;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, optind >= argc ? "memz inspect: which PID?\n"
					       : "memz inspect: one PID, please\n");
		usage(stderr);
		return 2;
	}
	if (cli_parse_pid(argv[optind], &o->pid)) {
		fprintf(stderr, "memz inspect: \"%s\" is not a PID "
			"(a whole number from 1 to %d)\n", argv[optind], 0x7fffffff);
		return 2;
	}
	return -1;
}

int cli_inspect(int argc, char **argv)
{
	struct inspect_opts o = { .sort = MSORT_RSS, .limit = 10, .interval = 1 };
	const struct memz_allocator *a = memz_allocator_libc();
	struct memz_settings set;
	struct memz_inspect ins;
	struct history h;
	const char *what = NULL;
	int rc;

	memz_settings_init(&set);
	rc = parse_args(argc, argv, &o, &set);
	if (rc >= 0)
		return rc;
	memset(&h, 0, sizeof h);
	memz_inspect_init(&ins);
	ins.keep_filter = o.filter;
	ins.keep_max = o.limit;
	cmp_key = o.sort;
	ins.keep_cmp = cmp_maps;
	ins.max_rss = set.exact_max_rss;
	/* a first look, so the last can say which categories grew; a
	 * process gone by now is reported by the last look */
	if (o.samples >= 2 &&
	    !memz_inspect_read(&ins, set.proc_root, o.pid, a, &what)) {
		h.has_then = true;
		h.then = ins.cats;
		h.then_t = memz_now();
		h.know_start = true;
		h.start = ins.stat.start_time;
	}
	if (o.samples && (rc = watch(&o, &set, &h))) {
		memz_inspect_release(&ins, a);
		return rc;
	}
	rc = h.know_start ? memz_inspect_read_proc(&ins, set.proc_root, o.pid,
						   h.start, a, &what)
			  : memz_inspect_read(&ins, set.proc_root, o.pid, a,
					      &what);
	h.dt = h.has_then ? memz_now() - h.then_t : 0;
	if (rc == -ESRCH && h.know_start && what && !strcmp(what, "process")) {
		fprintf(stderr, "memz inspect: process %d exited (pid %d is "
			"another process's now)\n", o.pid, o.pid);
		rc = 1;
	} else if (rc == -ENOENT || rc == -ESRCH) {
		fprintf(stderr, "memz inspect: process %d is gone (no %s/%d%s%s)\n",
			o.pid, set.proc_root, o.pid, what && strcmp(what, "process") ? "/" : "",
			what && strcmp(what, "process") ? what : "");
		rc = 1;
	} else if (rc == -EACCES || rc == -EPERM) {
		tell_denied(set.proc_root, o.pid, what, rc);
		rc = 1;
	} else if (rc) {
		fprintf(stderr, "memz inspect: cannot read %s/%d/%s: %s\n",
			set.proc_root, o.pid, what ? what : "?", strerror(-rc));
		rc = 1;
	} else if (ins.too_big) {
		fprintf(stderr,
			"memz inspect: process %d is resident %.0f MiB, above ExactMaxRss (%.0f MiB): "
			"its smaps is not read, since the kernel would hold its mmap lock "
			"for the whole walk (about 17 ms per GiB) and stall it; "
			"--set ExactMaxRss=0 reads it anyway\n",
			o.pid, (double)ins.status.vm_rss / 1048576.0,
			set.exact_max_rss / 1048576.0);
		rc = 1;
	} else {
		rc = o.json ? print_json(&ins, &h) : print_text(&o, &ins, &h);
	}
	memz_inspect_release(&ins, a);
	return rc;
}
