/* Bounded whole-file reads and the bounded number parser. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "memz/alloc.h"
#include "memz/procfs.h"
#include "memz/readbuf.h"

static int tmpfile_with(const char *content, size_t n)
{
	char path[] = "/tmp/memz-readbuf-XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0)
		return -1;
	unlink(path);
	if (write(fd, content, n) != (ssize_t)n) {
		close(fd);
		return -1;
	}
	return fd;
}

static void test_pread(void)
{
	char buf[8];
	size_t len = 99;
	int fd = tmpfile_with("abcdefg", 7);

	CHECK(fd >= 0);
	/* exactly cap-1 bytes fits */
	CHECK_INT(memz_pread_file(fd, buf, sizeof(buf), &len), 0);
	CHECK_U64(len, 7);
	CHECK_STR(buf, "abcdefg");
	/* re-read from offset 0 although the file offset moved nowhere */
	CHECK_INT(memz_pread_file(fd, buf, sizeof(buf), &len), 0);
	CHECK_STR(buf, "abcdefg");
	/* one byte more than fits: refused, never cut */
	CHECK_INT(memz_pread_file(fd, buf, 7, &len), -EFBIG);
	CHECK_INT(memz_pread_file(fd, buf, 0, &len), -EINVAL);
	close(fd);

	fd = tmpfile_with("", 0);
	CHECK_INT(memz_pread_file(fd, buf, 1, &len), 0);
	CHECK_U64(len, 0);
	CHECK_STR(buf, "");
	close(fd);

	CHECK_INT(memz_pread_file(-1, buf, sizeof(buf), &len), -EBADF);
}

static void test_read_at(void)
{
	char buf[64];
	size_t len;

	CHECK_INT(memz_read_file_at(AT_FDCWD, "/nonexistent/memz", buf,
				    sizeof(buf), &len), -ENOENT);
	CHECK_INT(memz_open_at(AT_FDCWD, "/nonexistent/memz"), -ENOENT);
	CHECK_INT(memz_read_file_at(AT_FDCWD, MEMZ_FIXTURES "/real1/proc/meminfo",
				    buf, sizeof(buf), &len), -EFBIG);
}

/* A FIFO blocks open() until a writer comes, a device never ends a read:
 * neither may stall a reader, which must say what it refused. The alarm
 * turns a hang into a failure. */
static void test_not_regular(void)
{
	char dir[] = "/tmp/memz-fifo-XXXXXX", fifo[64], buf[64];
	char *big = NULL;
	size_t len, cap = 0;
	int fd;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(fifo, sizeof fifo, "%s/meminfo", dir);
	CHECK_INT(mkfifo(fifo, 0600), 0);
	alarm(10);
	CHECK_INT(memz_open_at(AT_FDCWD, fifo), -EINVAL);
	CHECK_INT(memz_read_file_at(AT_FDCWD, fifo, buf, sizeof buf, &len),
		  -EINVAL);
	CHECK_INT(memz_read_file_grow(memz_allocator_libc(), AT_FDCWD, fifo,
				      &big, &cap, &len), -EINVAL);
	CHECK(big == NULL);
	CHECK_INT(memz_open_at(AT_FDCWD, "/dev/zero"), -EINVAL);
	CHECK_INT(memz_open_at(AT_FDCWD, dir), -EISDIR);
	alarm(0);
	fd = memz_open_at(AT_FDCWD, "/proc/self/stat");
	CHECK(fd >= 0);
	CHECK(fd >= 0 && (fcntl(fd, F_GETFL) & O_NONBLOCK));
	if (fd >= 0)
		close(fd);
	unlink(fifo);
	rmdir(dir);
}

static void test_parse_u64(void)
{
	const char *s = "  \t42 rest";
	const char *p = s;
	unsigned long long v = 7;

	CHECK_INT(memz_parse_u64(&p, s + strlen(s), &v), 0);
	CHECK_U64(v, 42);
	CHECK(p == s + 5);

	/* the end pointer bounds it: "12345" read as "12" */
	s = "12345";
	p = s;
	CHECK_INT(memz_parse_u64(&p, s + 2, &v), 0);
	CHECK_U64(v, 12);
	CHECK(p == s + 2);

	s = "18446744073709551615";
	p = s;
	CHECK_INT(memz_parse_u64(&p, s + strlen(s), &v), 0);
	CHECK_U64(v, 18446744073709551615ULL);

	s = "18446744073709551616";
	p = s;
	v = 7;
	CHECK_INT(memz_parse_u64(&p, s + strlen(s), &v), -ERANGE);
	CHECK(p == s);
	CHECK_U64(v, 7);

	s = "  x1";
	p = s;
	CHECK_INT(memz_parse_u64(&p, s + strlen(s), &v), -EINVAL);
	CHECK(p == s);
	CHECK_INT(memz_parse_u64(&p, s, &v), -EINVAL);
	s = "-1";
	p = s;
	CHECK_INT(memz_parse_u64(&p, s + 2, &v), -EINVAL);
}

/* A counting allocator proves the second read of the same file reuses the
 * buffer. */
struct counting {
	int calls;
};

static void *counting_realloc(void *ctx, void *p, size_t n)
{
	struct counting *c = ctx;

	c->calls++;
	if (n == 0) {
		free(p);
		return NULL;
	}
	return realloc(p, n);
}

static void test_read_grow(void)
{
	struct counting c = { 0 };
	struct memz_allocator a = { counting_realloc, &c };
	char *buf = NULL;
	size_t cap = 0, len = 0;
	int dirfd = open(MEMZ_FIXTURES "/real1/proc", O_RDONLY | O_DIRECTORY);
	size_t expect;
	int calls;
	char path[64];
	int fd;

	CHECK(dirfd >= 0);
	/* Larger than the first 4 KiB: it has to grow. */
	CHECK_INT(memz_read_file_grow(&a, dirfd, "self/smaps", &buf, &cap, &len),
		  0);
	fd = openat(dirfd, "self/smaps", O_RDONLY);
	expect = (size_t)lseek(fd, 0, SEEK_END);
	close(fd);
	CHECK_U64(len, expect);
	CHECK(len > 4096);
	CHECK(cap > len);
	CHECK_U64(strlen(buf), len);
	CHECK(memcmp(buf, "", 1) != 0);
	calls = c.calls;
	CHECK(calls > 0);
	CHECK_INT(memz_read_file_grow(&a, dirfd, "self/smaps", &buf, &cap, &len),
		  0);
	CHECK_INT(c.calls, calls);
	CHECK_U64(len, expect);
	CHECK_INT(memz_read_file_grow(&a, dirfd, "nope", &buf, &cap, &len),
		  -ENOENT);
	snprintf(path, sizeof(path), "self");
	CHECK_INT(memz_read_file_grow(&a, dirfd, path, &buf, &cap, &len),
		  -EISDIR);
	memz_free(&a, &buf);
	CHECK(buf == NULL);
	close(dirfd);
}

/* A kept /proc fd of a process that exited: ESRCH, which the sampler takes
 * for "gone". */
static void test_kept_fd_exited(void)
{
	char path[64], buf[256];
	size_t len;
	pid_t child = fork();
	int fd;

	if (child == 0) {
		pause();
		_exit(0);
	}
	CHECK(child > 0);
	snprintf(path, sizeof(path), "/proc/%d/statm", (int)child);
	fd = memz_open_at(AT_FDCWD, path);
	CHECK(fd >= 0);
	CHECK_INT(memz_pread_file(fd, buf, sizeof(buf), &len), 0);
	CHECK(len > 0);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	CHECK_INT(memz_pread_file(fd, buf, sizeof(buf), &len), -ESRCH);
	close(fd);
}

int main(void)
{
	test_pread();
	test_read_at();
	test_not_regular();
	test_parse_u64();
	test_read_grow();
	test_kept_fd_exited();
	return check_status();
}
