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

#include "memz/settings.h"

int cli_top(int argc, char **argv);
int cli_inspect(int argc, char **argv);
int cli_json(int argc, char **argv);
int cli_record(int argc, char **argv);
int cli_replay(int argc, char **argv);

/* Apply "NAME=VALUE" to s; on error prints "memz: <reason>" to stderr and
 * returns -1. */
int cli_apply_set(struct memz_settings *s, const char *assignment);

#endif
