/*
 * The per-process file reader: whole records through kept fds, the fd
 * budget and its limits, and the counters, on the tree1 fixture.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "check.h"
#include "counting_alloc.h"
#include "memz/pidfiles.h"

#define ROOT MEMZ_FIXTURES "/tree1/proc"

static void test_reads(void)
{
	struct counting c = { 0 };
	struct memz_allocator a = { counting_realloc, &c };
	struct memz_pidfiles f;
	size_t len = 0;
	int fd;

	memz_pidfiles_init(&f, &a);
	CHECK_INT(f.proc_fd, -1);
	CHECK_INT(memz_pidfiles_open(&f, ROOT, 100), 0);
	CHECK(f.fd_budget > 0 && f.fd_budget <= 100);

	CHECK_INT(memz_pidfiles_read(&f, 100, "statm", &len), 0);
	CHECK_STR(f.buf, "3456 1152 640 641 0 520 0\n");
	CHECK_INT(len, strlen(f.buf));
	CHECK_INT(f.files_read, 1);
	CHECK_INT(f.files_opened, 1);

	/* a file that is not there: counted, and the error said */
	CHECK_INT(memz_pidfiles_read(&f, 100, "nothere", &len), -ENOENT);
	CHECK_INT(memz_pidfiles_read(&f, 999, "statm", &len), -ENOENT);
	CHECK_INT(f.files_read, 3);
	CHECK_INT(f.files_opened, 3);

	/* a kept fd is read again from its start, one read a record */
	fd = memz_pidfiles_keep(&f, 100, "statm", f.fd_budget);
	CHECK(fd >= 0);
	CHECK_INT(f.open_fds, 1);
	CHECK_INT(memz_pidfiles_pread(&f, fd, &len), 0);
	CHECK_INT(memz_pidfiles_pread(&f, fd, &len), 0);
	CHECK_STR(f.buf, "3456 1152 640 641 0 520 0\n");
	CHECK_INT(f.files_read, 5);
	CHECK_INT(f.files_opened, 4);

	/* a limit below the budget: a kind of file that may take only part */
	CHECK_INT(memz_pidfiles_keep(&f, 100, "status", 1), -1);
	CHECK_INT(f.open_fds, 1);
	CHECK_INT(memz_pidfiles_keep(&f, 999, "statm", f.fd_budget), -1);
	CHECK_INT(f.open_fds, 1);
	memz_pidfiles_close(&f, &fd);
	CHECK_INT(fd, -1);
	CHECK_INT(f.open_fds, 0);
	memz_pidfiles_close(&f, &fd); /* -1 is left alone */
	CHECK_INT(f.open_fds, 0);

	/* a file of any size goes to the large buffer */
	CHECK_INT(memz_pidfiles_read_big(&f, 100, "smaps_rollup", &len), 0);
	CHECK(f.big && strstr(f.big, "Pss:") != NULL);
	CHECK_INT(len, strlen(f.big));
	memz_pidfiles_release(&f);
	CHECK_INT(f.proc_fd, -1);
	CHECK_INT(c.live, 0);
}

static void test_budget(void)
{
	struct memz_pidfiles f;
	struct rlimit old, low;
	int fds[3];

	/* the fd limit leaves a reserve for the host's own files */
	CHECK_INT(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	low.rlim_cur = 66;
	if (low.rlim_max != RLIM_INFINITY && low.rlim_max < 66)
		return;
	if (setrlimit(RLIMIT_NOFILE, &low))
		return; /* valgrind keeps the limit for itself */
	memz_pidfiles_init(&f, memz_allocator_libc());
	CHECK_INT(memz_pidfiles_open(&f, ROOT, 1000), 0);
	CHECK_INT(f.fd_budget, 2);
	for (int i = 0; i < 3; i++)
		fds[i] = memz_pidfiles_keep(&f, 100, "statm", 1000);
	CHECK(fds[0] >= 0 && fds[1] >= 0);
	CHECK_INT(fds[2], -1);
	CHECK_INT(f.open_fds, 2);
	for (int i = 0; i < 3; i++)
		memz_pidfiles_close(&f, &fds[i]);
	memz_pidfiles_release(&f);
	CHECK_INT(setrlimit(RLIMIT_NOFILE, &old), 0);

	memz_pidfiles_init(&f, memz_allocator_libc());
	CHECK_INT(memz_pidfiles_open(&f, MEMZ_FIXTURES "/nothere", 10), -ENOENT);
	memz_pidfiles_release(&f);
}

static unsigned give_back(void *ctx)
{
	int *fd = ctx;

	if (*fd < 0)
		return 0;
	close(*fd);
	*fd = -1;
	return 1;
}

/* Out of fds: counted, the first file named; a spare hook, asked once,
 * frees one and the open goes through. */
static void test_short_of_fds(void)
{
	struct memz_pidfiles f;
	struct rlimit old, lim;
	size_t len;
	int spare, lowest;

	memz_pidfiles_init(&f, memz_allocator_libc());
	CHECK_INT(memz_pidfiles_open(&f, ROOT, 100), 0);
	spare = open("/dev/null", O_RDONLY);
	CHECK(spare >= 0);
	lowest = dup(0);
	CHECK(lowest > spare);
	close(lowest);
	CHECK_INT(getrlimit(RLIMIT_NOFILE, &old), 0);
	lim = old;
	lim.rlim_cur = (rlim_t)lowest; /* no fd left to open */
	CHECK_INT(setrlimit(RLIMIT_NOFILE, &lim), 0);

	CHECK_INT(memz_pidfiles_read(&f, 100, "statm", &len), -EMFILE);
	CHECK_INT(memz_pidfiles_read(&f, 100, "stat", &len), -EMFILE);
	CHECK_INT(f.fd_short, 2);
	CHECK_STR(f.failed, "100/statm");

	f.fd_short = 0;
	f.spare = give_back;
	f.spare_ctx = &spare;
	CHECK_INT(memz_pidfiles_read(&f, 100, "statm", &len), 0);
	CHECK(f.spared);
	CHECK_INT(spare, -1);
	CHECK_INT(f.fd_short, 0);

	CHECK_INT(setrlimit(RLIMIT_NOFILE, &old), 0);
	memz_pidfiles_release(&f);
}

int main(void)
{
	test_reads();
	test_budget();
	test_short_of_fds();
	return check_status();
}
