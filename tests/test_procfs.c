/* Per-process parsers: stat, statm, status, smaps_rollup, smaps, cgroup,
 * oom_score_adj, exe. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "memz/alloc.h"
#include "memz/procfs.h"
#include "memz/readbuf.h"

#define KB 1024ULL

static int stat_str(const char *s, struct memz_pstat *st)
{
	return memz_parse_stat(s, strlen(s), st);
}

static void test_stat(void)
{
	static const char line[] =
		"1234 (sshd) S 1 1234 1234 0 -1 4194560 1000 2000 3 4 "
		"517 311 5 6 20 0 3 0 987654321 12345678 900 "
		"18446744073709551615 1 1 0 0 0 0 0 4096 16384 0 0 0 17 1 0 0 "
		"0 0 0 0 0 0 0 0 0\n";
	struct memz_pstat st;

	memset(&st, 0xff, sizeof(st));
	CHECK_INT(stat_str(line, &st), 0);
	CHECK_STR(st.comm, "sshd");
	CHECK_INT(st.state, 'S');
	CHECK_INT(st.ppid, 1);
	CHECK_U64(st.flags, 4194560);
	CHECK_U64(st.utime, 517);
	CHECK_U64(st.stime, 311);
	CHECK_INT(st.num_threads, 3);
	CHECK_U64(st.start_time, 987654321);

	/* the kernel ends the line at field 52 without a newline in
	 * some versions; ending right after field 22 is enough too */
	CHECK_INT(stat_str("7 (x) R 0 0 0 0 -1 0 0 0 0 0 1 2 0 0 -2 -20 1 0 99", &st),
		  0);
	CHECK_STR(st.comm, "x");
	CHECK_INT(st.state, 'R');
	CHECK_INT(st.ppid, 0);
	CHECK_U64(st.flags, 0);
	CHECK_U64(st.utime, 1);
	CHECK_U64(st.stime, 2);
	CHECK_INT(st.num_threads, 1);
	CHECK_U64(st.start_time, 99);
}

/* A name is any bytes: only the LAST ')' ends it. */
static void test_stat_hostile_comm(void)
{
	static const char line[] =
		"42 (a) (b\nc ) Z 1 2 3) D 9 0 0 0 -1 0 0 0 0 0 11 12 0 0 20 0 "
		"5 0 4242 0 0\n";
	struct memz_pstat st;
	char longline[256];

	CHECK_INT(stat_str(line, &st), 0);
	CHECK_STR(st.comm, "a) (b\nc ) Z 1 2 3");
	CHECK_INT(st.state, 'D');
	CHECK_INT(st.ppid, 9);
	CHECK_U64(st.utime, 11);
	CHECK_U64(st.stime, 12);
	CHECK_INT(st.num_threads, 5);
	CHECK_U64(st.start_time, 4242);

	CHECK_INT(stat_str("1 () S 0 0 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0", &st),
		  0);
	CHECK_STR(st.comm, "");

	/* longer than MEMZ_COMM_MAX - 1: cut, the fields after still right */
	snprintf(longline, sizeof(longline),
		 "3 (%070d) S 2 0 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 6 0", 0);
	CHECK_INT(stat_str(longline, &st), 0);
	CHECK_U64(strlen(st.comm), MEMZ_COMM_MAX - 1);
	CHECK_INT(st.ppid, 2);
	CHECK_U64(st.start_time, 6);
}

static void test_stat_bad(void)
{
	struct memz_pstat st;

	CHECK_INT(stat_str("", &st), -EINVAL);
	CHECK_INT(stat_str("12 sshd S 1", &st), -EINVAL);
	CHECK_INT(stat_str("12 (sshd S 1 2 3", &st), -EINVAL);
	CHECK_INT(stat_str("x (a) S 0 0 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0", &st),
		  -EINVAL);
	/* cut before field 22 */
	CHECK_INT(stat_str("1 (a) S 0 0 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0", &st),
		  -EINVAL);
	CHECK_INT(stat_str("1 (a) S 0 0 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 ", &st),
		  -EINVAL);
	CHECK_INT(stat_str("1 (a)", &st), -EINVAL);
	CHECK_INT(stat_str("1 (a) ", &st), -EINVAL);
	/* garbled numbers where we read them */
	CHECK_INT(stat_str("1 (a) S x 0 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0", &st),
		  -EINVAL);
	CHECK_INT(stat_str("1 (a) S 1 0 0 0 -1 0 0 0 0 0 9q 0 0 0 20 0 1 0 5 0", &st),
		  -EINVAL);
	CHECK_INT(stat_str("1 (a) S 1 0 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 -5 0", &st),
		  -EINVAL);
	CHECK_INT(stat_str("1 (a) SS 1 0 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0", &st),
		  -EINVAL);
	CHECK_INT(stat_str("1 (a) S 4294967296 0 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0",
			   &st),
		  -ERANGE);
	CHECK_INT(stat_str("1 (a) S 1 0 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 "
			   "99999999999999999999 0",
			   &st),
		  -ERANGE);
}

static void test_statm(void)
{
	struct memz_statm m;

	memset(&m, 0xff, sizeof(m));
	CHECK_INT(memz_parse_statm("648 437 406 19 0 91 0\n", 22, 4096, &m), 0);
	CHECK_U64(m.size, 648 * 4096ULL);
	CHECK_U64(m.resident, 437 * 4096ULL);
	CHECK_U64(m.shared, 406 * 4096ULL);
	CHECK_U64(m.text, 19 * 4096ULL);
	CHECK_U64(m.data, 91 * 4096ULL);
	CHECK_INT(memz_parse_statm("1 2 3 4 0 5 0", 13, 65536, &m), 0);
	CHECK_U64(m.size, 65536);
	CHECK_U64(m.resident, 2 * 65536ULL);
	CHECK_U64(m.shared, 3 * 65536ULL);
	CHECK_U64(m.text, 4 * 65536ULL);
	CHECK_U64(m.data, 5 * 65536ULL);
	/* a kernel thread */
	memset(&m, 0xff, sizeof(m));
	CHECK_INT(memz_parse_statm("0 0 0 0 0 0 0\n", 14, 4096, &m), 0);
	CHECK_U64(m.size, 0);
	CHECK_U64(m.resident, 0);
	CHECK_U64(m.shared, 0);
	CHECK_U64(m.text, 0);
	CHECK_U64(m.data, 0);

	CHECK_INT(memz_parse_statm("", 0, 4096, &m), -EINVAL);
	CHECK_INT(memz_parse_statm("1 2 3 4 0 5\n", 12, 4096, &m), -EINVAL);
	CHECK_INT(memz_parse_statm("1 2 3 4 0 5 0 8\n", 16, 4096, &m), -EINVAL);
	CHECK_INT(memz_parse_statm("1 2 x 4 0 5 0\n", 14, 4096, &m), -EINVAL);
	CHECK_INT(memz_parse_statm("1 2 3x 4 0 5 0\n", 15, 4096, &m), -EINVAL);
	CHECK_INT(memz_parse_statm("1 2 3 4 0 5 0", 13, 0, &m), -EINVAL);
	CHECK_INT(memz_parse_statm("4503599627370496 0 0 0 0 0 0", 28, 4096, &m),
		  -ERANGE);
	/* len bounds it: the 7th number is cut off */
	CHECK_INT(memz_parse_statm("1 2 3 4 0 5 0\n", 11, 4096, &m), -EINVAL);
	/* the 64-bit edge, digit by digit: the largest value passes, one
	 * more overflows, leading zeros are no overflow */
	CHECK_INT(memz_parse_statm("18446744073709551615 0 0 0 0 0 0", 32, 1, &m),
		  0);
	CHECK_U64(m.size, UINT64_MAX);
	CHECK_INT(memz_parse_statm("18446744073709551616 0 0 0 0 0 0", 32, 1, &m),
		  -ERANGE);
	CHECK_INT(memz_parse_statm("184467440737095516150 0 0 0 0 0 0", 33, 1, &m),
		  -ERANGE);
	CHECK_INT(memz_parse_statm("0000000000000000000000000007 1 1 1 0 1 0", 40,
				   4096, &m), 0);
	CHECK_U64(m.size, 7 * 4096ULL);
	/* blanks before a number are allowed, a blank after the last is not */
	CHECK_INT(memz_parse_statm("1 \t2 3 4 0 5 0\n", 15, 4096, &m), 0);
	CHECK_U64(m.resident, 2 * 4096ULL);
	CHECK_INT(memz_parse_statm("1 2 3 4 0 5 0 \n", 15, 4096, &m), -EINVAL);
	CHECK_INT(memz_parse_statm("1\t2 3 4 0 5 0\n", 14, 4096, &m), -EINVAL);
	CHECK_INT(memz_parse_statm("1 2 3 4 0 5 -0\n", 15, 4096, &m), -EINVAL);
	CHECK_INT(memz_parse_statm("1 2 3 4 0 5 0\n\n", 15, 4096, &m), -EINVAL);
}

static const char status_user[] =
	"Name:\tbash\n"
	"Umask:\t0022\n"
	"State:\tS (sleeping)\n"
	"Tgid:\t1186\n"
	"PPid:\t1\n"
	"Uid:\t1000\t1001\t1002\t1003\n"
	"Gid:\t100\t100\t100\t100\n"
	"VmPeak:\t    9000 kB\n"
	"VmSize:\t    8000 kB\n"
	"VmHWM:\t    4440 kB\n"
	"VmRSS:\t    4400 kB\n"
	"RssAnon:\t     700 kB\n"
	"RssFile:\t    3600 kB\n"
	"RssShmem:\t     100 kB\n"
	"VmSwap:\t      12 kB\n"
	"Threads:\t1\n";

static void test_status(void)
{
	static const char kthread[] = "Name:\tkthreadd\nState:\tS (sleeping)\n"
				      "Uid:\t0\t0\t0\t0\nThreads:\t1\n";
	struct memz_pstatus s;

	memset(&s, 0xff, sizeof(s));
	CHECK_INT(memz_parse_status(status_user, strlen(status_user), &s), 0);
	CHECK_U64(s.vm_hwm, 4440 * KB);
	CHECK_U64(s.vm_rss, 4400 * KB);
	CHECK_U64(s.vm_swap, 12 * KB);
	CHECK_INT(s.uid, 1000);
	CHECK(s.has_vm);
	CHECK_INT(s.tgid, 1186);
	CHECK(s.has_rss_split);
	CHECK_U64(s.rss_anon, 700 * KB);
	CHECK_U64(s.rss_file, 3600 * KB);
	CHECK_U64(s.rss_shmem, 100 * KB);

	memset(&s, 0xff, sizeof(s));
	CHECK_INT(memz_parse_status(kthread, strlen(kthread), &s), 0);
	CHECK(!s.has_vm);
	CHECK(!s.has_rss_split);
	CHECK_INT(s.tgid, 0); /* no Tgid line */
	CHECK_U64(s.vm_hwm, 0);
	CHECK_U64(s.vm_rss, 0);
	CHECK_U64(s.vm_swap, 0);
	CHECK_INT(s.uid, 0);
}

static int status_edit(const char *from, const char *to)
{
	char buf[sizeof(status_user) + 64];
	const char *at = strstr(status_user, from);
	struct memz_pstatus s;
	int n;

	n = snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(at - status_user),
		     status_user, to, at + strlen(from));
	return memz_parse_status(buf, (size_t)n, &s);
}

static void test_status_bad(void)
{
	struct memz_pstatus s;

	CHECK_INT(status_edit("Uid:\t1000\t1001\t1002\t1003\n", ""), -EINVAL);
	CHECK_INT(status_edit("Uid:\t1000", "Uid:\tx"), -EINVAL);
	CHECK_INT(status_edit("Uid:\t1000", "Uid:\t4294967296"), -ERANGE);
	CHECK_INT(status_edit("Uid:\t1000\t", "Uid:\t1000x"), -EINVAL);
	CHECK_INT(status_edit("VmHWM:\t    4440 kB\n", ""), -EINVAL);
	CHECK_INT(status_edit("VmSwap:\t      12 kB\n", ""), -EINVAL);
	CHECK_INT(status_edit("VmRSS:\t    4400 kB", "VmRSS:\t    44?0 kB"),
		  -EINVAL);
	CHECK_INT(status_edit("VmRSS:\t    4400 kB", "VmRSS:\t    4400"), -EINVAL);
	/* the split is all or none, and only with Vm* */
	CHECK_INT(status_edit("RssFile:\t    3600 kB\n", ""), -EINVAL);
	CHECK_INT(status_edit("RssAnon:\t     700 kB\nRssFile:\t    3600 kB\n"
			      "RssShmem:\t     100 kB\n", ""), 0);
	CHECK_INT(status_edit("Tgid:\t1186", "Tgid:\t0"), -ERANGE);
	CHECK_INT(status_edit("Tgid:\t1186", "Tgid:\t2147483648"), -ERANGE);
	CHECK_INT(status_edit("Tgid:\t1186", "Tgid:\t11x6"), -EINVAL);
	/* the hostile Name line is not ours to judge */
	CHECK_INT(status_edit("Name:\tbash\n", "Name:\tUid: 7 VmRSS: x\n"), 0);
	CHECK_INT(memz_parse_status("", 0, &s), -EINVAL);
}

static const char rollup_modern[] =
	"556354979000-7ffc3cb77000 ---p 00000000 00:00 0                          [rollup]\n"
	"Rss:                1748 kB\n"
	"Pss:                 427 kB\n"
	"Pss_Dirty:           124 kB\n"
	"Pss_Anon:            120 kB\n"
	"Pss_File:            303 kB\n"
	"Pss_Shmem:             4 kB\n"
	"Shared_Clean:       1508 kB\n"
	"Shared_Dirty:          8 kB\n"
	"Private_Clean:       116 kB\n"
	"Private_Dirty:       116 kB\n"
	"Referenced:         1748 kB\n"
	"Anonymous:           124 kB\n"
	"KSM:                   0 kB\n"
	"LazyFree:              0 kB\n"
	"AnonHugePages:         0 kB\n"
	"Swap:                 64 kB\n"
	"SwapPss:              32 kB\n"
	"Locked:                0 kB\n";

static void test_rollup(void)
{
	static const char old[] =
		"00400000-7ffd5f1ff000 ---p 00000000 00:00 0 [rollup]\n"
		"Rss:                 900 kB\n"
		"Pss:                 450 kB\n"
		"Shared_Clean:        500 kB\n"
		"Shared_Dirty:          0 kB\n"
		"Private_Clean:       100 kB\n"
		"Private_Dirty:       300 kB\n"
		"Referenced:          900 kB\n"
		"Anonymous:           300 kB\n"
		"Swap:                  0 kB\n"
		"SwapPss:               0 kB\n";
	struct memz_rollup r;

	memset(&r, 0xff, sizeof(r));
	CHECK_INT(memz_parse_rollup(rollup_modern, strlen(rollup_modern), &r), 0);
	CHECK_U64(r.rss, 1748 * KB);
	CHECK_U64(r.pss, 427 * KB);
	CHECK_U64(r.pss_anon, 120 * KB);
	CHECK_U64(r.pss_file, 303 * KB);
	CHECK_U64(r.pss_shmem, 4 * KB);
	CHECK_U64(r.shared_clean, 1508 * KB);
	CHECK_U64(r.shared_dirty, 8 * KB);
	CHECK_U64(r.private_clean, 116 * KB);
	CHECK_U64(r.private_dirty, 116 * KB);
	CHECK_U64(r.anonymous, 124 * KB);
	CHECK_U64(r.swap, 64 * KB);
	CHECK_U64(r.swap_pss, 32 * KB);
	CHECK(r.has_pss_anon);
	CHECK_U64(memz_rollup_uss(&r), 232 * KB);

	/* 4.14 .. 5.x: no Pss_Anon; Anonymous stands in */
	memset(&r, 0xff, sizeof(r));
	CHECK_INT(memz_parse_rollup(old, strlen(old), &r), 0);
	CHECK(!r.has_pss_anon);
	CHECK_U64(r.rss, 900 * KB);
	CHECK_U64(r.pss, 450 * KB);
	CHECK_U64(r.pss_anon, 300 * KB);
	CHECK_U64(r.pss_file, 0);
	CHECK_U64(r.pss_shmem, 0);
	CHECK_U64(r.shared_clean, 500 * KB);
	CHECK_U64(r.shared_dirty, 0);
	CHECK_U64(r.private_clean, 100 * KB);
	CHECK_U64(r.private_dirty, 300 * KB);
	CHECK_U64(r.anonymous, 300 * KB);
	CHECK_U64(r.swap, 0);
	CHECK_U64(r.swap_pss, 0);
}

static int rollup_edit(const char *from, const char *to)
{
	char buf[sizeof(rollup_modern) + 64];
	const char *at = strstr(rollup_modern, from);
	struct memz_rollup r;
	int n;

	if (!at)
		return 12345;
	n = snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(at - rollup_modern),
		     rollup_modern, to, at + strlen(from));
	return memz_parse_rollup(buf, (size_t)n, &r);
}

static void test_rollup_bad(void)
{
	struct memz_rollup r;

	CHECK_INT(memz_parse_rollup("", 0, &r), -EINVAL);
	CHECK_INT(rollup_edit("Rss:                1748 kB\n", ""), -EINVAL);
	CHECK_INT(rollup_edit("Pss:                 427 kB\n", ""), -EINVAL);
	CHECK_INT(rollup_edit("Pss_File:            303 kB\n", ""), -EINVAL);
	CHECK_INT(rollup_edit("Pss:                 427 kB", "Pss: 4z7 kB"),
		  -EINVAL);
	CHECK_INT(rollup_edit("Swap:                 64 kB", "Swap: 64"), -EINVAL);
	CHECK_INT(rollup_edit("Swap:                 64 kB", "Swap 64 kB"),
		  -EINVAL);
	/* no header line: not a smaps_rollup */
	CHECK_INT(memz_parse_rollup(strchr(rollup_modern, '\n') + 1,
				    strlen(strchr(rollup_modern, '\n') + 1), &r),
		  -EINVAL);
	/* cut short before Pss */
	CHECK_INT(memz_parse_rollup(rollup_modern, 110, &r), -EINVAL);
	/* unknown keys are skipped, whatever they hold */
	CHECK_INT(rollup_edit("KSM:                   0 kB", "Future: what"), 0);
}

struct maps {
	int n, stop_at;
	struct memz_mapping m[8];
};

static int collect(const struct memz_mapping *m, void *ctx)
{
	struct maps *ms = ctx;

	if (ms->n < 8)
		ms->m[ms->n] = *m;
	ms->n++;
	return ms->n == ms->stop_at ? 99 : 0;
}

static const char smaps_text[] =
	"55d1c0a00000-55d1c0a2b000 r--p 00000000 fd:01 1573128                    /usr/bin/my prog (deleted)\n"
	"Size:                172 kB\n"
	"KernelPageSize:        4 kB\n"
	"MMUPageSize:           4 kB\n"
	"Rss:                 160 kB\n"
	"Pss:                  80 kB\n"
	"Pss_Dirty:             0 kB\n"
	"Shared_Clean:        150 kB\n"
	"Shared_Dirty:          2 kB\n"
	"Private_Clean:         5 kB\n"
	"Private_Dirty:         3 kB\n"
	"Referenced:          160 kB\n"
	"Anonymous:             3 kB\n"
	"KSM:                   0 kB\n"
	"LazyFree:              0 kB\n"
	"AnonHugePages:         0 kB\n"
	"ShmemPmdMapped:        0 kB\n"
	"FilePmdMapped:         0 kB\n"
	"Shared_Hugetlb:        0 kB\n"
	"Private_Hugetlb:       0 kB\n"
	"Swap:                  7 kB\n"
	"SwapPss:               6 kB\n"
	"Locked:                1 kB\n"
	"THPeligible:           0\n"
	"ProtectionKey:         0\n"
	"VmFlags: rd mr mw me sd \n"
	"55d1c1e3c000-55d1c1e5d000 rw-p 00000000 00:00 0                          [heap]\n"
	"Size:                132 kB\n"
	"Rss:                  20 kB\n"
	"Pss:                  20 kB\n"
	"Shared_Clean:          0 kB\n"
	"Shared_Dirty:          0 kB\n"
	"Private_Clean:         0 kB\n"
	"Private_Dirty:        20 kB\n"
	"Anonymous:            20 kB\n"
	"Swap:                  1 kB\n"
	"SwapPss:               1 kB\n"
	"VmFlags: rd wr mr mw me ac sd\n"
	"7f0000000000-7f0000021000 rw-p 00001000 00:00 0 \n"
	"Size:                132 kB\n"
	"Rss:                   8 kB\n"
	"Pss:                   8 kB\n"
	"Private_Dirty:         8 kB\n"
	"Anonymous:             8 kB\n";

static void test_smaps(void)
{
	struct maps ms = { 0, 0, { { 0 } } };
	struct memz_rollup r;

	CHECK_INT(memz_parse_smaps(smaps_text, strlen(smaps_text), collect, &ms),
		  0);
	CHECK_INT(ms.n, 3);
	CHECK_U64(ms.m[0].start, 0x55d1c0a00000ULL);
	CHECK_U64(ms.m[0].end, 0x55d1c0a2b000ULL);
	CHECK_U64(ms.m[0].offset, 0);
	CHECK_U64(ms.m[0].inode, 1573128);
	CHECK_STR(ms.m[0].perms, "r--p");
	CHECK_STR(ms.m[0].dev, "fd:01");
	CHECK_STR(ms.m[0].path, "/usr/bin/my prog (deleted)");
	CHECK_U64(ms.m[0].size, 172 * KB);
	CHECK_U64(ms.m[0].rss, 160 * KB);
	CHECK_U64(ms.m[0].pss, 80 * KB);
	CHECK_U64(ms.m[0].pss_anon, 0);
	CHECK_U64(ms.m[0].pss_file, 0);
	CHECK_U64(ms.m[0].pss_shmem, 0);
	CHECK_U64(ms.m[0].shared_clean, 150 * KB);
	CHECK_U64(ms.m[0].shared_dirty, 2 * KB);
	CHECK_U64(ms.m[0].private_clean, 5 * KB);
	CHECK_U64(ms.m[0].private_dirty, 3 * KB);
	CHECK_U64(ms.m[0].anonymous, 3 * KB);
	CHECK_U64(ms.m[0].swap, 7 * KB);
	CHECK_U64(ms.m[0].swap_pss, 6 * KB);
	CHECK_U64(ms.m[0].locked, 1 * KB);
	CHECK_STR(ms.m[0].vm_flags, "rd mr mw me sd");

	CHECK_STR(ms.m[1].path, "[heap]");
	CHECK_STR(ms.m[1].perms, "rw-p");
	CHECK_STR(ms.m[1].dev, "00:00");
	CHECK_U64(ms.m[1].inode, 0);
	CHECK_U64(ms.m[1].size, 132 * KB);
	CHECK_U64(ms.m[1].private_dirty, 20 * KB);
	CHECK_U64(ms.m[1].locked, 0);
	CHECK_STR(ms.m[1].vm_flags, "rd wr mr mw me ac sd");

	/* anonymous, no VmFlags (before 3.8), last in the file */
	CHECK_STR(ms.m[2].path, "");
	CHECK_U64(ms.m[2].offset, 0x1000);
	CHECK_U64(ms.m[2].start, 0x7f0000000000ULL);
	CHECK_U64(ms.m[2].rss, 8 * KB);
	CHECK_U64(ms.m[2].shared_clean, 0);
	CHECK_STR(ms.m[2].vm_flags, "");

	/* fn's non-zero value stops the walk and is returned */
	memset(&ms, 0, sizeof(ms));
	ms.stop_at = 2;
	CHECK_INT(memz_parse_smaps(smaps_text, strlen(smaps_text), collect, &ms),
		  99);
	CHECK_INT(ms.n, 2);

	memset(&r, 0xff, sizeof(r));
	CHECK_INT(memz_parse_smaps_sum(smaps_text, strlen(smaps_text), &r), 0);
	CHECK_U64(r.rss, 188 * KB);
	CHECK_U64(r.pss, 108 * KB);
	CHECK_U64(r.shared_clean, 150 * KB);
	CHECK_U64(r.shared_dirty, 2 * KB);
	CHECK_U64(r.private_clean, 5 * KB);
	CHECK_U64(r.private_dirty, 31 * KB);
	CHECK_U64(r.anonymous, 31 * KB);
	CHECK_U64(r.swap, 8 * KB);
	CHECK_U64(r.swap_pss, 7 * KB);
	CHECK(!r.has_pss_anon);
	CHECK_U64(r.pss_anon, 31 * KB);
	CHECK_U64(r.pss_file, 0);
	CHECK_U64(r.pss_shmem, 0);

	/* no mappings at all (a kernel thread's smaps is empty) */
	memset(&ms, 0, sizeof(ms));
	CHECK_INT(memz_parse_smaps("", 0, collect, &ms), 0);
	CHECK_INT(ms.n, 0);
	memset(&r, 0xff, sizeof(r));
	CHECK_INT(memz_parse_smaps_sum("", 0, &r), 0);
	CHECK_U64(r.rss, 0);
	CHECK_U64(r.pss, 0);
	CHECK_U64(r.pss_anon, 0);
}

static int smaps_str(const char *s)
{
	struct maps ms = { 0, 0, { { 0 } } };

	return memz_parse_smaps(s, strlen(s), collect, &ms);
}

static void test_smaps_bad(void)
{
	struct memz_rollup r;

	/* a field before any header */
	CHECK_INT(smaps_str("Rss: 4 kB\n"), -EINVAL);
	/* a record without Pss */
	CHECK_INT(smaps_str("00400000-00401000 r-xp 00000000 08:01 12 /bin/x\n"
			    "Size: 4 kB\nRss: 4 kB\n"),
		  -EINVAL);
	CHECK_INT(smaps_str("00400000-00401000 r-xp 00000000 08:01 12 /bin/x\n"
			    "Size: 4 kB\nRss: 4 kB\n"
			    "00401000-00402000 r-xp 00000000 08:01 12 /bin/x\n"
			    "Size: 4 kB\nRss: 4 kB\nPss: 4 kB\n"),
		  -EINVAL);
	CHECK_INT(smaps_str("00400000-00401000 r-xp 00000000 08:01 12 /bin/x\n"
			    "Size: 4 kB\nRss: 4 kB\nPss: four kB\n"),
		  -EINVAL);
	/* garbled headers */
	CHECK_INT(smaps_str("00401000-00400000 r-xp 00000000 08:01 12 /bin/x\n"
			    "Size: 4 kB\nRss: 4 kB\nPss: 4 kB\n"),
		  -EINVAL);
	CHECK_INT(smaps_str("00400000-00401000 r-xp 0000zz00 08:01 12 /bin/x\n"
			    "Size: 4 kB\nRss: 4 kB\nPss: 4 kB\n"),
		  -EINVAL);
	CHECK_INT(smaps_str("00400000-00401000 r-xp 00000000 08:01 1x2 /bin/x\n"
			    "Size: 4 kB\nRss: 4 kB\nPss: 4 kB\n"),
		  -EINVAL);
	CHECK_INT(smaps_str("00400000-00401000 r-xpxx 00000000 08:01 12 /bin/x\n"
			    "Size: 4 kB\nRss: 4 kB\nPss: 4 kB\n"),
		  -EINVAL);
	CHECK_INT(smaps_str("00400000-00401000\n"), -EINVAL);
	CHECK_INT(smaps_str("00400000-00401000 r-xp 00000000 08:01 12 /bin/x\n"
			    "Size 4 kB\n"),
		  -EINVAL);
	CHECK_INT(memz_parse_smaps_sum("Pss: 1 kB\n", 10, &r), -EINVAL);
}

static void test_oom(void)
{
	int v = 7;

	CHECK_INT(memz_parse_oom_score_adj("-1000\n", 6, &v), 0);
	CHECK_INT(v, -1000);
	CHECK_INT(memz_parse_oom_score_adj("0\n", 2, &v), 0);
	CHECK_INT(v, 0);
	CHECK_INT(memz_parse_oom_score_adj("1000", 4, &v), 0);
	CHECK_INT(v, 1000);
	CHECK_INT(memz_parse_oom_score_adj("-17\n", 4, &v), 0);
	CHECK_INT(v, -17);
	v = 7;
	CHECK_INT(memz_parse_oom_score_adj("1001\n", 5, &v), -ERANGE);
	CHECK_INT(memz_parse_oom_score_adj("-1001\n", 6, &v), -ERANGE);
	CHECK_INT(memz_parse_oom_score_adj("", 0, &v), -EINVAL);
	CHECK_INT(memz_parse_oom_score_adj("-\n", 2, &v), -EINVAL);
	CHECK_INT(memz_parse_oom_score_adj("x\n", 2, &v), -EINVAL);
	CHECK_INT(memz_parse_oom_score_adj("5 6\n", 4, &v), -EINVAL);
	CHECK_INT(memz_parse_oom_score_adj("--5\n", 4, &v), -EINVAL);
	CHECK_INT(memz_parse_oom_score_adj("99999999999999999999\n", 21, &v),
		  -ERANGE);
	CHECK_INT(v, 7);
}

static int cg(const char *s, char *out, size_t outlen)
{
	return memz_parse_cgroup(s, strlen(s), out, outlen);
}

static void test_cgroup(void)
{
	char out[64];

	CHECK_INT(cg("0::/system.slice/sshd.service\n", out, sizeof(out)), 0);
	CHECK_STR(out, "/system.slice/sshd.service");
	/* hybrid: v1's memory line, since v2 then holds no memory controller */
	CHECK_INT(cg("9:name=systemd:/a\n4:memory:/m\n0::/u\n", out, sizeof(out)),
		  0);
	CHECK_STR(out, "/m");
	/* v1: the memory controller's line, even co-mounted */
	CHECK_INT(cg("9:name=systemd:/a\n4:cpu,memory:/m/x\n1:cpu:/c\n", out,
		     sizeof(out)),
		  0);
	CHECK_STR(out, "/m/x");
	/* "memoryx" is not "memory" */
	CHECK_INT(cg("5:memoryx:/no\n3:pids:/p\n", out, sizeof(out)), 0);
	CHECK_STR(out, "/no");
	/* a path may hold ':' */
	CHECK_INT(cg("0::/a:b\n", out, sizeof(out)), 0);
	CHECK_STR(out, "/a:b");
	CHECK_INT(cg("0::/\n", out, sizeof(out)), 0);
	CHECK_STR(out, "/");

	CHECK_INT(cg("0::/abcdefgh\n", out, 9), -ENAMETOOLONG);
	CHECK_INT(cg("0::/abcdefg\n", out, 9), 0);
	CHECK_STR(out, "/abcdefg");
	CHECK_INT(cg("", out, sizeof(out)), -EINVAL);
	CHECK_INT(cg("garbage\n", out, sizeof(out)), -EINVAL);
	CHECK_INT(cg("4:memory\n", out, sizeof(out)), -EINVAL);
	CHECK_INT(cg("x:memory:/m\n", out, sizeof(out)), -EINVAL);
}

static void test_exe(void)
{
	char dir[] = "/tmp/memz-exe-XXXXXX";
	char out[16];
	int dfd;

	CHECK(mkdtemp(dir) != NULL);
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	CHECK(dfd >= 0);
	CHECK_INT(memz_read_exe_name(dfd, out, sizeof(out)), -ENOENT);
	CHECK_INT(symlinkat("/usr/sbin/my daemon (deleted)", dfd, "exe"), 0);
	CHECK_INT(memz_read_exe_name(dfd, out, sizeof(out)), 0);
	CHECK_STR(out, "my daemon");
	CHECK_INT(memz_read_exe_name(dfd, out, 4), 0);
	CHECK_STR(out, "my ");
	CHECK_INT(unlinkat(dfd, "exe", 0), 0);
	CHECK_INT(symlinkat("/usr/bin/", dfd, "exe"), 0);
	CHECK_INT(memz_read_exe_name(dfd, out, sizeof(out)), -EINVAL);
	CHECK_INT(unlinkat(dfd, "exe", 0), 0);
	CHECK_INT(symlinkat("relative", dfd, "exe"), 0);
	CHECK_INT(memz_read_exe_name(dfd, out, sizeof(out)), 0);
	CHECK_STR(out, "relative");
	CHECK_INT(unlinkat(dfd, "exe", 0), 0);
	close(dfd);
	CHECK_INT(rmdir(dir), 0);
}

static void test_parse_pid(void)
{
	int pid = -7;

	CHECK_INT(memz_parse_pid("1234", 4, &pid), 0);
	CHECK_INT(pid, 1234);
	CHECK_INT(memz_parse_pid("2147483647", 10, &pid), 0);
	CHECK_INT(pid, 2147483647);
	/* only len bytes count */
	CHECK_INT(memz_parse_pid("42x", 2, &pid), 0);
	CHECK_INT(pid, 42);
	pid = -7;
	/* what strtol would take, /proc never names */
	CHECK_INT(memz_parse_pid(" 12", 3, &pid), -EINVAL);
	CHECK_INT(memz_parse_pid("+12", 3, &pid), -EINVAL);
	CHECK_INT(memz_parse_pid("-1", 2, &pid), -EINVAL);
	CHECK_INT(memz_parse_pid("12 ", 3, &pid), -EINVAL);
	CHECK_INT(memz_parse_pid("0", 1, &pid), -EINVAL);
	CHECK_INT(memz_parse_pid("self", 4, &pid), -EINVAL);
	CHECK_INT(memz_parse_pid("", 0, &pid), -EINVAL);
	CHECK_INT(memz_parse_pid(NULL, 0, &pid), -EINVAL);
	CHECK_INT(memz_parse_pid("2147483648", 10, &pid), -ERANGE);
	CHECK_INT(memz_parse_pid("99999999999999999999", 20, &pid), -ERANGE);
	CHECK_INT(pid, -7);
}

/* uptime: the first field, a decimal; anything else is refused, not read
 * as 0 (which would make every process as old as the machine). */
static void test_uptime(void)
{
	double up = -1;

	CHECK_INT(memz_parse_uptime("12345.67 9876.54\n", 17, &up), 0);
	CHECK_NEAR(up, 12345.67, 1e-9);
	CHECK_INT(memz_parse_uptime("7 1\n", 4, &up), 0);
	CHECK_NEAR(up, 7, 1e-12);
	CHECK_INT(memz_parse_uptime("0.123456789012 1", 16, &up), 0);
	CHECK_NEAR(up, 0.123456789, 1e-9);
	up = -1;
	CHECK_INT(memz_parse_uptime("", 0, &up), -EINVAL);
	CHECK_INT(memz_parse_uptime("x 1\n", 4, &up), -EINVAL);
	CHECK_INT(memz_parse_uptime("12. 1\n", 6, &up), -EINVAL);
	CHECK_INT(memz_parse_uptime("1e9 1\n", 6, &up), -EINVAL);
	CHECK_INT(memz_parse_uptime("-5.0 1\n", 7, &up), -EINVAL);
	CHECK_NEAR(up, -1, 0);
}

int main(void)
{
	test_parse_pid();
	test_uptime();
	test_stat();
	test_stat_hostile_comm();
	test_stat_bad();
	test_statm();
	test_status();
	test_status_bad();
	test_rollup();
	test_rollup_bad();
	test_smaps();
	test_smaps_bad();
	test_oom();
	test_cgroup();
	test_exe();
	return check_status();
}
