/*
 * cli_mapper - a process with one known private anonymous mapping, for the
 * live `memz inspect` test: "cli_mapper MIB touch|untouched" maps MIB MiB,
 * writes every page (touch) or none, prints the mapping's start address in
 * hex, then waits until stdin closes.
 */
#define _DEFAULT_SOURCE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	size_t len;
	char *p, c;

	if (argc != 3 || (strcmp(argv[2], "touch") && strcmp(argv[2], "untouched")))
		return 2;
	len = (size_t)strtoul(argv[1], NULL, 10) << 20;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED)
		return 1;
	if (!strcmp(argv[2], "touch"))
		memset(p, 0x5a, len);
	printf("%lx\n", (unsigned long)p);
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	munmap(p, len);
	return 0;
}
