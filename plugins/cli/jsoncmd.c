/* memz json: one snapshot as a line of JSON (the core's memz_json_print_report). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* getopt_long */
#endif

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "memz/json.h"
#include "memz/sampler.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: memz json [OPTIONS]\n"
		"One snapshot (breakdown, groups, users, processes, verdicts) as JSON.\n\n"
		"  -n, --samples N     sample N cycles, print the last (default 1;\n"
		"                      2 or more gives growth rates)\n"
		"  -i, --interval S    seconds between cycles (default 1)\n"
		"  -o, --out FILE      write it to FILE (replaced whole, never half\n"
		"                      written) instead of stdout: a baseline for\n"
		"                      memz top --baseline FILE\n"
		"      --set NAME=VALUE  a memz setting (ProcRoot, GroupBy, ...)\n"
		"  -h, --help          this text\n");
}

static int parse_args(int argc, char **argv, unsigned *samples,
		      double *interval, const char **out,
		      struct memz_settings *set)
{
	static const struct option longopts[] = {
		{ "samples", required_argument, NULL, 'n' },
		{ "interval", required_argument, NULL, 'i' },
		{ "out", required_argument, NULL, 'o' },
		{ "set", required_argument, NULL, CLI_OPT_SET },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":n:i:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (cli_parse_count(optarg, samples) || *samples == 0) {
				fprintf(stderr, "memz json: bad --samples \"%s\" "
					"(a number 1..1000000)\n", optarg);
				return 2;
			}
			break;
		case 'o':
			*out = optarg;
			break;
		default:
			rc = cli_shared_option("memz json", c, argv, interval,
					       set, usage);
			if (rc >= 0)
				return rc;
		}
	}
	return cli_no_operands("memz json", argc, argv);
}

/* The snapshot to file, through a temporary beside it and a rename, so a
 * reader (memz top --baseline) never sees half of one. */
static int save(const char *file, const struct memz_report_view *view)
{
	char tmp[4096];
	FILE *f;
	int rc = 0;

	if (snprintf(tmp, sizeof tmp, "%s.tmp%ld", file, (long)getpid()) >=
	    (int)sizeof tmp) {
		fprintf(stderr, "memz json: --out %s: name too long\n", file);
		return -1;
	}
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "memz json: --out %s: %s\n", file, strerror(errno));
		return -1;
	}
	if (memz_json_print_report(f, view) || fflush(f) || fsync(fileno(f)))
		rc = -1;
	if (fclose(f))
		rc = -1;
	if (!rc && rename(tmp, file))
		rc = -1;
	if (rc) {
		fprintf(stderr, "memz json: --out %s: %s\n", file, strerror(errno));
		unlink(tmp);
	}
	return rc;
}

int cli_json(int argc, char **argv)
{
	const struct memz_allocator *a = memz_allocator_libc();
	struct memz_settings set;
	struct memz_sampler *sm = NULL;
	struct memz_snapshot snap;
	struct memz_report *report = NULL;
	const struct memz_report_view *view;
	unsigned samples = 1;
	double interval = 1;
	bool warned = false;
	const char *out = NULL;
	int rc;
	bool told = false;

	memz_settings_init(&set);
	rc = parse_args(argc, argv, &samples, &interval, &out, &set);
	if (rc >= 0)
		return rc;
	if (cli_sampler_open("memz json", &sm, &set, a))
		return 1;
	rc = 0;
	memz_snapshot_init(&snap);
	cli_catch_signals();
	for (unsigned i = 0; i < samples && !rc; i++) {
		if (i && cli_sleep(interval))
			break;
		rc = memz_sampler_run(sm, memz_now(), &snap);
		rc = cli_cycle_report("memz json", &set, &snap, rc, &warned);
	}
	if (!rc)
		cli_tell_denied("memz json", snap.stats.denied, &told);
	/* with fds so short that not one process could be read, the answer
	 * is printed (its stats say why) but is not a success */
	if (!rc && (memz_report_new(&report, a) ||
		    memz_report_update(report, &snap, &view)))
		rc = -1;
	else if (!rc && (out ? save(out, view)
			     : memz_json_print_report(stdout, view) ||
				       fflush(stdout)))
		rc = -1;
	else if (!rc && snap.stats.fd_short && !snap.view.n_procs)
		rc = -1;
	memz_report_free(&report);
	memz_snapshot_release(&snap);
	memz_sampler_free(&sm);
	return rc ? 1 : 0;
}
