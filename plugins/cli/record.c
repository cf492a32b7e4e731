/*
 * memz record: the live system as a trace (docs/trace-format.md), one row per
 * sampled process per cycle, through the same sampler the plugins use.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "memz/sampler.h"
#include "memz/trace.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: memz record [--interval S] [--duration S] [--out FILE]\n"
		"                   [--set NAME=VALUE ...]\n"
		"Writes a trace of every process's PSS, RSS, anonymous and swap\n"
		"memory every S seconds (default 1) for the duration (default:\n"
		"until interrupted) to FILE (default stdout).\n");
}

static int write_cycle(FILE *out, const struct memz_snapshot *snap, double t,
		       struct memz_trace_row *row)
{
	for (size_t i = 0; i < snap->view.n_procs; i++) {
		const struct memz_proc *p = snap->view.procs[i];
		size_t n = p->name ? strlen(p->name) : 0;
		bool readable = !p->denied;

		if (n >= sizeof row->name)
			n = sizeof row->name - 1;
		row->t = t;
		row->pid = p->pid;
		row->start = p->start;
		memcpy(row->name, p->name ? p->name : "", n);
		row->name[n] = '\0';
		row->name_len = n;
		row->kb[MEMZ_TRACE_PSS] = p->mem.pss / 1024;
		row->kb[MEMZ_TRACE_RSS] = p->mem.rss / 1024;
		row->kb[MEMZ_TRACE_ANON] = p->mem.anonymous / 1024;
		row->kb[MEMZ_TRACE_SWAP] = p->mem.swap / 1024;
		row->kb[MEMZ_TRACE_PSS_ANON] = p->mem.pss_anon / 1024;
		row->kb[MEMZ_TRACE_PSS_FILE] = p->mem.pss_file / 1024;
		row->kb[MEMZ_TRACE_PSS_SHMEM] = p->mem.pss_shmem / 1024;
		row->has_error = readable && p->estimated;
		row->error_kb = p->pss_error / 1024;
		/* statm's, readable even when smaps_rollup is not */
		row->has_vm = p->vm_size > 0;
		row->vm_kb = p->vm_size / 1024;
		row->has_age = p->born > -INFINITY && snap->t >= p->born;
		row->age = row->has_age ? snap->t - p->born : 0;
		for (int k = 0; k < MEMZ_TRACE_COLS; k++)
			row->has[k] = readable;
		/* RSS comes from statm, readable even when smaps_rollup is not */
		row->has[MEMZ_TRACE_RSS] = true;
		/* kernels before 5.10 have no split: left empty, not guessed */
		for (int k = MEMZ_TRACE_PSS_ANON; k <= MEMZ_TRACE_PSS_SHMEM; k++)
			row->has[k] = readable && p->mem.has_pss_anon;
		if (memz_trace_write_row(out, row))
			return -EIO;
	}
	return fflush(out) ? -EIO : 0;
}

int cli_record(int argc, char **argv)
{
	struct memz_settings s;
	struct memz_sampler *smp = NULL;
	struct memz_snapshot snap;
	struct memz_trace_row *row;
	double interval = 1, duration = 0, t0, next;
	const char *path = NULL;
	FILE *out = stdout;
	bool warned = false;
	int rc, status = 0;
	bool told = false;

	memz_settings_init(&s);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--interval") && val) {
			if (cli_parse_seconds(val, &interval)) {
				fprintf(stderr, "memz record: --interval \"%s\" is not a number of seconds (above 0, at most 86400)\n", val);
				return 2;
			}
			i++;
		} else if (!strcmp(a, "--duration") && val) {
			if (cli_parse_seconds(val, &duration)) {
				fprintf(stderr, "memz record: --duration \"%s\" is not a number of seconds (above 0, at most 86400)\n", val);
				return 2;
			}
			i++;
		} else if (!strcmp(a, "--out") && val) {
			path = val;
			i++;
		} else if (!strcmp(a, "--set") && val) {
			if (cli_apply_set(&s, val))
				return 2;
			i++;
		} else {
			fprintf(stderr, "memz record: unknown argument \"%s\"\n", a);
			usage(stderr);
			return 2;
		}
	}
	/* every process is its own series in a trace */
	s.group_by = MEMZ_GROUP_NONE;

	row = calloc(1, sizeof *row);
	if (!row) {
		fprintf(stderr, "memz record: out of memory\n");
		return 1;
	}
	if (path && !(out = fopen(path, "w"))) {
		fprintf(stderr, "memz record: %s: %s\n", path, strerror(errno));
		free(row);
		return 2;
	}
	if (cli_sampler_open("memz record", &smp, &s, memz_allocator_libc())) {
		status = 1;
		goto out;
	}
	memz_snapshot_init(&snap);
	cli_catch_signals();
	fprintf(out, "# memz trace v5, interval %g s\n", interval);
	if (memz_trace_write_header(out)) {
		status = 1;
		goto release;
	}
	t0 = memz_now();
	for (next = t0; !cli_interrupted();) {
		double now = memz_now();

		rc = memz_sampler_run(smp, now, &snap);
		if (cli_cycle_report("memz record", &s, &snap, rc, &warned)) {
			status = 1;
			break;
		}
		cli_tell_denied("memz record", snap.stats.denied, &told);
		if (write_cycle(out, &snap, now - t0, row)) {
			fprintf(stderr, "memz record: write failed: %s\n",
				strerror(errno ? errno : EIO));
			status = 1;
			break;
		}
		next += interval;
		if (duration > 0 && next - t0 > duration + 1e-9)
			break;
		now = memz_now();
		if (next > now && cli_sleep(next - now))
			break;
	}
release:
	memz_snapshot_release(&snap);
	memz_sampler_free(&smp);
out:
	if (out != stdout && fclose(out) && !status) {
		fprintf(stderr, "memz record: %s: %s\n", path, strerror(errno));
		status = 1;
	}
	free(row);
	return status;
}
