#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "memz/pidfiles.h"
#include "memz/procfs.h"
#include "memz/readbuf.h"

/* Reserved for the host's own files (sockets, logs, config). */
#define FD_RESERVE 64

void memz_pidfiles_init(struct memz_pidfiles *f, const struct memz_allocator *a)
{
	memset(f, 0, sizeof *f);
	f->proc_fd = -1;
	f->a = a;
}

int memz_pidfiles_open(struct memz_pidfiles *f, const char *proc_root,
		       int max_open_files)
{
	struct rlimit rl;

	f->fd_budget = max_open_files;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    (rlim_t)f->fd_budget + FD_RESERVE > rl.rlim_cur)
		f->fd_budget = rl.rlim_cur > FD_RESERVE ?
				       (int)(rl.rlim_cur - FD_RESERVE) : 0;
	f->proc_fd = open(proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return f->proc_fd < 0 ? -errno : 0;
}

void memz_pidfiles_release(struct memz_pidfiles *f)
{
	if (f->proc_fd >= 0)
		close(f->proc_fd);
	f->proc_fd = -1;
	memz_free(f->a, &f->big);
	f->big_cap = 0;
}

int memz_pidfiles_pread(struct memz_pidfiles *f, int fd, size_t *len)
{
	ssize_t n;

	f->files_read++;
	do {
		n = pread(fd, f->buf, sizeof f->buf - 1, 0);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if ((size_t)n == sizeof f->buf - 1) /* not one short record */
		return memz_pread_file(fd, f->buf, sizeof f->buf, len);
	f->buf[n] = '\0';
	*len = (size_t)n;
	return 0;
}

static bool out_of_fds(int rc)
{
	return rc == -EMFILE || rc == -ENFILE;
}

static int open_pidfile(struct memz_pidfiles *f, int pid, const char *name)
{
	char path[64];
	int fd;

	snprintf(path, sizeof path, "%d/%s", pid, name);
	f->files_opened++;
	fd = memz_open_at(f->proc_fd, path);
	if (!out_of_fds(fd))
		return fd;
	if (f->spare && !f->spared) {
		f->spared = true;
		if (f->spare(f->spare_ctx))
			fd = memz_open_at(f->proc_fd, path);
	}
	if (out_of_fds(fd) && !f->fd_short++)
		snprintf(f->failed, sizeof f->failed, "%s", path);
	return fd;
}

int memz_pidfiles_read(struct memz_pidfiles *f, int pid, const char *name,
		       size_t *len)
{
	int fd = open_pidfile(f, pid, name), rc;

	if (fd < 0) {
		f->files_read++;
		return fd;
	}
	rc = memz_pidfiles_pread(f, fd, len);
	close(fd);
	return rc;
}

int memz_pidfiles_read_big(struct memz_pidfiles *f, int pid, const char *name,
			   size_t *len)
{
	char path[64];

	snprintf(path, sizeof path, "%d/%s", pid, name);
	f->files_read++;
	f->files_opened++;
	return memz_read_file_grow(f->a, f->proc_fd, path, &f->big, &f->big_cap,
				   len);
}

int memz_pidfiles_keep(struct memz_pidfiles *f, int pid, const char *name,
		       int limit)
{
	int fd;

	if (f->open_fds >= limit || f->open_fds >= f->fd_budget)
		return -1;
	fd = open_pidfile(f, pid, name);
	if (fd < 0)
		return -1;
	f->open_fds++;
	return fd;
}

void memz_pidfiles_close(struct memz_pidfiles *f, int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		f->open_fds--;
		*fd = -1;
	}
}
