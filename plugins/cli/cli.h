/*
 * cli.h - the memz command line tool's subcommands.
 *
 * Each subcommand is one function with main()'s signature (argv[0] is the
 * subcommand's name) and returns the process exit status: 0 success, 1 the
 * target is gone or unreadable, 2 usage error (trace rejected: 2 as well).
 * Settings are given as --set NAME=VALUE and go through the core's table
 * (cli_apply_set()).
 */
#ifndef MEMZ_CLI_H
#define MEMZ_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "memz/settings.h"

int cli_top(int argc, char **argv);
int cli_inspect(int argc, char **argv);
/* Called by memz inspect --samples between two cycles (after cycle, from
 * 0), when set: tests change the fixture a run reads. NULL in memz. */
extern void (*cli_inspect_between)(unsigned cycle);
int cli_json(int argc, char **argv);
int cli_record(int argc, char **argv);
int cli_replay(int argc, char **argv);

/* Apply "NAME=VALUE" to s; on error prints "memz: <reason>" to stderr and
 * returns -1. */
int cli_apply_set(struct memz_settings *s, const char *assignment);

/* util.c: small pieces every subcommand shares. */

/* A PID argument: decimal digits only, 1..INT_MAX. 0 or -1. */
int cli_parse_pid(const char *s, int *pid);
/* A count (0..1000000) or an interval in seconds (0 < s <= 86400). */
int cli_parse_count(const char *s, unsigned *out);
int cli_parse_seconds(const char *s, double *out);

/* What getopt_long returned that no subcommand treats its own way: 'h'
 * prints usage to stdout (exit 0); ':' (a value missing) and anything else
 * (an unknown option) say so on stderr (exit 2). cmd is "memz top" etc. */
int cli_other_option(const char *cmd, int c, char **argv,
		     void (*usage)(FILE *f));

/* getopt_long's value for --set NAME=VALUE, which every subcommand takes. */
enum { CLI_OPT_SET = 1024 };

/* The options subcommands share, so each is parsed and told wrong in one
 * way: 'i' (-i/--interval S, when interval is not NULL) into *interval,
 * CLI_OPT_SET into set; anything else as cli_other_option(). -1 when c was
 * taken and parsing goes on, else the exit status. */
int cli_shared_option(const char *cmd, int c, char **argv, double *interval,
		      struct memz_settings *set, void (*usage)(FILE *f));
/* After the options of a subcommand that takes no operand: -1 when none
 * is left, else 2 with the first one said on stderr. */
int cli_no_operands(const char *cmd, int argc, char **argv);

/* Bytes as "12.3 MiB" (raw: "12897484"). Returns buf. */
const char *cli_bytes(uint64_t v, bool raw, char *buf, size_t len);
/* A growth rate as "+1.5 MiB/s" (raw: "+1572864"). */
const char *cli_rate(double bps, bool raw, char *buf, size_t len);
/* A hostile name made safe for the terminal. */
const char *cli_name(const char *name, char *buf, size_t len);

/* The sampler, or (1) a message on stderr naming the file or directory it
 * could not open: "memz json: cannot read /proc/meminfo: Is a directory". */
struct memz_sampler;
struct memz_snapshot;
struct memz_allocator;
int cli_sampler_open(const char *cmd, struct memz_sampler **sm,
		     const struct memz_settings *set,
		     const struct memz_allocator *a);
/* After memz_sampler_run returned rc: a failed cycle names its file (1);
 * files that could not be opened for want of fds are said once a run
 * (*warned), with how many and the first. 0 when the cycle holds. */
int cli_cycle_report(const char *cmd, const struct memz_settings *set,
		     const struct memz_snapshot *snap, int rc, bool *warned);

/* Once per run (*told): when a cycle could not read `denied` processes of
 * other users and the capabilities to read them are not in effect, one
 * line on stderr saying so and how to see them. cmd is "memz top" etc. */
void cli_tell_denied(const char *cmd, unsigned denied, bool *told);

/* Sleep s seconds; returns early (non-zero) once SIGINT/SIGTERM arrived. */
int cli_sleep(double s);
/* Catch SIGINT/SIGTERM so a watch loop ends cleanly. */
void cli_catch_signals(void);
bool cli_interrupted(void);

/* baseline.c: a saved `memz json` for memz top --baseline */
struct cli_base_entry {
	char *name; /* a group's, or "" */
	int pid;    /* a process's, or 0 */
	unsigned long long start;
	uint64_t pss;
	bool seen; /* matched by a row of the current table */
};

struct cli_base_list {
	struct cli_base_entry *e;
	size_t n;
};

struct cli_baseline {
	struct cli_base_list groups, procs;
};

/* 0, or -errno with the reason in err. */
int cli_baseline_load(struct cli_baseline *b, const char *file, char *err,
		      size_t errlen);
void cli_baseline_free(struct cli_baseline *b);
struct cli_base_entry *cli_baseline_group(struct cli_baseline *b,
					  const char *name);
struct cli_base_entry *cli_baseline_proc(struct cli_baseline *b, int pid,
					 unsigned long long start);

#endif
