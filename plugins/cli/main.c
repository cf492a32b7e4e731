#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *what;
} commands[] = {
	{ "top", cli_top, "groups or processes by PSS, with growth and [LEAK?]" },
	{ "inspect", cli_inspect, "one process's memory by mapping category" },
	{ "json", cli_json, "one snapshot as JSON" },
	{ "record", cli_record, "record the live system as a trace" },
	{ "replay", cli_replay, "run the leak detector over a trace" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: memz COMMAND [OPTIONS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].what);
	fprintf(f, "\noptions:\n"
		   "  -h, --help     this text\n"
		   "  -V, --version  print the version and exit\n"
		   "\n'memz COMMAND --help' describes each command.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("memz %s\n", PACKAGE_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "memz: unknown command \"%s\"\n", argv[1]);
	usage(stderr);
	return 2;
}
