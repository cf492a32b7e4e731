/* memz top --baseline FILE: the saved `memz json` read back, from whoever
 * wrote the file. The loader takes a path, so the input is put in a memfd
 * and opened by its /proc/self/fd link: the fuzzer's own bytes, no file
 * on disk and nothing of the host's /proc. Every entry loaded must then be
 * found by its key, as memz top looks each row up. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	struct cli_baseline b;
	char err[128];

	if (fd < 0) {
		fd = memfd_create("memz-fuzz-baseline", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) ||
	    (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		abort();
	if (cli_baseline_load(&b, path, err, sizeof err)) {
		/* refused: nothing kept, and a reason to show */
		if (b.groups.e || b.procs.e || b.groups.n || b.procs.n ||
		    !err[0] || !memchr(err, '\0', sizeof err))
			__builtin_trap();
		return 0;
	}
	for (size_t i = 0; i < b.groups.n; i++) {
		struct cli_base_entry *e =
			cli_baseline_group(&b, b.groups.e[i].name);

		if (!e || strcmp(e->name, b.groups.e[i].name))
			__builtin_trap();
	}
	for (size_t i = 0; i < b.procs.n; i++) {
		struct cli_base_entry *e = cli_baseline_proc(
			&b, b.procs.e[i].pid, b.procs.e[i].start);

		if (!e || e->pid != b.procs.e[i].pid ||
		    e->start != b.procs.e[i].start || !e->name)
			__builtin_trap();
	}
	cli_baseline_free(&b);
	return 0;
}
