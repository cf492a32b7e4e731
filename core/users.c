#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "memz/readbuf.h"
#include "memz/sanitize.h"
#include "memz/users.h"

void memz_users_init(struct memz_users *us)
{
	memset(us, 0, sizeof *us);
}

void memz_users_free(struct memz_users *us, const struct memz_allocator *a)
{
	memz_free(a, &us->u);
	memz_users_init(us);
}

/* name:password:uid:...; 0 when the line names a user, else -EINVAL */
static int parse_line(const char *s, const char *end, struct memz_user *out)
{
	const char *name = s, *c1, *c2, *p;
	unsigned long long uid;
	size_t n;

	/* "+name" and "-name" are NSS compat's inclusions, not users */
	if (s == end || *s == '+' || *s == '-')
		return -EINVAL;
	c1 = memchr(s, ':', (size_t)(end - s));
	if (!c1 || c1 == name)
		return -EINVAL;
	n = (size_t)(c1 - name);
	if (n >= MEMZ_USER_NAME_MAX)
		return -EINVAL;
	c2 = memchr(c1 + 1, ':', (size_t)(end - c1 - 1));
	if (!c2)
		return -EINVAL;
	p = c2 + 1;
	/* digits only, then the next field: no sign, blank or junk */
	if (p == end || *p < '0' || *p > '9' ||
	    memz_parse_u64(&p, end, &uid) || p == end || *p != ':' ||
	    uid >= UINT32_MAX)
		return -EINVAL;
	out->uid = (uint32_t)uid;
	memz_sanitize_id(name, n, out->name, sizeof out->name);
	return 0;
}

static int by_uid_line(const void *a, const void *b)
{
	const struct memz_user *x = a, *y = b;

	if (x->uid != y->uid)
		return x->uid < y->uid ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

int memz_users_parse(struct memz_users *us, const char *buf, size_t len,
		     const struct memz_allocator *a)
{
	const char *p = buf, *end = buf + len;
	struct memz_user *u = NULL, one;
	size_t n = 0, cap = 0, kept = 0;
	uint32_t line = 0;

	while (p < end && n < MEMZ_USERS_MAX) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;

		if (!parse_line(p, le, &one)) {
			if (memz_grow(a, &u, &cap, n + 1, sizeof *u)) {
				memz_free(a, &u);
				return -ENOMEM;
			}
			one.line = line;
			u[n++] = one;
		}
		line++;
		p = le + 1;
	}
	/* an empty file leaves no array: qsort wants one */
	if (n > 1)
		qsort(u, n, sizeof *u, by_uid_line);
	for (size_t i = 0; i < n; i++)
		if (!kept || u[kept - 1].uid != u[i].uid)
			u[kept++] = u[i];
	memz_free(a, &us->u);
	us->u = u;
	us->n = kept;
	us->cap = cap;
	return 0;
}

static void forget(struct memz_users *us, int status)
{
	us->n = 0;
	us->status = status;
}

int memz_users_refresh(struct memz_users *us, const char *path,
		       const struct memz_allocator *a)
{
	struct stat st;
	char *buf;
	size_t len;
	int fd, rc;

	if (stat(path, &st)) {
		forget(us, -errno);
		us->tried = 1;
		us->dev = us->ino = us->size = 0;
		return us->status;
	}
	if (us->tried && us->dev == (unsigned long long)st.st_dev &&
	    us->ino == (unsigned long long)st.st_ino &&
	    us->size == (unsigned long long)st.st_size &&
	    us->mtime.tv_sec == st.st_mtim.tv_sec &&
	    us->mtime.tv_nsec == st.st_mtim.tv_nsec)
		return us->status;
	us->tried = 1;
	us->dev = (unsigned long long)st.st_dev;
	us->ino = (unsigned long long)st.st_ino;
	us->size = (unsigned long long)st.st_size;
	us->mtime = st.st_mtim;
	/* not a FIFO or device someone pointed the setting at */
	fd = memz_open_at(AT_FDCWD, path);
	if (fd < 0) {
		forget(us, fd);
		return fd;
	}
	if (fstat(fd, &st)) {
		rc = -errno;
		close(fd);
		forget(us, rc);
		return rc;
	}
	len = st.st_size > 0 && (unsigned long long)st.st_size < MEMZ_USERS_MAX_BYTES
		      ? (size_t)st.st_size
		      : MEMZ_USERS_MAX_BYTES;
	buf = memz_realloc(a, NULL, len + 1);
	if (!buf) {
		close(fd);
		/* try again next time: the names it had stay */
		us->tried = 0;
		return -ENOMEM;
	}
	rc = memz_pread_file(fd, buf, len + 1, &len);
	close(fd);
	/* a file larger than the bound: the users of its first part */
	if (rc == -EFBIG)
		rc = 0;
	if (!rc)
		rc = memz_users_parse(us, buf, len, a);
	memz_free(a, &buf);
	if (rc == -ENOMEM) {
		us->tried = 0;
		return rc;
	}
	if (rc)
		forget(us, rc);
	else
		us->status = 0;
	return rc;
}

const char *memz_users_name(const struct memz_users *us, uint32_t uid)
{
	size_t lo = 0, hi = us->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (us->u[mid].uid == uid)
			return us->u[mid].name;
		if (us->u[mid].uid < uid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}
