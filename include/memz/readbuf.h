/*
 * readbuf.h - bounded reads of /proc and /sys files.
 *
 * Every reader reads a whole small file with one call into a buffer the
 * caller owns and reuses, and NUL-terminates it. A file that does not fit is
 * an error (-EFBIG), never silently truncated. Kept file descriptors are
 * re-read from offset 0 with pread, which is what makes the cheap per-cycle
 * probe cheap: no path lookup, no open.
 */
#ifndef MEMZ_READBUF_H
#define MEMZ_READBUF_H

#include <stddef.h>

/* pread fd from offset 0 into buf[cap] (NUL-terminated, so at most cap-1
 * bytes of content). *len gets the length. Returns 0, -EFBIG when the file
 * does not fit, or -errno (ESRCH when the process behind a kept /proc fd
 * exited). */
int memz_pread_file(int fd, char *buf, size_t cap, size_t *len);

/* openat(dirfd, name) + memz_pread_file + close. dirfd may be AT_FDCWD. */
int memz_read_file_at(int dirfd, const char *name, char *buf, size_t cap,
		      size_t *len);

/* Open read-only with O_CLOEXEC, never blocking (O_NONBLOCK); returns fd,
 * -EISDIR for a directory, -EINVAL for anything else that is not a regular
 * file (a FIFO, a device, a socket), or -errno. */
int memz_open_at(int dirfd, const char *name);

/*
 * Bounded number parsing: parse a decimal unsigned integer at *p, skipping
 * leading blanks, advancing *p past it. Returns 0, -EINVAL (no digits) or
 * -ERANGE (overflow). Never reads past end.
 */
int memz_parse_u64(const char **p, const char *end, unsigned long long *out);

#endif
