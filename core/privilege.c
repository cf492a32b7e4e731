#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/magic.h>

#include "memz/privilege.h"

/* Version 3 of the interface carries 64 bits in two 32-bit halves. */
int memz_caps_get(struct memz_caps *c)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	memset(d, 0, sizeof d);
	if (syscall(SYS_capget, &h, d))
		return -errno;
	c->effective = d[0].effective | (uint64_t)d[1].effective << 32;
	c->permitted = d[0].permitted | (uint64_t)d[1].permitted << 32;
	c->inheritable = d[0].inheritable | (uint64_t)d[1].inheritable << 32;
	return 0;
}

int memz_caps_set(const struct memz_caps *c)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	d[0].effective = (uint32_t)c->effective;
	d[1].effective = (uint32_t)(c->effective >> 32);
	d[0].permitted = (uint32_t)c->permitted;
	d[1].permitted = (uint32_t)(c->permitted >> 32);
	d[0].inheritable = (uint32_t)c->inheritable;
	d[1].inheritable = (uint32_t)(c->inheritable >> 32);
	return syscall(SYS_capset, &h, d) ? -errno : 0;
}

struct memz_caps memz_priv_plan(struct memz_caps now)
{
	struct memz_caps c = { 0, now.permitted & MEMZ_PRIV_KEEP, 0 };

	return c;
}

int memz_priv_drop(uint64_t *held)
{
	struct memz_caps now, c;
	int rc = memz_caps_get(&now);

	if (rc)
		return rc;
	c = memz_priv_plan(now);
	if ((rc = memz_caps_set(&c)))
		return rc;
	*held = c.permitted;
	return 0;
}

int memz_priv_raise(uint64_t held)
{
	struct memz_caps c = { held, held, 0 };

	return memz_caps_set(&c);
}

int memz_priv_lower(uint64_t held)
{
	struct memz_caps c = { 0, held, 0 };

	return memz_caps_set(&c);
}

size_t memz_priv_missing(uint64_t caps, char *out, size_t outlen)
{
	static const struct {
		int cap;
		const char *name;
	} kept[] = {
		{ CAP_DAC_READ_SEARCH, "cap_dac_read_search" },
		{ CAP_SYS_PTRACE, "cap_sys_ptrace" },
	};
	size_t len = 0;

	if (!outlen)
		return 0;
	*out = '\0';
	for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++) {
		int n;

		if (caps & MEMZ_CAP_BIT(kept[i].cap))
			continue;
		n = snprintf(out + len, outlen - len, "%s%s", len ? "," : "",
			     kept[i].name);
		if (n < 0 || (size_t)n >= outlen - len) {
			out[len] = '\0';
			return len;
		}
		len += (size_t)n;
	}
	return len;
}

static int fs_is(const char *path, long magic)
{
	struct statfs st;

	if (statfs(path, &st))
		return -errno;
	return (long)st.f_type == magic ? 0 : -EXDEV;
}

/* Every directory from / down to path is root's, writable by root alone,
 * and none is a symlink: nobody else can swap what path names between this
 * check and the sampler's open. */
static int trusted_path(const char *path)
{
	char buf[4096];
	size_t len = strlen(path);
	struct stat st;

	if (path[0] != '/' || len >= sizeof buf)
		return -EPERM;
	memcpy(buf, path, len + 1);
	for (size_t i = 1; i <= len; i++) {
		char c = buf[i];

		if (c != '/' && c != '\0')
			continue;
		buf[i] = '\0';
		if (lstat(buf, &st))
			return -errno;
		if (!S_ISDIR(st.st_mode) || st.st_uid != 0 ||
		    (st.st_mode & (S_IWGRP | S_IWOTH)))
			return -EPERM;
		buf[i] = c;
	}
	return 0;
}

int memz_priv_trusted_dir(const char *path)
{
	int rc;

	if (!*path)
		return 0;
	rc = trusted_path(path);
	/* every directory above the missing one passed: only root could
	 * make what is missing */
	return rc == -ENOENT ? 0 : rc;
}

int memz_priv_suspend(struct memz_caps *saved)
{
	struct memz_caps c;
	int rc = memz_caps_get(saved);

	if (rc || !saved->effective)
		return rc;
	c = *saved;
	c.effective = 0;
	return memz_caps_set(&c);
}

int memz_priv_resume(const struct memz_caps *saved)
{
	return saved->effective ? memz_caps_set(saved) : 0;
}

int memz_priv_kernel_roots(const char *proc_root, const char *sys_root)
{
	int rc = trusted_path(proc_root);

	if (!rc)
		rc = trusted_path(sys_root);
	if (!rc)
		rc = fs_is(proc_root, PROC_SUPER_MAGIC);
	return rc ? rc : fs_is(sys_root, SYSFS_MAGIC);
}
