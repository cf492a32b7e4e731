/*
 * privilege.h - the two capabilities memz.plugin may hold, used for /proc
 * reads only.
 *
 * A process of user netdata may not read another user's
 * /proc/PID/smaps_rollup: the kernel's ptrace access check refuses it unless
 * the reader has CAP_SYS_PTRACE, and the directory search needs
 * CAP_DAC_READ_SEARCH for processes that are not dumpable. memz.plugin is
 * installed with exactly these two as file capabilities (mk/netdata.mk).
 * At start it drops every other capability it might have (it may be run as
 * root) and keeps the two out of its effective set; it raises them only
 * around the sampler's and the inspect function's /proc reads, so reading
 * its config, its stdin and anything else a user controls happens with no
 * privilege in effect.
 *
 * Raw capget/capset through <linux/capability.h>, not libcap: three calls
 * on two bits do not need a library the plugin would otherwise not link, nor
 * its text parser.
 *
 * Every function returns 0 or -errno.
 */
#ifndef MEMZ_PRIVILEGE_H
#define MEMZ_PRIVILEGE_H

#include <stddef.h>
#include <stdint.h>
#include <linux/capability.h>

#define MEMZ_CAP_BIT(c) (UINT64_C(1) << (c))
#define MEMZ_PRIV_KEEP \
	(MEMZ_CAP_BIT(CAP_DAC_READ_SEARCH) | MEMZ_CAP_BIT(CAP_SYS_PTRACE))

/* A thread's capability sets, one bit per CAP_* number. */
struct memz_caps {
	uint64_t effective, permitted, inheritable;
};

int memz_caps_get(struct memz_caps *c);
int memz_caps_set(const struct memz_caps *c);

/* The sets after the drop: permitted keeps only MEMZ_PRIV_KEEP of what
 * it had, effective and inheritable are empty (which also empties the
 * ambient set). */
struct memz_caps memz_priv_plan(struct memz_caps now);

/* Apply the plan to this thread; *held gets what is left in permitted. */
int memz_priv_drop(uint64_t *held);

/* Put held into (raise) or out of (lower) the effective set. */
int memz_priv_raise(uint64_t held);
int memz_priv_lower(uint64_t held);

/* The kept capabilities that caps lacks, as setcap names them
 * ("cap_dac_read_search,cap_sys_ptrace"); "" when none is missing.
 * Returns the length written. */
size_t memz_priv_missing(uint64_t caps, char *out, size_t outlen);

/* 0 when proc_root is a procfs and sys_root a sysfs mount, each reached
 * through directories that only root may change (no symlink, none
 * writable by group or others), so that what the sampler later opens with
 * privilege is what was checked. -EXDEV when either is some other file
 * system (a fixture tree, a directory a user chose), -EPERM when the path
 * is one a user could swap, -errno when it cannot be looked at: the caller
 * then drops the capabilities for good. */
int memz_priv_kernel_roots(const char *proc_root, const char *sys_root);

/* The same check of a directory read with privilege that may be on any
 * file system (DockerRoot): 0 when every directory of path is root's, no
 * symlink, not writable by group or others, or when the first missing one
 * lies below such directories (only root could make it), and for "" (never
 * read); -EPERM when a user could swap it; -errno. */
int memz_priv_trusted_dir(const char *path);

/* Empty this thread's effective set around work on bytes a user may
 * have written (docker's JSON), read with privilege just before: *saved
 * gets the sets as they were, which memz_priv_resume() restores. Nothing
 * is changed when nothing is in effect. */
int memz_priv_suspend(struct memz_caps *saved);
int memz_priv_resume(const struct memz_caps *saved);

#endif
