/* The capability drop, raise and lower, and the checks around them. The
 * live part changes the capabilities of a forked child only, and needs root
 * (or a run with the capabilities), since it proves that a file the kept
 * capabilities let one read is refused while they are lowered. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "memz/privilege.h"
#include "check.h"

#define ALL_CAPS UINT64_C(0x1ffffffffff)
/* what the live part needs: the kept two, and chown for its secret file */
#define LIVE_CAPS (MEMZ_PRIV_KEEP | MEMZ_CAP_BIT(CAP_CHOWN))

static void test_plan(void)
{
	struct memz_caps full = { ALL_CAPS, ALL_CAPS, ALL_CAPS }, c;
	struct memz_caps one = { MEMZ_CAP_BIT(CAP_SYS_PTRACE),
				 MEMZ_CAP_BIT(CAP_SYS_PTRACE) |
					 MEMZ_CAP_BIT(CAP_NET_RAW), 0 };
	struct memz_caps none = { 0, 0, 0 };

	c = memz_priv_plan(full);
	CHECK_U64(c.permitted, MEMZ_PRIV_KEEP);
	CHECK_U64(c.effective, 0);
	CHECK_U64(c.inheritable, 0);
	c = memz_priv_plan(one);
	CHECK_U64(c.permitted, MEMZ_CAP_BIT(CAP_SYS_PTRACE));
	CHECK_U64(c.effective, 0);
	c = memz_priv_plan(none);
	CHECK_U64(c.permitted, 0);
	CHECK_U64(MEMZ_PRIV_KEEP, UINT64_C(0x80004)); /* bits 2 and 19 */
}

static void test_missing(void)
{
	char b[64], tiny[8];

	CHECK_INT(memz_priv_missing(0, b, sizeof b), 34);
	CHECK_STR(b, "cap_dac_read_search,cap_sys_ptrace");
	memz_priv_missing(MEMZ_CAP_BIT(CAP_DAC_READ_SEARCH), b, sizeof b);
	CHECK_STR(b, "cap_sys_ptrace");
	memz_priv_missing(MEMZ_CAP_BIT(CAP_SYS_PTRACE), b, sizeof b);
	CHECK_STR(b, "cap_dac_read_search");
	CHECK_INT(memz_priv_missing(MEMZ_PRIV_KEEP | MEMZ_CAP_BIT(CAP_CHOWN),
				    b, sizeof b), 0);
	CHECK_STR(b, "");
	/* truncated output stays a string and never a half name */
	CHECK_INT(memz_priv_missing(0, tiny, sizeof tiny), 0);
	CHECK_STR(tiny, "");
}

static void test_roots(void)
{
	int rc;

	CHECK_INT(memz_priv_kernel_roots("/proc", "/sys"), 0);
	/* a checkout is an ordinary file system, and -EPERM first where a
	 * user owns it */
	rc = memz_priv_kernel_roots(MEMZ_FIXTURES "/tree1", "/sys");
	CHECK(rc == -EXDEV || rc == -EPERM);
	rc = memz_priv_kernel_roots("/proc", MEMZ_FIXTURES);
	CHECK(rc == -EXDEV || rc == -EPERM);
	CHECK_INT(memz_priv_kernel_roots("/nonexistent-memz", "/sys"), -ENOENT);
	CHECK_INT(memz_priv_kernel_roots("proc", "/sys"), -EPERM);
	CHECK_INT(memz_priv_kernel_roots("/proc/", "/sys/"), 0);
}

/* A symlink to /proc, or /proc reached through a directory others may
 * write, leads to procfs today and to anything tomorrow. */
static void test_swappable_roots(void)
{
	char dir[] = "/tmp/memz-privroot.XXXXXX", link[64], sub[64];

	CHECK(mkdtemp(dir) != NULL);
	snprintf(link, sizeof link, "%s/proc", dir);
	CHECK_INT(symlink("/proc", link), 0);
	CHECK_INT(memz_priv_kernel_roots(link, "/sys"), -EPERM);
	/* /tmp itself is writable by all (sticky, but anyone may add) */
	snprintf(sub, sizeof sub, "%s/sys", dir);
	CHECK_INT(symlink("/sys", sub), 0);
	CHECK_INT(memz_priv_kernel_roots("/proc", sub), -EPERM);
	unlink(link);
	unlink(sub);
	rmdir(dir);
}

/* DockerRoot is read with privilege too, and checked as ProcRoot and
 * SysRoot are, on whatever file system it is: root's directories, no
 * symlink, none writable by others; what is missing below such
 * directories only root could make. */
static void test_trusted_dir(void)
{
	char dir[] = "/tmp/memz-privdock.XXXXXX", link[64], sub[64];

	CHECK_INT(memz_priv_trusted_dir(""), 0);
	CHECK_INT(memz_priv_trusted_dir("/"), 0);
	CHECK_INT(memz_priv_trusted_dir("/etc"), 0);
	CHECK_INT(memz_priv_trusted_dir("/etc/memz-no-such-docker"), 0);
	CHECK_INT(memz_priv_trusted_dir("/etc/memz-no-such/docker"), 0);
	CHECK_INT(memz_priv_trusted_dir("var/lib/docker"), -EPERM);
	CHECK(mkdtemp(dir) != NULL);
	/* below /tmp, which anyone may write: swappable, made or not */
	CHECK_INT(memz_priv_trusted_dir(dir), -EPERM);
	snprintf(sub, sizeof sub, "%s/none", dir);
	CHECK_INT(memz_priv_trusted_dir(sub), -EPERM);
	/* and a symlink there to a root directory */
	snprintf(link, sizeof link, "%s/etc", dir);
	CHECK_INT(symlink("/etc", link), 0);
	CHECK_INT(memz_priv_trusted_dir(link), -EPERM);
	unlink(link);
	rmdir(dir);
}

/* hex CapEff/CapPrm of this process as the kernel reports them */
static uint64_t status_caps(const char *key)
{
	char line[256];
	uint64_t v = UINT64_MAX;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return v;
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, key, strlen(key)))
			v = strtoull(line + strlen(key), NULL, 16);
	fclose(f);
	return v;
}

static int opens(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static void child(const char *secret)
{
	uint64_t held = 0;
	struct memz_caps c;

	CHECK_INT(memz_priv_drop(&held), 0);
	CHECK_U64(held, MEMZ_PRIV_KEEP);
	CHECK_INT(memz_caps_get(&c), 0);
	CHECK_U64(c.permitted, MEMZ_PRIV_KEEP);
	CHECK_U64(c.effective, 0);
	CHECK_U64(c.inheritable, 0);
	CHECK_U64(status_caps("CapPrm:"), MEMZ_PRIV_KEEP);
	CHECK_U64(status_caps("CapEff:"), 0);
	/* root without CAP_DAC_OVERRIDE in effect is "other" to nobody's
	 * 0600 file: what config reads see */
	CHECK_INT(opens(secret), -EACCES);
	CHECK_INT(memz_priv_raise(held), 0);
	CHECK_U64(status_caps("CapEff:"), MEMZ_PRIV_KEEP);
	CHECK_INT(opens(secret), 0);
	CHECK_INT(memz_priv_lower(held), 0);
	CHECK_U64(status_caps("CapEff:"), 0);
	CHECK_INT(opens(secret), -EACCES);
	/* a dropped capability cannot be raised again */
	c.effective = c.permitted = MEMZ_PRIV_KEEP | MEMZ_CAP_BIT(CAP_CHOWN);
	c.inheritable = 0;
	CHECK_INT(memz_caps_set(&c), -EPERM);
	exit(check_status());
}

static void test_live(void)
{
	char dir[] = "/tmp/memz-priv.XXXXXX", secret[64];
	struct memz_caps now, after;
	int fd, st = -1;
	pid_t pid;

	CHECK_INT(memz_caps_get(&now), 0);
	if ((now.effective & LIVE_CAPS) != LIVE_CAPS) {
		printf("live part skipped: needs root\n");
		return;
	}
	CHECK(mkdtemp(dir) != NULL);
	snprintf(secret, sizeof secret, "%s/secret", dir);
	fd = open(secret, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	CHECK(fd >= 0);
	CHECK_INT(fchown(fd, 65534, 65534), 0);
	close(fd);
	CHECK_INT(chmod(dir, 0755), 0);
	pid = fork();
	if (pid == 0)
		child(secret);
	CHECK(pid > 0);
	CHECK_INT(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st));
	CHECK_INT(WEXITSTATUS(st), 0);
	/* the parent kept what it had */
	CHECK_INT(memz_caps_get(&after), 0);
	CHECK_U64(after.effective, now.effective);
	CHECK_U64(after.permitted, now.permitted);
	unlink(secret);
	rmdir(dir);
}

int main(void)
{
	test_plan();
	test_missing();
	test_roots();
	test_swappable_roots();
	test_trusted_dir();
	test_live();
	return check_status();
}
