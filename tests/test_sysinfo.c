/* meminfo, PSI, NUMA node meminfo and vmstat: parsers and kept-fd readers. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
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
	memz_sysfiles_release(&f);
	CHECK_INT(f.meminfo_fd, -1);
	CHECK_INT(f.n_nodes, 0);
}

int main(void)
{
	test_meminfo();
	test_meminfo_old();
	test_meminfo_bad();
	test_psi();
	test_psi_bad();
	test_node();
	test_vmstat();
	test_sysfiles_real();
	return check_status();
}
