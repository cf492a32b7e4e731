#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "memz/pidwatch.h"
#include "memz/readbuf.h"

int memz_parse_loadavg_last_pid(const char *buf, size_t len, int *out)
{
	const char *end = buf + len, *p = end;
	unsigned long long v;
	int rc;

	while (p > buf && (p[-1] == '\n' || p[-1] == ' '))
		p--;
	end = p;
	while (p > buf && p[-1] != ' ')
		p--;
	/* four fields before it: three averages and running/total */
	if (p == buf || p == end || !memchr(buf, '/', (size_t)(p - buf)))
		return -EINVAL;
	rc = memz_parse_u64(&p, end, &v);
	if (rc)
		return rc;
	if (p != end)
		return -EINVAL;
	if (v > INT_MAX)
		return -ERANGE;
	*out = (int)v;
	return 0;
}

void memz_pidwatch_init(struct memz_pidwatch *w)
{
	w->fd = -1;
	w->primed = false;
	w->last = 0;
}

/* ProcRoot/self is a symlink to our pid as ProcRoot's namespace numbers it. */
static bool same_namespace(int proc_fd)
{
	char link[32], want[32];
	ssize_t n = readlinkat(proc_fd, "self", link, sizeof link - 1);

	if (n <= 0)
		return false;
	link[n] = '\0';
	snprintf(want, sizeof want, "%ld", (long)getpid());
	return !strcmp(link, want);
}

int memz_pidwatch_open(struct memz_pidwatch *w, int proc_fd)
{
	int fd, last;
	size_t len;

	memz_pidwatch_release(w);
	if (!same_namespace(proc_fd))
		return 0;
	fd = memz_open_at(proc_fd, "loadavg");
	if (fd < 0)
		return 0;
	if (memz_pread_file(fd, w->buf, sizeof w->buf, &len) ||
	    memz_parse_loadavg_last_pid(w->buf, len, &last) || last == 0) {
		close(fd);
		return 0;
	}
	w->fd = fd;
	return 0;
}

bool memz_pidwatch_on(const struct memz_pidwatch *w)
{
	return w->fd >= 0;
}

bool memz_pidwatch_changed(struct memz_pidwatch *w)
{
	size_t len;
	int last;

	if (w->fd < 0)
		return true;
	if (memz_pread_file(w->fd, w->buf, sizeof w->buf, &len) ||
	    memz_parse_loadavg_last_pid(w->buf, len, &last)) {
		w->primed = false;
		return true;
	}
	if (w->primed && last == w->last)
		return false;
	w->last = last;
	w->primed = true;
	return true;
}

void memz_pidwatch_release(struct memz_pidwatch *w)
{
	if (w->fd >= 0)
		close(w->fd);
	memz_pidwatch_init(w);
}
