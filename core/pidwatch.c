#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "memz/pidwatch.h"
#include "memz/readbuf.h"

int memz_parse_loadavg_pids(const char *buf, size_t len, int *tasks,
			    int *last_pid)
{
	const char *end = buf + len, *p = end, *field, *slash;
	unsigned long long t, l;
	int rc;

	while (p > buf && (p[-1] == '\n' || p[-1] == ' '))
		p--;
	end = p;
	while (p > buf && p[-1] != ' ')
		p--;
	field = p; /* the last pid */
	if (field == buf || field == end)
		return -EINVAL;
	p = field - 1;
	while (p > buf && p[-1] != ' ')
		p--;
	/* running/total, after three averages */
	slash = memchr(p, '/', (size_t)(field - 1 - p));
	if (!slash || p == buf)
		return -EINVAL;
	p = slash + 1;
	rc = memz_parse_u64(&p, field - 1, &t);
	if (rc)
		return rc;
	if (p != field - 1)
		return -EINVAL;
	p = field;
	rc = memz_parse_u64(&p, end, &l);
	if (rc)
		return rc;
	if (p != end)
		return -EINVAL;
	if (t > INT_MAX || l > INT_MAX)
		return -ERANGE;
	*tasks = (int)t;
	*last_pid = (int)l;
	return 0;
}

void memz_pidwatch_init(struct memz_pidwatch *w)
{
	w->fd = -1;
	w->primed = w->has_prev = w->counts = false;
	w->last_pid = w->tasks = 0;
	w->prev_last_pid = w->prev_tasks = 0;
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

/* ProcRoot/self/ns/pid names the initial pid namespace, whose inode is
 * the kernel's PROC_PID_INIT_INO, 0xEFFFFFFC, on every kernel since 3.8. */
static bool initial_namespace(int proc_fd)
{
	char link[64];
	ssize_t n = readlinkat(proc_fd, "self/ns/pid", link, sizeof link - 1);

	if (n <= 0)
		return false;
	link[n] = '\0';
	return !strcmp(link, "pid:[4026531836]");
}

void memz_pidwatch_open(struct memz_pidwatch *w, int proc_fd)
{
	int fd, tasks, last;
	size_t len;

	memz_pidwatch_release(w);
	if (!same_namespace(proc_fd))
		return;
	fd = memz_open_at(proc_fd, "loadavg");
	if (fd < 0)
		return;
	if (memz_pread_file(fd, w->buf, sizeof w->buf, &len) ||
	    memz_parse_loadavg_pids(w->buf, len, &tasks, &last) || last == 0) {
		close(fd);
		return;
	}
	w->fd = fd;
	w->counts = initial_namespace(proc_fd);
}

bool memz_pidwatch_on(const struct memz_pidwatch *w)
{
	return w->fd >= 0;
}

bool memz_pidwatch_counts_exits(const struct memz_pidwatch *w)
{
	return w->fd >= 0 && w->counts;
}

unsigned memz_pidwatch_changed(struct memz_pidwatch *w)
{
	const unsigned all = MEMZ_PIDWATCH_NEW | MEMZ_PIDWATCH_GONE;
	unsigned what = 0;
	size_t len;
	int tasks, last;

	if (w->fd < 0)
		return all;
	if (memz_pread_file(w->fd, w->buf, sizeof w->buf, &len) ||
	    memz_parse_loadavg_pids(w->buf, len, &tasks, &last)) {
		w->primed = w->has_prev = false;
		return all;
	}
	w->has_prev = w->primed;
	w->prev_last_pid = w->last_pid;
	w->prev_tasks = w->tasks;
	if (!w->primed)
		what = all;
	else if (last != w->last_pid)
		what = all; /* new ones, and maybe some gone in between */
	else if (tasks != w->tasks || !w->counts)
		what = MEMZ_PIDWATCH_GONE;
	w->last_pid = last;
	w->tasks = tasks;
	w->primed = true;
	return what;
}

bool memz_pidwatch_span(const struct memz_pidwatch *w, int *from, int *to,
			int *delta)
{
	if (w->fd < 0 || !w->primed || !w->has_prev ||
	    w->last_pid < w->prev_last_pid)
		return false;
	*from = w->prev_last_pid;
	*to = w->last_pid;
	*delta = w->counts ? w->tasks - w->prev_tasks : 0;
	return true;
}

bool memz_pidwatch_still(struct memz_pidwatch *w)
{
	size_t len;
	int tasks, last;

	if (w->fd < 0 || !w->primed || !w->counts ||
	    memz_pread_file(w->fd, w->buf, sizeof w->buf, &len) ||
	    memz_parse_loadavg_pids(w->buf, len, &tasks, &last))
		return false;
	return tasks == w->tasks && last == w->last_pid;
}

void memz_pidwatch_release(struct memz_pidwatch *w)
{
	if (w->fd >= 0)
		close(w->fd);
	memz_pidwatch_init(w);
}
