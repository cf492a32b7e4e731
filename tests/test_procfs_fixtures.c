/* The per-process readers on the fixture trees (tests/fixtures/README) and
 * on the live /proc of the machine the tests run on. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "memz/alloc.h"
#include "memz/procfs.h"
#include "memz/readbuf.h"

#define KB 1024ULL


static char fbuf[262144];

/* Read <case>/proc/<rel> into fbuf; returns the reader's result. */
static int fx(const char *fixture, const char *rel, size_t *len)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s/proc/%s", MEMZ_FIXTURES, fixture,
		 rel);
	return memz_read_file_at(AT_FDCWD, path, fbuf, sizeof(fbuf), len);
}

static int fx_pid(const char *fixture, int pid, const char *file, size_t *len)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "%d/%s", pid, file);
	return fx(fixture, rel, len);
}

static int fx_piddir(const char *fixture, int pid)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s/proc/%d", MEMZ_FIXTURES, fixture,
		 pid);
	return open(path, O_RDONLY | O_DIRECTORY);
}

/* Every file of every process of the real capture parses. */
static void test_real_capture(void)
{
	DIR *d = opendir(MEMZ_FIXTURES "/real1/proc");
	struct dirent *de;
	int procs = 0, rollups = 0, smaps = 0, kthreads = 0;

	CHECK(d != NULL);
	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		int pid = atoi(de->d_name);
		struct memz_pstat st;
		struct memz_statm sm;
		struct memz_pstatus ps;
		struct memz_rollup r;
		char cg[256], exe[64];
		size_t len;
		int oom, dfd, rc;

		if (pid <= 0 || de->d_name[0] == 's')
			continue;
		procs++;
		CHECK_INT(fx_pid("real1", pid, "stat", &len), 0);
		CHECK_INT(memz_parse_stat(fbuf, len, &st), 0);
		CHECK(st.comm[0] != '\0');
		CHECK_INT(fx_pid("real1", pid, "statm", &len), 0);
		CHECK_INT(memz_parse_statm(fbuf, len, 4096, &sm), 0);
		CHECK_INT(fx_pid("real1", pid, "status", &len), 0);
		CHECK_INT(memz_parse_status(fbuf, len, &ps), 0);
		CHECK_INT(fx_pid("real1", pid, "cgroup", &len), 0);
		CHECK_INT(memz_parse_cgroup(fbuf, len, cg, sizeof(cg)), 0);
		CHECK(cg[0] == '/');
		CHECK_INT(fx_pid("real1", pid, "oom_score_adj", &len), 0);
		CHECK_INT(memz_parse_oom_score_adj(fbuf, len, &oom), 0);
		if (!ps.has_vm) {
			kthreads++;
			CHECK_U64(sm.resident, 0);
			CHECK_U64(sm.size, 0);
		} else {
			CHECK(sm.resident > 0);
			CHECK(ps.vm_rss > 0);
			CHECK(ps.vm_hwm >= ps.vm_rss);
		}
		rc = fx_pid("real1", pid, "smaps_rollup", &len);
		if (rc == 0) {
			rollups++;
			CHECK_INT(memz_parse_rollup(fbuf, len, &r), 0);
			CHECK(r.has_pss_anon);
			CHECK(r.rss >= r.pss);
			CHECK(r.pss > 0);
			CHECK_U64(r.pss_anon + r.pss_file + r.pss_shmem, r.pss);
			CHECK_U64(r.shared_clean + r.shared_dirty +
					  r.private_clean + r.private_dirty,
				  r.rss);
		} else {
			CHECK_INT(rc, -ENOENT);
		}
		rc = fx_pid("real1", pid, "smaps", &len);
		if (rc == 0) {
			smaps++;
			CHECK_INT(memz_parse_smaps_sum(fbuf, len, &r), 0);
			CHECK(!r.has_pss_anon);
			CHECK(ps.has_vm ? r.rss > 0 : r.rss == 0);
		}
		dfd = fx_piddir("real1", pid);
		rc = memz_read_exe_name(dfd, exe, sizeof(exe));
		CHECK(rc == 0 || rc == -ENOENT);
		if (rc == 0)
			CHECK(exe[0] != '\0' && !strchr(exe, '/'));
		close(dfd);
	}
	closedir(d);
	CHECK_INT(procs, 5);
	CHECK(rollups >= 3);
	CHECK(smaps >= 3);
	CHECK_INT(kthreads, 1);
}

struct tree1_row {
	int pid, ppid;
	const char *comm;
	unsigned long long start;
	uint32_t uid;
	uint64_t rss, pss, pss_anon, pss_file, pss_shmem, uss;
	const char *cgroup, *exe;
	int oom;
};

static const struct tree1_row tree1[] = {
	{ 1, 0, "init", 5, 0, 7168, 5632, 4096, 1536, 0, 5120, "/", "init", 0 },
	{ 100, 1, "sshd", 700, 0, 4608, 3072, 2048, 1024, 0, 2560,
	  "/system.slice/ssh.service", "sshd", -1000 },
	{ 200, 100, "worker", 5100, 1000, 13568, 11520, 10240, 768, 512, 10496,
	  "/user.slice/worker.scope", "worker", 0 },
	{ 201, 100, "worker", 5200, 1000, 23808, 21760, 20480, 768, 512, 20736,
	  "/user.slice/worker.scope", "worker", 0 },
	{ 300, 1, "bash", 9000, 1000, 2176, 1408, 1024, 384, 0, 1152,
	  "/user.slice/session-1.scope", "bash", 0 },
};

/* The hand-made tree gives back exactly the numbers README promises. */
static void test_tree1(void)
{
	uint64_t anon_sum = 0;
	size_t i, len;
	struct memz_pstat st;
	struct memz_statm sm;
	struct memz_pstatus ps;

	for (i = 0; i < sizeof(tree1) / sizeof(tree1[0]); i++) {
		const struct tree1_row *t = &tree1[i];
		struct memz_rollup r, sum;
		char buf[128];
		int oom, dfd;

		CHECK_INT(fx_pid("tree1", t->pid, "stat", &len), 0);
		CHECK_INT(memz_parse_stat(fbuf, len, &st), 0);
		CHECK_STR(st.comm, t->comm);
		CHECK_INT(st.ppid, t->ppid);
		CHECK_U64(st.start_time, t->start);
		CHECK_INT(st.state, 'S');
		CHECK_INT(fx_pid("tree1", t->pid, "status", &len), 0);
		CHECK_INT(memz_parse_status(fbuf, len, &ps), 0);
		CHECK_INT(ps.uid, t->uid);
		CHECK(ps.has_vm);
		CHECK_U64(ps.vm_rss, t->rss * KB);
		CHECK_U64(ps.vm_hwm, (t->rss + 256) * KB);
		CHECK_INT(fx_pid("tree1", t->pid, "statm", &len), 0);
		CHECK_INT(memz_parse_statm(fbuf, len, 4096, &sm), 0);
		CHECK_U64(sm.resident, t->rss * KB);
		CHECK_INT(fx_pid("tree1", t->pid, "smaps_rollup", &len), 0);
		CHECK_INT(memz_parse_rollup(fbuf, len, &r), 0);
		CHECK(r.has_pss_anon);
		CHECK_U64(r.rss, t->rss * KB);
		CHECK_U64(r.pss, t->pss * KB);
		CHECK_U64(r.pss_anon, t->pss_anon * KB);
		CHECK_U64(r.pss_file, t->pss_file * KB);
		CHECK_U64(r.pss_shmem, t->pss_shmem * KB);
		CHECK_U64(memz_rollup_uss(&r), t->uss * KB);
		anon_sum += r.pss_anon;
		if (fx_pid("tree1", t->pid, "smaps", &len) == 0) {
			CHECK_INT(memz_parse_smaps_sum(fbuf, len, &sum), 0);
			CHECK_U64(sum.rss, r.rss);
			CHECK_U64(sum.pss, r.pss);
			CHECK_U64(sum.pss_anon, r.pss_anon);
			CHECK_U64(sum.shared_clean, r.shared_clean);
			CHECK_U64(sum.shared_dirty, r.shared_dirty);
			CHECK_U64(sum.private_clean, r.private_clean);
			CHECK_U64(sum.private_dirty, r.private_dirty);
			CHECK_U64(sum.anonymous, r.anonymous);
		}
		CHECK_INT(fx_pid("tree1", t->pid, "cgroup", &len), 0);
		CHECK_INT(memz_parse_cgroup(fbuf, len, buf, sizeof(buf)), 0);
		CHECK_STR(buf, t->cgroup);
		CHECK_INT(fx_pid("tree1", t->pid, "oom_score_adj", &len), 0);
		CHECK_INT(memz_parse_oom_score_adj(fbuf, len, &oom), 0);
		CHECK_INT(oom, t->oom);
		dfd = fx_piddir("tree1", t->pid);
		CHECK_INT(memz_read_exe_name(dfd, buf, sizeof(buf)), 0);
		CHECK_STR(buf, t->exe);
		close(dfd);
	}
	CHECK_U64(anon_sum, 38797312);

	/* the kernel thread */
	CHECK_INT(fx_pid("tree1", 2, "stat", &len), 0);
	CHECK_INT(memz_parse_stat(fbuf, len, &st), 0);
	CHECK_STR(st.comm, "kthreadd");
	CHECK_INT(fx_pid("tree1", 2, "status", &len), 0);
	CHECK_INT(memz_parse_status(fbuf, len, &ps), 0);
	CHECK(!ps.has_vm);
	CHECK_INT(fx_pid("tree1", 2, "statm", &len), 0);
	CHECK_INT(memz_parse_statm(fbuf, len, 4096, &sm), 0);
	CHECK_U64(sm.resident, 0);
	CHECK_INT(fx_pid("tree1", 2, "smaps_rollup", &len), -ENOENT);

	/* pid 201 reused by another process */
	CHECK_INT(fx_pid("tree1-reused", 201, "stat", &len), 0);
	CHECK_INT(memz_parse_stat(fbuf, len, &st), 0);
	CHECK_STR(st.comm, "cron");
	CHECK_INT(st.ppid, 1);
	CHECK_U64(st.start_time, 901234);
}

static void test_edge_trees(void)
{
	struct memz_pstat st;
	struct memz_pstatus ps;
	struct memz_rollup r;
	size_t len;
	char out[64];
	int v, dfd;

	CHECK_INT(fx_pid("weird-comm", 4242, "stat", &len), 0);
	CHECK_INT(memz_parse_stat(fbuf, len, &st), 0);
	CHECK_STR(st.comm, "a) (b\nc ) Z");
	CHECK_INT(st.state, 'S');
	CHECK_INT(st.ppid, 1);
	CHECK_U64(st.start_time, 777);
	CHECK_INT(st.num_threads, 1);
	CHECK_INT(fx_pid("weird-comm", 4242, "status", &len), 0);
	CHECK_INT(memz_parse_status(fbuf, len, &ps), 0);
	CHECK_INT(ps.uid, 1000);
	CHECK_U64(ps.vm_rss, 1000 * KB);
	dfd = fx_piddir("weird-comm", 4242);
	CHECK_INT(memz_read_exe_name(dfd, out, sizeof(out)), 0);
	CHECK_STR(out, "evil name");
	close(dfd);

	/* before 4.14: smaps only */
	CHECK_INT(fx_pid("no-rollup", 77, "smaps_rollup", &len), -ENOENT);
	CHECK_INT(fx_pid("no-rollup", 77, "smaps", &len), 0);
	CHECK_INT(memz_parse_smaps_sum(fbuf, len, &r), 0);
	CHECK_U64(r.rss, 70144 * KB);
	CHECK_U64(r.pss, 68096 * KB);
	CHECK_U64(r.anonymous, 65536 * KB);
	CHECK_U64(r.pss_anon, 65536 * KB);
	CHECK_U64(r.shared_dirty, 4096 * KB);
	CHECK_U64(r.private_clean, 512 * KB);
	CHECK_U64(r.private_dirty, 65536 * KB);
	CHECK(!r.has_pss_anon);
	CHECK_INT(fx_pid("no-rollup", 2, "smaps", &len), 0);
	CHECK_INT(memz_parse_smaps_sum(fbuf, len, &r), 0);
	CHECK_U64(r.rss, 0);

	/* 4.14 .. 5.x */
	CHECK_INT(fx_pid("no-pss-anon", 60, "smaps_rollup", &len), 0);
	CHECK_INT(memz_parse_rollup(fbuf, len, &r), 0);
	CHECK(!r.has_pss_anon);
	CHECK_U64(r.pss_anon, 3000 * KB);
	CHECK_U64(r.anonymous, 3000 * KB);
	CHECK_U64(r.pss, 4000 * KB);
	CHECK_U64(r.rss, 5000 * KB);

	/* the process left between readdir and open */
	CHECK_INT(fx_pid("vanished", 500, "stat", &len), -ENOENT);
	CHECK_INT(fx_pid("vanished", 500, "statm", &len), -ENOENT);
	CHECK_INT(fx_pid("vanished", 500, "smaps_rollup", &len), -ENOENT);
	dfd = fx_piddir("vanished", 500);
	CHECK(dfd >= 0);
	CHECK_INT(memz_read_exe_name(dfd, out, sizeof(out)), -ENOENT);
	close(dfd);

	/* one broken file per pid; pid 1 healthy */
	CHECK_INT(fx_pid("garbled", 1, "stat", &len), 0);
	CHECK_INT(memz_parse_stat(fbuf, len, &st), 0);
	CHECK_INT(fx_pid("garbled", 1, "smaps_rollup", &len), 0);
	CHECK_INT(memz_parse_rollup(fbuf, len, &r), 0);
	CHECK_INT(fx_pid("garbled", 10, "stat", &len), 0);
	CHECK_INT(memz_parse_stat(fbuf, len, &st), -EINVAL);
	CHECK_INT(fx_pid("garbled", 11, "statm", &len), 0);
	CHECK_INT(memz_parse_statm(fbuf, len, 4096, &(struct memz_statm){ 0 }),
		  -EINVAL);
	CHECK_INT(fx_pid("garbled", 12, "smaps_rollup", &len), 0);
	CHECK_INT(memz_parse_rollup(fbuf, len, &r), -EINVAL);
	CHECK_INT(fx_pid("garbled", 13, "status", &len), 0);
	CHECK_INT(memz_parse_status(fbuf, len, &ps), -EINVAL);
	CHECK_INT(fx_pid("garbled", 14, "smaps_rollup", &len), 0);
	CHECK_INT(memz_parse_rollup(fbuf, len, &r), -EINVAL);
	CHECK_INT(fx_pid("garbled", 15, "oom_score_adj", &len), 0);
	CHECK_INT(memz_parse_oom_score_adj(fbuf, len, &v), -EINVAL);
	CHECK_INT(fx_pid("garbled", 16, "cgroup", &len), 0);
	CHECK_INT(memz_parse_cgroup(fbuf, len, out, sizeof(out)), -EINVAL);
}

/* A private process: the readers hand EACCES back (the sampler counts it).
 * Root ignores modes, so the read runs as nobody in a child. */
static void test_unreadable(void)
{
	char dir[] = "/tmp/memz-unreadable-XXXXXX";
	char path[128];
	size_t len;
	int fd, status;
	pid_t child;

	CHECK(mkdtemp(dir) != NULL);
	CHECK_INT(chmod(dir, 0755), 0);
	CHECK_INT(fx_pid("unreadable", 600, "smaps_rollup", &len), 0);
	snprintf(path, sizeof(path), "%s/smaps_rollup", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0000);
	CHECK(fd >= 0);
	CHECK_INT(write(fd, fbuf, len), (long long)len);
	close(fd);

	child = fork();
	if (child == 0) {
		char b[64];
		size_t l;
		int rc;

		if (geteuid() == 0 && (setgid(65534) || setuid(65534)))
			_exit(100);
		rc = memz_read_file_at(AT_FDCWD, path, b, sizeof(b), &l);
		_exit(rc == -EACCES ? 0 : 101);
	}
	CHECK(child > 0);
	CHECK_INT(waitpid(child, &status, 0), child);
	CHECK(WIFEXITED(status));
	CHECK_INT(WEXITSTATUS(status), 0);
	CHECK_INT(unlink(path), 0);
	CHECK_INT(rmdir(dir), 0);
}

/* Every process of the machine the tests run on parses: this kernel's
 * format, not only the captured one's. Gone, private and kernel threads'
 * files are skipped by their errno. */
static void test_live(void)
{
	const struct memz_allocator *a = memz_allocator_libc();
	DIR *d = opendir("/proc");
	struct dirent *de;
	char *big = NULL;
	size_t cap = 0;
	int procs = 0, rollups = 0;
	long page = sysconf(_SC_PAGESIZE);

	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		static const char *const names[] = { "stat", "statm", "status",
			"smaps_rollup", "cgroup", "oom_score_adj" };
		int pid = atoi(de->d_name), i, dfd;

		if (pid <= 0)
			continue;
		dfd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY);
		if (dfd < 0)
			continue;
		procs++;
		for (i = 0; i < 6; i++) {
			struct memz_pstat st;
			struct memz_statm sm;
			struct memz_pstatus ps;
			struct memz_rollup r;
			char cg[4096];
			size_t len;
			int v, rc;

			rc = memz_read_file_at(dfd, names[i], fbuf, sizeof(fbuf),
					       &len);
			if (rc == -ENOENT || rc == -ESRCH || rc == -EACCES)
				continue;
			CHECK_INT(rc, 0);
			switch (i) {
			case 0: rc = memz_parse_stat(fbuf, len, &st); break;
			case 1: rc = memz_parse_statm(fbuf, len, (uint64_t)page, &sm); break;
			case 2: rc = memz_parse_status(fbuf, len, &ps); break;
			case 3:
				rc = memz_parse_rollup(fbuf, len, &r);
				rollups += rc == 0;
				break;
			case 4: rc = memz_parse_cgroup(fbuf, len, cg, sizeof(cg)); break;
			default: rc = memz_parse_oom_score_adj(fbuf, len, &v); break;
			}
			if (rc)
				fprintf(stderr, "live pid %d %s: %d\n", pid,
					names[i], rc);
			CHECK_INT(rc, 0);
		}
		if (pid == getpid()) {
			struct memz_rollup r;
			size_t len;

			CHECK_INT(memz_read_file_grow(a, dfd, "smaps", &big, &cap,
						      &len), 0);
			CHECK_INT(memz_parse_smaps_sum(big, len, &r), 0);
			CHECK(r.rss > 0);
		}
		close(dfd);
	}
	closedir(d);
	memz_free(a, &big);
	CHECK(procs >= 1);
	CHECK(rollups >= 1);
}

int main(void)
{
	test_real_capture();
	test_tree1();
	test_edge_trees();
	test_unreadable();
	test_live();
	return check_status();
}
