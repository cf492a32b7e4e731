#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
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

static int by_name_uid(const void *a, const void *b)
{
	const struct memz_user *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->uid < y->uid ? -1 : x->uid > y->uid;
}

/* name + "_<uid>", the name cut so that the suffix fits */
static void suffix_uid(struct memz_user *u)
{
	char sfx[16];
	int sl = snprintf(sfx, sizeof sfx, "_%u", (unsigned)u->uid);
	size_t keep = strlen(u->name);

	if (keep + (size_t)sl >= sizeof u->name)
		keep = sizeof u->name - 1 - (size_t)sl;
	memcpy(u->name + keep, sfx, (size_t)sl + 1);
}

/* A name of digits only could be another uid's number (how a uid the
 * file does not name is shown); two names may sanitise alike ("a b",
 * "a_b"). Either would merge two users into one group or one line. */
static void make_unique(struct memz_user *u, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char num[16];

		snprintf(num, sizeof num, "%u", (unsigned)u[i].uid);
		if (strspn(u[i].name, "0123456789") == strlen(u[i].name) &&
		    strcmp(u[i].name, num))
			suffix_uid(&u[i]);
	}
	if (n < 2)
		return;
	qsort(u, n, sizeof *u, by_name_uid);
	for (size_t i = n - 1; i > 0; i--)
		if (!strcmp(u[i].name, u[i - 1].name))
			suffix_uid(&u[i]);
	/* the lowest uid of a run keeps the name: the run is walked from its
	 * end, so u[i - 1] still had it when u[i] was compared */
	qsort(u, n, sizeof *u, by_uid_line);
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
	make_unique(u, kept);
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

void memz_user_totals_init(struct memz_user_totals *ut)
{
	memset(ut, 0, sizeof *ut);
}

void memz_user_totals_free(struct memz_user_totals *ut,
			   const struct memz_allocator *a)
{
	memz_free(a, &ut->u);
	memz_free(a, &ut->order);
	memz_user_totals_init(ut);
}

void memz_user_totals_begin(struct memz_user_totals *ut)
{
	for (size_t i = 0; i < ut->n; i++) {
		struct memz_user_total *u = &ut->u[i];

		u->members = 0;
		u->threads = 0;
		u->pss = u->uss = u->rss = u->swap = u->anon = 0;
		u->fresh = false;
	}
}

/* where uid is, or would be inserted */
static size_t uid_slot(const struct memz_user_totals *ut, uint32_t uid)
{
	size_t lo = 0, hi = ut->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ut->u[mid].uid < uid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int memz_user_totals_add(struct memz_user_totals *ut,
			 const struct memz_user_sample *p,
			 const struct memz_allocator *a)
{
	size_t i = uid_slot(ut, p->uid);
	struct memz_user_total *u;

	if (i == ut->n || ut->u[i].uid != p->uid) {
		if (memz_grow(a, &ut->u, &ut->cap, ut->n + 1, sizeof *ut->u))
			return -ENOMEM;
		memmove(&ut->u[i + 1], &ut->u[i], (ut->n - i) * sizeof *ut->u);
		ut->n++;
		memset(&ut->u[i], 0, sizeof *ut->u);
		ut->u[i].uid = p->uid;
		ut->u[i].fresh = true;
		ut->u[i].since = p->start;
	}
	u = &ut->u[i];
	u->members++;
	u->threads += p->threads;
	u->pss += p->pss;
	u->uss += p->uss;
	u->rss += p->rss;
	u->swap += p->swap;
	u->anon += p->anon;
	if (u->fresh && p->start < u->since)
		u->since = p->start;
	return 0;
}

static int by_pss_desc(const void *a, const void *b)
{
	const struct memz_user_total *x = *(struct memz_user_total *const *)a;
	const struct memz_user_total *y = *(struct memz_user_total *const *)b;

	if (x->pss != y->pss)
		return x->pss < y->pss ? 1 : -1;
	return x->uid < y->uid ? -1 : x->uid > y->uid;
}

int memz_user_totals_end(struct memz_user_totals *ut,
			 const struct memz_users *us, double now, int top_users,
			 double publish_after, double publish_hold,
			 const struct memz_allocator *a)
{
	size_t kept = 0;

	for (size_t i = 0; i < ut->n; i++)
		if (ut->u[i].members)
			ut->u[kept++] = ut->u[i];
	ut->n = kept;
	if (memz_grow(a, &ut->order, &ut->cap_order, ut->n + 1,
		      sizeof *ut->order))
		return -ENOMEM;
	for (size_t i = 0; i < ut->n; i++) {
		struct memz_user_total *u = &ut->u[i];
		const char *name = memz_users_name(us, u->uid);

		if (name)
			snprintf(u->name, sizeof u->name, "%s", name);
		else
			snprintf(u->name, sizeof u->name, "%u", (unsigned)u->uid);
		ut->order[i] = u;
	}
	if (ut->n > 1)
		qsort(ut->order, ut->n, sizeof *ut->order, by_pss_desc);
	/* the groups' rule (table.c, publish): a name a host was given once
	 * keeps its file or dimension for ever, so a user whose processes
	 * come and go (a build under a DynamicUser) is not worth one */
	for (size_t i = 0; i < ut->n; i++) {
		struct memz_user_total *u = ut->order[i];

		if ((int)i < top_users && !(now - u->since < publish_after)) {
			u->top_last = now;
			u->reported = true;
		} else {
			u->reported = u->reported &&
				      now - u->top_last < publish_hold;
		}
	}
	return 0;
}
