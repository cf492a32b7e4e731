#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "memz/readbuf.h"

int memz_pread_file(int fd, char *buf, size_t cap, size_t *len)
{
	size_t off = 0;
	char extra;
	ssize_t n;

	if (cap == 0)
		return -EINVAL;
	for (;;) {
		if (off == cap - 1) {
			/* Full: one more byte tells a file that fits exactly
			 * from one that would be silently cut short. */
			do {
				n = pread(fd, &extra, 1, (off_t)off);
			} while (n < 0 && errno == EINTR);
			if (n < 0)
				return -errno;
			if (n > 0)
				return -EFBIG;
			break;
		}
		n = pread(fd, buf + off, cap - 1 - off, (off_t)off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		off += (size_t)n;
	}
	buf[off] = '\0';
	*len = off;
	return 0;
}

/* ProcRoot may be a fixture, a bind mount or a hostile tree: a FIFO there
 * would block open() and a device would never end a read, so open never
 * waits and only a regular file (every /proc and /sys file is one) is read. */
int memz_open_at(int dirfd, const char *name)
{
	struct stat st;
	int fd;

	do {
		fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	} while (fd < 0 && errno == EINTR);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	}
	return fd;
}

int memz_read_file_at(int dirfd, const char *name, char *buf, size_t cap,
		      size_t *len)
{
	int fd = memz_open_at(dirfd, name);
	int rc;

	if (fd < 0)
		return fd;
	rc = memz_pread_file(fd, buf, cap, len);
	close(fd);
	return rc;
}

int memz_parse_u64(const char **p, const char *end, unsigned long long *out)
{
	const char *s = *p;
	unsigned long long v = 0;
	const char *digits;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	digits = s;
	while (s < end && *s >= '0' && *s <= '9') {
		unsigned d = (unsigned)(*s - '0');

		if (v > (~0ULL - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
		s++;
	}
	if (s == digits)
		return -EINVAL;
	*out = v;
	*p = s;
	return 0;
}
