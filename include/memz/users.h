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
 * a uid is listed twice the first line wins, as getpwuid's does.
 */
#ifndef MEMZ_USERS_H
#define MEMZ_USERS_H

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

#endif
