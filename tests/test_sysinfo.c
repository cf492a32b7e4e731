/* meminfo, zoneinfo, PSI, NUMA node meminfo and vmstat: parsers and kept-fd
 * readers. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "memz/breakdown.h"
#include "memz/readbuf.h"
#include "memz/sysinfo.h"

#define KB 1024ULL

static const char meminfo_full[] =
	"MemTotal:        8388608 kB\n"
	"MemFree:         4194304 kB\n"
	"MemAvailable:    6000000 kB\n"
	"Buffers:          131072 kB\n"
	"Cached:          1048576 kB\n"
	"SwapCached:           12 kB\n"
	"Active:           999999 kB\n"
	"AnonPages:         37888 kB\n"
	"Shmem:              2048 kB\n"
	"Slab:             262144 kB\n"
	"SReclaimable:     200000 kB\n"
	"SUnreclaim:        62144 kB\n"
	"KernelStack:        5120 kB\n"
	"PageTables:        16384 kB\n"
	"SwapTotal:       2097152 kB\n"
	"SwapFree:        2097000 kB\n"
	"VmallocTotal:   34359738367 kB\n"
	"VmallocUsed:       30000 kB\n"
	"Percpu:             4096 kB\n"
	"HugePages_Total:       0\n"
	"Hugepagesize:       2048 kB\n";

static void test_meminfo(void)
{
	struct memz_meminfo m;

	memset(&m, 0xff, sizeof(m));
	CHECK_INT(memz_parse_meminfo(meminfo_full, strlen(meminfo_full), &m), 0);
	CHECK_U64(m.mem_total, 8388608 * KB);
	CHECK_U64(m.mem_free, 4194304 * KB);
	CHECK_U64(m.buffers, 131072 * KB);
	CHECK_U64(m.cached, 1048576 * KB);
	CHECK_U64(m.slab, 262144 * KB);
	CHECK_U64(m.page_tables, 16384 * KB);
	CHECK_U64(m.mem_available, 6000000 * KB);
	CHECK_U64(m.swap_cached, 12 * KB);
	CHECK_U64(m.kernel_stack, 5120 * KB);
	CHECK_U64(m.vmalloc_used, 30000 * KB);
	CHECK_U64(m.percpu, 4096 * KB);
	CHECK_U64(m.anon_pages, 37888 * KB);
	CHECK_U64(m.shmem, 2048 * KB);
	CHECK_U64(m.s_reclaimable, 200000 * KB);
	CHECK_U64(m.s_unreclaim, 62144 * KB);
	CHECK_U64(m.swap_total, 2097152 * KB);
	CHECK_U64(m.swap_free, 2097000 * KB);
	CHECK(m.has_mem_available);
	CHECK(m.has_percpu);
	CHECK(m.has_anon_pages);
}

/* A 3.x kernel: no MemAvailable (3.14), no Percpu (3.18). */
static void test_meminfo_old(void)
{
	static const char old[] = "MemTotal: 100 kB\nMemFree: 50 kB\n"
				  "Buffers: 1 kB\nCached: 2 kB\nSlab: 3 kB\n"
				  "PageTables: 4 kB\n";
	struct memz_meminfo m;

	CHECK_INT(memz_parse_meminfo(old, strlen(old), &m), 0);
	CHECK_U64(m.mem_total, 100 * KB);
	CHECK_U64(m.mem_free, 50 * KB);
	CHECK_U64(m.buffers, 1 * KB);
	CHECK_U64(m.cached, 2 * KB);
	CHECK_U64(m.slab, 3 * KB);
	CHECK_U64(m.page_tables, 4 * KB);
	CHECK(!m.has_mem_available);
	CHECK(!m.has_percpu);
	CHECK(!m.has_anon_pages);
	CHECK_U64(m.mem_available, 0);
	CHECK_U64(m.percpu, 0);
	CHECK_U64(m.swap_total, 0);
}

static int parse_meminfo_str(const char *s)
{
	struct memz_meminfo m;

	return memz_parse_meminfo(s, strlen(s), &m);
}

static void test_meminfo_bad(void)
{
	static const char *const required[] = { "MemTotal:", "MemFree:",
		"Buffers:", "Cached:", "Slab:", "PageTables:" };
	char buf[sizeof(meminfo_full)];
	size_t i;

	/* Each required field removed (renamed so the line is unknown). */
	for (i = 0; i < 6; i++) {
		char *at;

		memcpy(buf, meminfo_full, sizeof(buf));
		at = strstr(buf, required[i]);
		CHECK(at != NULL);
		at[0] = 'X';
		CHECK_INT(memz_parse_meminfo(buf, strlen(buf), &(struct memz_meminfo){ 0 }),
			  -EINVAL);
	}
	CHECK_INT(parse_meminfo_str(""), -EINVAL);
	CHECK_INT(parse_meminfo_str("MemTotal: 1 kB\nMemFree: 1x kB\nBuffers: 1 kB\n"
				    "Cached: 1 kB\nSlab: 1 kB\nPageTables: 1 kB\n"),
		  -EINVAL);
	/* cut short in the middle of a number: no unit, not a smaller value */
	CHECK_INT(parse_meminfo_str("MemTotal: 1 kB\nMemFree: 1 kB\nBuffers: 1 kB\n"
				    "Cached: 1 kB\nSlab: 1 kB\nPageTables: 12"),
		  -EINVAL);
	CHECK_INT(parse_meminfo_str("MemTotal: 1 kB\nMemFree: 1 kB\nBuffers: 1 kB\n"
				    "Cached: 1 kB\nSlab: 1 kB\nPageTables: kB\n"),
		  -EINVAL);
	CHECK_INT(parse_meminfo_str("MemTotal: 1 kB\nMemFree: 1 kB\nBuffers: 1 kB\n"
				    "Cached: 1 kB\nSlab: 1 kB\nPageTables: 1 MB\n"),
		  -EINVAL);
	CHECK_INT(parse_meminfo_str("MemTotal: 18014398509481984 kB\nMemFree: 1 kB\n"
				    "Buffers: 1 kB\nCached: 1 kB\nSlab: 1 kB\n"
				    "PageTables: 1 kB\n"),
		  -ERANGE);
	CHECK_INT(parse_meminfo_str("MemTotal: 99999999999999999999 kB\nMemFree: 1 kB\n"
				    "Buffers: 1 kB\nCached: 1 kB\nSlab: 1 kB\n"
				    "PageTables: 1 kB\n"),
		  -ERANGE);
	CHECK_INT(parse_meminfo_str("MemTotal: 1 kB\ngarbage line\nMemFree: 1 kB\n"
				    "Buffers: 1 kB\nCached: 1 kB\nSlab: 1 kB\n"
				    "PageTables: 1 kB\n"),
		  -EINVAL);
	/* an unknown key's value is not ours to judge */
	CHECK_INT(parse_meminfo_str("MemTotal: 1 kB\nFuture: ??\nMemFree: 1 kB\n"
				    "Buffers: 1 kB\nCached: 1 kB\nSlab: 1 kB\n"
				    "PageTables: 1 kB\n"),
		  0);
	/* the length bounds the parse: the last line cut off by len */
	CHECK_INT(memz_parse_meminfo(meminfo_full, strlen(meminfo_full) - 200,
				     &(struct memz_meminfo){ 0 }),
		  -EINVAL);
}

static void test_psi(void)
{
	static const char both[] =
		"some avg10=1.25 avg60=0.50 avg300=12.07 total=123456\n"
		"full avg10=0.00 avg60=99.99 avg300=100.00 total=98765\n";
	static const char some_only[] =
		"some avg10=3.00 avg60=2.00 avg300=1.00 total=7\n";
	struct memz_psi p;

	memset(&p, 0xff, sizeof(p));
	CHECK_INT(memz_parse_psi(both, strlen(both), &p), 0);
	CHECK(p.present);
	CHECK(p.has_full);
	CHECK_NEAR(p.some.avg10, 1.25, 1e-9);
	CHECK_NEAR(p.some.avg60, 0.50, 1e-9);
	CHECK_NEAR(p.some.avg300, 12.07, 1e-9);
	CHECK_U64(p.some.total, 123456);
	CHECK_NEAR(p.full.avg10, 0.0, 1e-9);
	CHECK_NEAR(p.full.avg60, 99.99, 1e-9);
	CHECK_NEAR(p.full.avg300, 100.0, 1e-9);
	CHECK_U64(p.full.total, 98765);

	memset(&p, 0xff, sizeof(p));
	CHECK_INT(memz_parse_psi(some_only, strlen(some_only), &p), 0);
	CHECK(p.present);
	CHECK(!p.has_full);
	CHECK_NEAR(p.some.avg10, 3.0, 1e-9);
	CHECK_NEAR(p.some.avg60, 2.0, 1e-9);
	CHECK_NEAR(p.some.avg300, 1.0, 1e-9);
	CHECK_U64(p.some.total, 7);
	CHECK_U64(p.full.total, 0);
}

static int psi_str(const char *s)
{
	struct memz_psi p;

	return memz_parse_psi(s, strlen(s), &p);
}

static void test_psi_bad(void)
{
	CHECK_INT(psi_str(""), -EINVAL);
	CHECK_INT(psi_str("full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"),
		  -EINVAL);
	CHECK_INT(psi_str("some avg10=0.00 avg60=0.00 avg300=0.00\n"), -EINVAL);
	CHECK_INT(psi_str("some avg10=0.00 avg60=0.00 avg300=0.00 total=\n"),
		  -EINVAL);
	CHECK_INT(psi_str("some avg10=0.00 avg60=0.00 avg300=0.00 total=5x\n"),
		  -EINVAL);
	CHECK_INT(psi_str("some avg10=abc avg60=0.00 avg300=0.00 total=0\n"),
		  -EINVAL);
	CHECK_INT(psi_str("some avg10=1. avg60=0.00 avg300=0.00 total=0\n"),
		  -EINVAL);
	CHECK_INT(psi_str("some avg10=0.00avg60=0.00 avg300=0.00 total=0\n"),
		  -EINVAL);
	CHECK_INT(psi_str("some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
			  "what avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"),
		  -EINVAL);
	CHECK_INT(psi_str("some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
			  "full avg10=0.00 avg6"),
		  -EINVAL);
	CHECK_INT(psi_str("some avg10=0.00 avg60=0.00 avg300=0.00 "
			  "total=99999999999999999999\n"),
		  -ERANGE);
}

static void test_node(void)
{
	static const char n1[] = "Node 1 MemTotal:        4000 kB\n"
				 "Node 1 MemFree:         3000 kB\n"
				 "Node 1 MemUsed:         1000 kB\n"
				 "Node 1 SwapCached:         0 kB\n"
				 "Node 1 HugePages_Total:     0\n";
	struct memz_numa_node n;

	memset(&n, 0xff, sizeof(n));
	CHECK_INT(memz_parse_node_meminfo(n1, strlen(n1), 1, &n), 0);
	CHECK_INT(n.id, 1);
	CHECK_U64(n.total, 4000 * KB);
	CHECK_U64(n.free, 3000 * KB);
	CHECK_U64(n.used, 1000 * KB);
	/* another node's file */
	CHECK_INT(memz_parse_node_meminfo(n1, strlen(n1), 0, &n), -EINVAL);
	/* MemUsed missing */
	CHECK_INT(memz_parse_node_meminfo(n1, 64, 1, &n), -EINVAL);
	CHECK_INT(memz_parse_node_meminfo("", 0, 1, &n), -EINVAL);
	CHECK_INT(memz_parse_node_meminfo("MemTotal: 1 kB\n", 15, 1, &n),
		  -EINVAL);
	{
		static const char bad[] = "Node 1 MemTotal: 1 kB\n"
					  "Node 1 MemFree: x kB\n"
					  "Node 1 MemUsed: 1 kB\n";

		CHECK_INT(memz_parse_node_meminfo(bad, strlen(bad), 1, &n),
			  -EINVAL);
	}
}

static void test_vmstat(void)
{
	static const char v[] = "nr_free_pages 1000\npgpgin 5\npswpin 42\n"
				"pswpout 4242\npgfault 77\n";
	struct memz_vmstat s;

	memset(&s, 0xff, sizeof(s));
	CHECK_INT(memz_parse_vmstat(v, strlen(v), &s), 0);
	CHECK(s.present);
	CHECK_U64(s.pswpin, 42);
	CHECK_U64(s.pswpout, 4242);
	/* no VM event counters compiled in: absent, not malformed */
	memset(&s, 0xff, sizeof(s));
	CHECK_INT(memz_parse_vmstat("nr_free_pages 1\n", 16, &s), 0);
	CHECK(!s.present);
	CHECK_U64(s.pswpin, 0);
	CHECK_U64(s.pswpout, 0);
	CHECK_INT(memz_parse_vmstat("pswpin 1\n", 9, &s), -EINVAL);
	CHECK_INT(memz_parse_vmstat("pswpin 1\npswpout z\n", 19, &s), -EINVAL);
	CHECK_INT(memz_parse_vmstat("pswpin 1\npswpout\n", 17, &s), -EINVAL);
	/* oom_kill (Linux 4.13 on) is optional, and counted when there */
	memset(&s, 0xff, sizeof(s));
	CHECK_INT(memz_parse_vmstat(v, strlen(v), &s), 0);
	CHECK(!s.has_oom_kill);
	CHECK_U64(s.oom_kill, 0);
	{
		static const char k[] = "pswpin 1\npswpout 2\noom_kill 3\n";

		CHECK_INT(memz_parse_vmstat(k, strlen(k), &s), 0);
		CHECK(s.present);
		CHECK(s.has_oom_kill);
		CHECK_U64(s.oom_kill, 3);
		CHECK_INT(memz_parse_vmstat("oom_kill 9\n", 11, &s), 0);
		CHECK(!s.present);
		CHECK(s.has_oom_kill);
		CHECK_U64(s.oom_kill, 9);
		CHECK_INT(memz_parse_vmstat("oom_kill x\n", 11, &s), -EINVAL);
	}
}

/* Two nodes, populated and unpopulated zones, three CPUs, the kernel's
 * layout (6.18): the per-CPU lists' counts of every zone and CPU add up. */
static const char zoneinfo_two_nodes[] =
	"Node 0, zone      DMA\n"
	"  per-node stats\n"
	"      nr_inactive_anon 1891\n"
	"      nr_free_pages 3840\n"
	"  pages free     3840\n"
	"        min      44\n"
	"        cma      0\n"
	"        protection: (0, 3018, 5706, 5706, 5706)\n"
	"      nr_free_pages 3840\n"
	"  pagesets\n"
	"    cpu: 0\n"
	"              count:    3\n"
	"              high:     0\n"
	"              batch:    1\n"
	"              high_min: 27\n"
	"              high_max: 240\n"
	"  vm stats threshold: 4\n"
	"    cpu: 1\n"
	"              count:    0\n"
	"              high:     0\n"
	"  vm stats threshold: 4\n"
	"    cpu: 2\n"
	"              count:    5\n"
	"  vm stats threshold: 4\n"
	"  node_unreclaimable:  0\n"
	"  start_pfn:           1\n"
	"Node 0, zone  Movable\n"
	"  pages free     0\n"
	"        protection: (0, 0, 0, 0, 0)\n"
	"Node 1, zone   Normal\n"
	"  pages free     282316\n"
	"  pagesets\n"
	"    cpu: 0\n"
	"              count:    33334\n"
	"              high:     43008\n"
	"    cpu: 1\n"
	"              count:    17748\n"
	"    cpu: 2\n"
	"              count:    1000\n"
	"  vm stats threshold: 24\n"
	"  node_unreclaimable:  0\n"
	"  start_pfn:           1048576";

static void test_zoneinfo(void)
{
	const char *unpopulated = "Node 0, zone   Device\n  pages free     0\n";
	struct memz_zoneinfo z;

	CHECK_INT(memz_parse_zoneinfo(zoneinfo_two_nodes,
				      sizeof(zoneinfo_two_nodes) - 1, &z), 0);
	CHECK_U64(z.pages, 3 + 0 + 5 + 33334 + 17748 + 1000);
	CHECK_INT(z.zones, 3);
	CHECK_INT(z.cpus, 6);
	/* zones without pagesets (none populated) hold nothing */
	CHECK_INT(memz_parse_zoneinfo(unpopulated, strlen(unpopulated), &z), 0);
	CHECK_U64(z.pages, 0);
	CHECK_INT(z.zones, 1);
	CHECK_INT(z.cpus, 0);
}

static void zoneinfo_bad(const char *text, int want)
{
	struct memz_zoneinfo z = { 7, 7, 7 };

	CHECK_INT(memz_parse_zoneinfo(text, strlen(text), &z), want);
	/* a refused file leaves nothing half counted */
	CHECK_U64(z.pages, 7);
}

static void test_zoneinfo_bad(void)
{
	const char *zone = "Node 0, zone   Normal\n  pagesets\n";
	char text[512];

	zoneinfo_bad("", -EINVAL);
	zoneinfo_bad("\n\n", -EINVAL);
	/* not zoneinfo: text before the first zone, a header cut short */
	zoneinfo_bad("MemTotal: 1 kB\nNode 0, zone   Normal\n", -EINVAL);
	zoneinfo_bad("Node 0, zone\n", -EINVAL);
	zoneinfo_bad("Node x, zone Normal\n", -EINVAL);
	zoneinfo_bad("Node 0 zone Normal\n", -EINVAL);
	/* a cpu outside pagesets, a count without its cpu, a cpu without
	 * its count (at the end, before the next cpu, before the next zone) */
	zoneinfo_bad("Node 0, zone   Normal\n    cpu: 0\n      count: 1\n",
		     -EINVAL);
	snprintf(text, sizeof text, "%s      count: 1\n", zone);
	zoneinfo_bad(text, -EINVAL);
	snprintf(text, sizeof text, "%s    cpu: 0\n", zone);
	zoneinfo_bad(text, -EINVAL);
	snprintf(text, sizeof text, "%s    cpu: 0\n    cpu: 1\n      count: 1\n",
		 zone);
	zoneinfo_bad(text, -EINVAL);
	snprintf(text, sizeof text, "%s    cpu: 0\n%s", zone, zone);
	zoneinfo_bad(text, -EINVAL);
	snprintf(text, sizeof text, "%s    cpu: 0\n      high: 1\n      count: 1\n",
		 zone);
	zoneinfo_bad(text, -EINVAL);
	/* numbers that do not parse: garbage, a sign, none, too large */
	snprintf(text, sizeof text, "%s    cpu: 0\n      count: 12x\n", zone);
	zoneinfo_bad(text, -EINVAL);
	snprintf(text, sizeof text, "%s    cpu: 0\n      count: -1\n", zone);
	zoneinfo_bad(text, -EINVAL);
	snprintf(text, sizeof text, "%s    cpu: 0\n      count:\n", zone);
	zoneinfo_bad(text, -EINVAL);
	snprintf(text, sizeof text, "%s    cpu: zero\n      count: 1\n", zone);
	zoneinfo_bad(text, -EINVAL);
	snprintf(text, sizeof text,
		 "%s    cpu: 0\n      count: 99999999999999999999\n", zone);
	zoneinfo_bad(text, -ERANGE);
	/* two counts each in range whose sum is not */
	snprintf(text, sizeof text,
		 "%s    cpu: 0\n      count: 18446744073709551615\n"
		 "    cpu: 1\n      count: 1\n", zone);
	zoneinfo_bad(text, -ERANGE);
}

static void test_sysfiles_real(void)
{
	struct memz_sysfiles f;
	struct memz_meminfo m;
	struct memz_psi p;
	struct memz_numa n;
	struct memz_vmstat v;

	memz_sysfiles_init(&f);
	CHECK_INT(memz_sysfiles_open(&f, MEMZ_FIXTURES "/real1/proc",
				     MEMZ_FIXTURES "/real1/sys"), 0);
	CHECK_INT(memz_sysfiles_read_meminfo(&f, &m), 0);
	CHECK(m.mem_total > 0);
	CHECK(m.mem_free < m.mem_total);
	CHECK(m.has_mem_available);
	CHECK_INT(memz_sysfiles_read_psi(&f, &p), 0);
	CHECK(p.present);
	CHECK(p.has_full);
	CHECK_INT(memz_sysfiles_read_numa(&f, &n), 0);
	CHECK_INT(n.n, 1);
	CHECK_INT(n.node[0].id, 0);
	CHECK(n.node[0].total > 0);
	CHECK_U64(n.node[0].total, n.node[0].free + n.node[0].used);
	CHECK_INT(memz_sysfiles_read_vmstat(&f, &v), 0);
	CHECK(v.present);
	/* meminfo, PSI, node0's meminfo and vmstat (no zoneinfo here) */
	CHECK_INT(f.reads, 4);
	memz_sysfiles_release(&f);
	CHECK_INT(f.meminfo_fd, -1);
	CHECK_INT(f.n_nodes, 0);
}

static void open_fixture(struct memz_sysfiles *f, const char *name, int expect)
{
	char proc[256], sys[256];

	snprintf(proc, sizeof(proc), "%s/%s/proc", MEMZ_FIXTURES, name);
	snprintf(sys, sizeof(sys), "%s/%s/sys", MEMZ_FIXTURES, name);
	memz_sysfiles_init(f);
	CHECK_INT(memz_sysfiles_open(f, proc, sys), expect);
}

static void test_sysfiles_tree1(void)
{
	struct memz_sysfiles f;
	struct memz_meminfo m;
	struct memz_psi p;
	struct memz_numa n;
	struct memz_vmstat v;
	int round;

	open_fixture(&f, "tree1", 0);
	/* the second round re-reads the kept fds and must agree */
	for (round = 0; round < 2; round++) {
		CHECK_INT(memz_sysfiles_read_meminfo(&f, &m), 0);
		CHECK_U64(m.mem_total, 8388608 * KB);
		CHECK_U64(m.mem_free, 4194304 * KB);
		CHECK_U64(m.buffers, 131072 * KB);
		CHECK_U64(m.cached, 1048576 * KB);
		CHECK_U64(m.slab, 262144 * KB);
		CHECK_U64(m.page_tables, 16384 * KB);
		CHECK_U64(m.anon_pages, 37888 * KB);
		CHECK_U64(m.kernel_stack, 8192 * KB);
		CHECK_U64(m.vmalloc_used, 32768 * KB);
		CHECK_U64(m.percpu, 4096 * KB);
		CHECK_U64(m.mem_available, 6291456 * KB);
		CHECK(m.has_mem_available && m.has_percpu && m.has_anon_pages);
		CHECK_INT(memz_sysfiles_read_psi(&f, &p), 0);
		CHECK(p.present && p.has_full);
		CHECK_NEAR(p.some.avg10, 0.12, 1e-9);
		CHECK_NEAR(p.some.avg60, 0.34, 1e-9);
		CHECK_NEAR(p.some.avg300, 0.56, 1e-9);
		CHECK_U64(p.some.total, 7890);
		CHECK_NEAR(p.full.avg10, 0.01, 1e-9);
		CHECK_NEAR(p.full.avg60, 0.02, 1e-9);
		CHECK_NEAR(p.full.avg300, 0.03, 1e-9);
		CHECK_U64(p.full.total, 456);
		CHECK_INT(memz_sysfiles_read_vmstat(&f, &v), 0);
		CHECK(v.present);
		CHECK_U64(v.pswpin, 17);
		CHECK_U64(v.pswpout, 42);
		CHECK_INT(memz_sysfiles_read_numa(&f, &n), 0);
		CHECK_INT(n.n, 1);
		CHECK_INT(n.node[0].id, 0);
		CHECK_U64(n.node[0].total, 8388608 * KB);
	}
	memz_sysfiles_release(&f);
	/* release twice is harmless */
	memz_sysfiles_release(&f);
}

static void test_sysfiles_numa2(void)
{
	struct memz_sysfiles f;
	struct memz_psi p;
	struct memz_numa n;

	open_fixture(&f, "numa2", 0);
	CHECK_INT(f.n_nodes, 2);
	CHECK_INT(memz_sysfiles_read_numa(&f, &n), 0);
	CHECK_INT(n.n, 2);
	CHECK_INT(n.node[0].id, 0);
	CHECK_U64(n.node[0].total, 4194304 * KB);
	CHECK_U64(n.node[0].free, 2114048 * KB);
	CHECK_U64(n.node[0].used, 2080256 * KB);
	CHECK_INT(n.node[1].id, 1);
	CHECK_U64(n.node[1].total, 4193280 * KB);
	CHECK_U64(n.node[1].free, 2112000 * KB);
	CHECK_U64(n.node[1].used, 2081280 * KB);
	CHECK_INT(memz_sysfiles_read_psi(&f, &p), 0);
	CHECK(p.present);
	CHECK(!p.has_full);
	CHECK_NEAR(p.some.avg10, 0.12, 1e-9);
	memz_sysfiles_release(&f);
}

/* An old kernel: no PSI, no node directory. Absent, not errors. */
static void test_sysfiles_absent(void)
{
	struct memz_sysfiles f;
	struct memz_meminfo m;
	struct memz_psi p;
	struct memz_numa n;
	struct memz_vmstat v;

	open_fixture(&f, "no-rollup", 0);
	CHECK_INT(f.psi_fd, -1);
	CHECK_INT(memz_sysfiles_read_meminfo(&f, &m), 0);
	CHECK(!m.has_mem_available);
	CHECK(!m.has_percpu);
	memset(&p, 0xff, sizeof(p));
	CHECK_INT(memz_sysfiles_read_psi(&f, &p), 0);
	CHECK(!p.present);
	CHECK(!p.has_full);
	CHECK_NEAR(p.some.avg10, 0, 0);
	n.n = 99;
	CHECK_INT(memz_sysfiles_read_numa(&f, &n), 0);
	CHECK_INT(n.n, 0);
	CHECK_INT(memz_sysfiles_read_vmstat(&f, &v), 0);
	CHECK(v.present);
	memz_sysfiles_release(&f);

	/* meminfo is required */
	open_fixture(&f, "does-not-exist", -ENOENT);
	CHECK_INT(f.meminfo_fd, -1);
	CHECK_INT(memz_sysfiles_read_meminfo(&f, &m), -EBADF);
	memset(&v, 0xff, sizeof(v));
	CHECK_INT(memz_sysfiles_read_vmstat(&f, &v), 0);
	CHECK(!v.present);
	memz_sysfiles_release(&f);
}

static void test_sysfiles_garbled(void)
{
	struct memz_sysfiles f;
	struct memz_meminfo m;
	struct memz_psi p;
	struct memz_numa n;
	struct memz_vmstat v;

	open_fixture(&f, "garbled-meminfo", 0);
	CHECK_INT(memz_sysfiles_read_meminfo(&f, &m), -EINVAL);
	CHECK_INT(memz_sysfiles_read_psi(&f, &p), -EINVAL);
	CHECK_INT(memz_sysfiles_read_vmstat(&f, &v), -EINVAL);
	n.n = 5;
	CHECK_INT(memz_sysfiles_read_numa(&f, &n), -EINVAL);
	CHECK_INT(n.n, 0);
	memz_sysfiles_release(&f);
}

static void put(const char *dir, const char *rel, const char *text)
{
	char path[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	fp = fopen(path, "w");
	CHECK(fp != NULL);
	if (!fp)
		return;
	fputs(text, fp);
	fclose(fp);
}

static void mk(const char *dir, const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	CHECK_INT(mkdir(path, 0755), 0);
}

static void rm(const char *dir, const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	CHECK_INT(remove(path), 0);
}

/* Short of fds: the optional files are closed and read with
 * open/read/close from then on, with the same figures; meminfo stays. */
static void test_sysfiles_unkeep(void)
{
	struct memz_sysfiles f;
	struct memz_psi p;
	struct memz_numa n;
	struct memz_vmstat v;
	struct memz_meminfo m;
	int psi_fd;

	open_fixture(&f, "numa2", 0);
	psi_fd = f.psi_fd;
	CHECK(psi_fd >= 0 && f.vmstat_fd >= 0 && f.n_nodes == 2);
	CHECK_INT(memz_sysfiles_unkeep(&f), 4);
	CHECK(f.unkept);
	CHECK_INT(f.psi_fd, -1);
	CHECK_INT(f.node_fd[0], -1);
	CHECK_INT(f.node_fd[1], -1);
	CHECK_INT(fcntl(psi_fd, F_GETFD), -1); /* closed */
	CHECK(f.meminfo_fd >= 0);
	CHECK_INT(memz_sysfiles_unkeep(&f), 0);
	for (int round = 0; round < 2; round++) {
		CHECK_INT(memz_sysfiles_read_numa(&f, &n), 0);
		CHECK_INT(n.n, 2);
		CHECK_U64(n.node[1].total, 4193280 * KB);
		CHECK_INT(memz_sysfiles_read_psi(&f, &p), 0);
		CHECK(p.present);
		CHECK_NEAR(p.some.avg10, 0.12, 1e-9);
		CHECK_INT(memz_sysfiles_read_vmstat(&f, &v), 0);
		CHECK_INT(memz_sysfiles_read_meminfo(&f, &m), 0);
	}
	memz_sysfiles_release(&f);
	CHECK(!f.unkept);
}

/* What failed is named: the caller prints it. */
static void test_sysfiles_failed_path(void)
{
	struct memz_sysfiles f;
	char dir[] = "/tmp/memz-failed-XXXXXX", want[256];

	memz_sysfiles_init(&f);
	CHECK_INT(memz_sysfiles_open(&f, "/nonexistent/memz", "/sys"), -ENOENT);
	CHECK_STR(f.failed, "/nonexistent/memz/meminfo");
	/* a directory where meminfo should be: refused at open, named */
	CHECK(mkdtemp(dir) != NULL);
	mk(dir, "meminfo");
	CHECK_INT(memz_sysfiles_open(&f, dir, "/sys"), -EISDIR);
	snprintf(want, sizeof want, "%s/meminfo", dir);
	CHECK_STR(f.failed, want);
	rm(dir, "meminfo");
	/* a FIFO for PSI: refused without waiting for a writer, named */
	put(dir, "meminfo", "MemTotal: 1 kB\nMemFree: 1 kB\n");
	mk(dir, "pressure");
	snprintf(want, sizeof want, "%s/pressure/memory", dir);
	CHECK_INT(mkfifo(want, 0600), 0);
	CHECK_INT(memz_sysfiles_open(&f, dir, "/sys"), -EINVAL);
	CHECK_STR(f.failed, want);
	CHECK_INT(f.meminfo_fd, -1);
	remove(want);
	rm(dir, "pressure");
	rm(dir, "meminfo");
	rmdir(dir);
	memz_sysfiles_release(&f);
}

/* Kept fds see new content (the same file rewritten in place), and node
 * directories are found by number, sorted, skipping what is not a node. */
/* A capture of this 2-CPU machine's meminfo and zoneinfo, taken together
 * while compiles ran: 56251 pages sat on the per-CPU lists (Normal zone;
 * DMA's and DMA32's were empty), 225004 kB of the 256008 kB meminfo leaves
 * to the kernel. They come out of the residual as their own part. A tree
 * without zoneinfo (tree1) has none, and says so. */
static void test_sysfiles_zoneinfo(void)
{
	struct memz_sysfiles f;
	struct memz_meminfo m;
	struct memz_breakdown b;

	open_fixture(&f, "zoneinfo", 0);
	CHECK(f.has_zoneinfo);
	CHECK(f.zoneinfo_fd >= 0);
	for (int round = 0; round < 2; round++) {
		/* meminfo and zoneinfo: the sampler's files_read counts both */
		f.reads = 0;
		CHECK_INT(memz_sysfiles_read_meminfo(&f, &m), 0);
		CHECK_INT(f.reads, 2);
		CHECK(m.has_pcp_free);
		CHECK_U64(m.pcp_free, 56251 * f.page_size);
		CHECK_U64(m.mem_free, 23396340 * KB);
	}
	memz_breakdown_compute(&m, m.anon_pages, 0, &b);
	CHECK_U64(b.pcp_free, 56251 * f.page_size);
	CHECK_U64(b.kernel_residual, 256008 * KB - 56251 * f.page_size);
	CHECK_U64(b.free + b.pcp_free + b.buffers + b.cached + b.slab +
			  b.page_tables + b.process_anon + b.hidden_anon +
			  b.kernel_residual,
		  m.mem_total);
	/* short of fds: zoneinfo (the capture's only optional file) is
	 * closed and read per cycle, the same */
	CHECK_INT(memz_sysfiles_unkeep(&f), 1);
	CHECK_INT(f.zoneinfo_fd, -1);
	CHECK_INT(memz_sysfiles_read_meminfo(&f, &m), 0);
	CHECK_U64(m.pcp_free, 56251 * f.page_size);
	memz_sysfiles_release(&f);
	CHECK(!f.has_zoneinfo);

	open_fixture(&f, "tree1", 0);
	CHECK(!f.has_zoneinfo);
	memset(&m, 0xff, sizeof m);
	CHECK_INT(memz_sysfiles_read_meminfo(&f, &m), 0);
	CHECK_INT(f.reads, 1);
	CHECK(!m.has_pcp_free);
	CHECK_U64(m.pcp_free, 0);
	memz_sysfiles_release(&f);
}

/* zoneinfo grows with the CPUs, past the read buffer: it is read in
 * pieces and every count is found, the lines cut between pieces too. A
 * malformed one fails the meminfo read and is named; one line longer than
 * the buffer, or a file past MEMZ_ZONEINFO_MAX, is refused. */
static void test_sysfiles_zoneinfo_big(void)
{
	static const char meminfo[] =
		"MemTotal: 100 kB\nMemFree: 50 kB\nBuffers: 1 kB\n"
		"Cached: 2 kB\nSlab: 3 kB\nPageTables: 4 kB\n";
	char dir[] = "/tmp/memz-zoneinfo-XXXXXX", path[256], want[256];
	struct memz_sysfiles f;
	struct memz_meminfo m;
	unsigned long long sum = 0;
	FILE *fp;

	CHECK(mkdtemp(dir) != NULL);
	put(dir, "meminfo", meminfo);
	snprintf(path, sizeof path, "%s/zoneinfo", dir);
	fp = fopen(path, "w");
	CHECK(fp != NULL);
	if (!fp)
		return;
	/* 3 zones of 1000 CPUs: some 200 KiB, a dozen pieces */
	for (int zone = 0; zone < 3; zone++) {
		fprintf(fp, "Node 0, zone %8s\n  pages free     5\n  pagesets\n",
			zone == 0 ? "DMA" : zone == 1 ? "DMA32" : "Normal");
		for (int cpu = 0; cpu < 1000; cpu++) {
			fprintf(fp, "    cpu: %d\n              count:    %d\n"
				    "              high:     43008\n"
				    "              batch:    63\n"
				    "  vm stats threshold: 24\n",
				cpu, cpu * 7 + zone);
			sum += (unsigned long long)(cpu * 7 + zone);
		}
	}
	fclose(fp);
	memz_sysfiles_init(&f);
	CHECK_INT(memz_sysfiles_open(&f, dir, "/nonexistent"), 0);
	CHECK_INT(memz_sysfiles_read_meminfo(&f, &m), 0);
	CHECK_U64(m.pcp_free, sum * f.page_size);
	CHECK_U64(m.mem_free, 50 * KB);
	memz_sysfiles_release(&f);

	/* malformed: the meminfo read fails and names zoneinfo */
	put(dir, "zoneinfo", "Node 0, zone   Normal\n  pagesets\n    cpu: 0\n");
	memz_sysfiles_init(&f);
	CHECK_INT(memz_sysfiles_open(&f, dir, "/nonexistent"), 0);
	CHECK_INT(memz_sysfiles_read_meminfo(&f, &m), -EINVAL);
	snprintf(want, sizeof want, "%s/zoneinfo", dir);
	CHECK_STR(f.failed, want);
	memz_sysfiles_release(&f);

	/* one line longer than the buffer */
	fp = fopen(path, "w");
	CHECK(fp != NULL);
	if (!fp)
		return;
	fputs("Node 0, zone   Normal\n  ", fp);
	for (size_t i = 0; i < sizeof f.buf; i++)
		fputc('x', fp);
	fputs("\n", fp);
	fclose(fp);
	memz_sysfiles_init(&f);
	CHECK_INT(memz_sysfiles_open(&f, dir, "/nonexistent"), 0);
	CHECK_INT(memz_sysfiles_read_meminfo(&f, &m), -EINVAL);
	memz_sysfiles_release(&f);

	/* no end: refused past MEMZ_ZONEINFO_MAX, not read for ever */
	fp = fopen(path, "w");
	CHECK(fp != NULL);
	if (!fp)
		return;
	fputs("Node 0, zone   Normal\n", fp);
	for (size_t n = 0; n <= MEMZ_ZONEINFO_MAX; n += 16)
		fputs("      nr_x 12345\n", fp);
	fclose(fp);
	memz_sysfiles_init(&f);
	CHECK_INT(memz_sysfiles_open(&f, dir, "/nonexistent"), 0);
	CHECK_INT(memz_sysfiles_read_meminfo(&f, &m), -EFBIG);
	memz_sysfiles_release(&f);

	rm(dir, "zoneinfo");
	rm(dir, "meminfo");
	CHECK_INT(rmdir(dir), 0);
}

static void test_sysfiles_kept(void)
{
	static const char *const nodes[] = { "10", "2", "0" };
	char dir[] = "/tmp/memz-sysfiles-XXXXXX";
	char rel[128], text[256];
	struct memz_sysfiles f;
	struct memz_meminfo m;
	struct memz_numa n;
	size_t i;

	CHECK(mkdtemp(dir) != NULL);
	mk(dir, "proc");
	mk(dir, "sys");
	mk(dir, "sys/devices");
	mk(dir, "sys/devices/system");
	mk(dir, "sys/devices/system/node");
	put(dir, "proc/meminfo",
	    "MemTotal: 100 kB\nMemFree: 50 kB\nBuffers: 1 kB\nCached: 2 kB\n"
	    "Slab: 3 kB\nPageTables: 4 kB\n");
	for (i = 0; i < 3; i++) {
		snprintf(rel, sizeof(rel), "sys/devices/system/node/node%s",
			 nodes[i]);
		mk(dir, rel);
		snprintf(rel, sizeof(rel),
			 "sys/devices/system/node/node%s/meminfo", nodes[i]);
		snprintf(text, sizeof(text),
			 "Node %s MemTotal: %s0 kB\nNode %s MemFree: 1 kB\n"
			 "Node %s MemUsed: 2 kB\n",
			 nodes[i], nodes[i], nodes[i], nodes[i]);
		put(dir, rel, text);
	}
	mk(dir, "sys/devices/system/node/node3"); /* no meminfo: skipped */
	mk(dir, "sys/devices/system/node/nodex");
	mk(dir, "sys/devices/system/node/power");
	put(dir, "sys/devices/system/node/possible", "0-10\n");

	{
		char proc[256], sys[256];

		snprintf(proc, sizeof(proc), "%s/proc", dir);
		snprintf(sys, sizeof(sys), "%s/sys", dir);
		memz_sysfiles_init(&f);
		CHECK_INT(memz_sysfiles_open(&f, proc, sys), 0);
	}
	CHECK_INT(memz_sysfiles_read_meminfo(&f, &m), 0);
	CHECK_U64(m.mem_free, 50 * KB);
	/* rewrite in place: same inode, so the kept fd sees it */
	put(dir, "proc/meminfo",
	    "MemTotal: 100 kB\nMemFree: 49 kB\nBuffers: 1 kB\nCached: 2 kB\n"
	    "Slab: 3 kB\nPageTables: 4 kB\nAnonPages: 7 kB\n");
	CHECK_INT(memz_sysfiles_read_meminfo(&f, &m), 0);
	CHECK_U64(m.mem_free, 49 * KB);
	CHECK_U64(m.anon_pages, 7 * KB);
	CHECK_INT(memz_sysfiles_read_numa(&f, &n), 0);
	CHECK_INT(n.n, 3);
	CHECK_INT(n.node[0].id, 0);
	CHECK_INT(n.node[1].id, 2);
	CHECK_INT(n.node[2].id, 10);
	CHECK_U64(n.node[0].total, 0);
	CHECK_U64(n.node[1].total, 20 * KB);
	CHECK_U64(n.node[2].total, 100 * KB);
	CHECK_U64(n.node[2].free, 1 * KB);
	CHECK_U64(n.node[2].used, 2 * KB);
	memz_sysfiles_release(&f);

	for (i = 0; i < 3; i++) {
		snprintf(rel, sizeof(rel),
			 "sys/devices/system/node/node%s/meminfo", nodes[i]);
		rm(dir, rel);
		snprintf(rel, sizeof(rel), "sys/devices/system/node/node%s",
			 nodes[i]);
		rm(dir, rel);
	}
	rm(dir, "sys/devices/system/node/node3");
	rm(dir, "sys/devices/system/node/nodex");
	rm(dir, "sys/devices/system/node/power");
	rm(dir, "sys/devices/system/node/possible");
	rm(dir, "sys/devices/system/node");
	rm(dir, "sys/devices/system");
	rm(dir, "sys/devices");
	rm(dir, "sys");
	rm(dir, "proc/meminfo");
	rm(dir, "proc");
	CHECK_INT(rmdir(dir), 0);
}

int main(void)
{
	test_meminfo();
	test_meminfo_old();
	test_meminfo_bad();
	test_zoneinfo();
	test_zoneinfo_bad();
	test_psi();
	test_psi_bad();
	test_node();
	test_vmstat();
	test_sysfiles_real();
	test_sysfiles_tree1();
	test_sysfiles_numa2();
	test_sysfiles_unkeep();
	test_sysfiles_failed_path();
	test_sysfiles_absent();
	test_sysfiles_garbled();
	test_sysfiles_kept();
	test_sysfiles_zoneinfo();
	test_sysfiles_zoneinfo_big();
	return check_status();
}
