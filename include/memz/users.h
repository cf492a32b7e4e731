/*
 * users.h - user names for GroupBy user, from a passwd file.
 *
 * A group of processes by user is named by the user's name, not the uid.
 * The names come from a passwd file (PasswdFile, /etc/passwd by default)
 * parsed here, never from NSS: getpwuid may ask LDAP or sssd over the
 * network, block a sampling cycle and allocate at will. So a user known only
 * to such a directory is shown by number. The file is read again only when
 * it changed (one stat a cycle), so a steady cycle allocates nothing.
 *
 * The file is trusted no further than its bounds: at most
 * MEMZ_USERS_MAX_BYTES read, MEMZ_USERS_MAX users kept, a line without a
 * name or a decimal uid skipped, a name longer than MEMZ_USER_NAME_MAX - 1
 * skipped (cut short it could name someone else), and every name made an
 * identifier (memz_sanitize_id: [A-Za-z0-9_.-], any other byte '_'). When
 * a uid is listed twice the first line wins, as getpwuid's does. Names are
 * unique: when two uids' names give the same identifier, the lowest uid
 * keeps it and each other gets "_<uid>" appended (cut to fit), and a name
 * of digits only that is not its own uid gets the same suffix, so no user
 * is shown under another's name or number.
 *
 * Per-user totals (memz_user_totals): every process's figures summed by
 * uid, whatever GroupBy is, as netdata apps.plugin's users charts and
 * `smem -u` show them. The table feeds them each cycle (table.h) and hosts
 * publish those it reports (report.h), by the same rule as groups: among
 * the TopUsers largest by PSS once PublishAfter old (as old as the user's
 * oldest process when memz first saw the uid), and for PublishHold after
 * it was last among them. The array grows only when a uid appears for
 * the first time, so a steady cycle allocates nothing.
 */
#ifndef MEMZ_USERS_H
#define MEMZ_USERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "memz/alloc.h"

#define MEMZ_USER_NAME_MAX 33 /* useradd's 32, and the NUL */
#define MEMZ_USERS_MAX 65536
#define MEMZ_USERS_MAX_BYTES (4u << 20)

struct memz_user {
	uint32_t uid;
	uint32_t line; /* which line of the file: the first of a uid wins */
	char name[MEMZ_USER_NAME_MAX];
};

struct memz_users {
	struct memz_user *u; /* sorted by uid, one per uid */
	size_t n, cap;
	/* the file as last read, to tell whether it changed */
	unsigned long long dev, ino, size;
	struct timespec mtime;
	int status; /* 0 or -errno of the last read */
	int tried;  /* read at least once */
};

void memz_users_init(struct memz_users *us);
void memz_users_free(struct memz_users *us, const struct memz_allocator *a);

/* Replace the users with those of buf[len] (a passwd file's text).
 * Returns 0 or -ENOMEM (then the users are as before). */
int memz_users_parse(struct memz_users *us, const char *buf, size_t len,
		     const struct memz_allocator *a);

/* Read path again if it changed since the last call (device, inode, size
 * or modification time). A file that cannot be read leaves no users (every
 * uid shown by number); returns 0 or that -errno, also while it stays
 * unreadable. */
int memz_users_refresh(struct memz_users *us, const char *path,
		       const struct memz_allocator *a);

/* The name of uid, or NULL when the file does not name it. */
const char *memz_users_name(const struct memz_users *us, uint32_t uid);

/* One uid's processes summed: what hosts publish per user. */
struct memz_user_total {
	uint32_t uid;
	unsigned members;
	long threads;
	uint64_t pss, uss, rss, swap, anon; /* anon = Pss_Anon */
	/* the passwd name, or the uid in decimal: an identifier already
	 * ([A-Za-z0-9_.-]) and unique among users */
	char name[MEMZ_USER_NAME_MAX];
	/* among the TopUsers largest and PublishAfter old, or since, until
	 * PublishHold after it fell out */
	bool reported;
	/* publication: since when the uid has had processes (its oldest
	 * one's start when first seen), when it was last among the largest */
	double since, top_last;
	bool fresh; /* first seen this cycle */
};

struct memz_user_totals {
	struct memz_user_total *u; /* sorted by uid */
	size_t n, cap;
	struct memz_user_total **order; /* by PSS, largest first */
	size_t cap_order;
};

/* The figures of one process, as memz_user_totals_add takes them. */
struct memz_user_sample {
	uint32_t uid;
	long threads;
	uint64_t pss, uss, rss, swap, anon;
	double start; /* when it started, on the table's clock */
};

void memz_user_totals_init(struct memz_user_totals *ut);
void memz_user_totals_free(struct memz_user_totals *ut,
			   const struct memz_allocator *a);
/* A cycle: _begin zeroes the sums, _add adds one process (0 or -ENOMEM),
 * _end drops the uids left without a process, names the others from us
 * (or by number), orders them by PSS and decides which are reported at
 * now: the top_users largest once publish_after old, held publish_hold.
 * 0 or -ENOMEM. */
void memz_user_totals_begin(struct memz_user_totals *ut);
int memz_user_totals_add(struct memz_user_totals *ut,
			 const struct memz_user_sample *p,
			 const struct memz_allocator *a);
int memz_user_totals_end(struct memz_user_totals *ut,
			 const struct memz_users *us, double now, int top_users,
			 double publish_after, double publish_hold,
			 const struct memz_allocator *a);

#endif
