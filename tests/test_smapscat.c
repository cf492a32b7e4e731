/* test_smapscat.c - the mapping taxonomy: each rule, its precedence, the
 * thread-stack shape, filters, and sums over a whole smaps text. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "memz/smapscat.h"

static struct memz_mapping map(uint64_t start, uint64_t end, const char *perms,
			       uint64_t inode, const char *path)
{
	struct memz_mapping m;

	memset(&m, 0, sizeof m);
	m.start = start;
	m.end = end;
	m.size = end - start;
	m.inode = inode;
	snprintf(m.perms, sizeof m.perms, "%s", perms);
	snprintf(m.path, sizeof m.path, "%s", path);
	return m;
}

static enum memz_mapcat cls(const char *perms, uint64_t inode,
			    const char *path)
{
	struct memz_mapping m = map(0x1000, 0x3000, perms, inode, path);

	return memz_mapcat_classify(&m, NULL, NULL, "/usr/bin/app");
}

static void test_rules(void)
{
	CHECK_INT(cls("r-xp", 0, "[vdso]"), MEMZ_CAT_KERNEL);
	CHECK_INT(cls("r--p", 0, "[vvar]"), MEMZ_CAT_KERNEL);
	CHECK_INT(cls("--xp", 0, "[vsyscall]"), MEMZ_CAT_KERNEL);
	CHECK_INT(cls("rw-p", 0, "[heap]"), MEMZ_CAT_HEAP);
	CHECK_INT(cls("rw-p", 0, "[stack]"), MEMZ_CAT_STACK);
	CHECK_INT(cls("rw-p", 0, "[stack:1234]"), MEMZ_CAT_STACK);
	CHECK_INT(cls("rw-p", 0, "[anon:stack_and_tls:77]"), MEMZ_CAT_STACK);
	CHECK_INT(cls("r-xp", 12, "/usr/bin/app"), MEMZ_CAT_EXE);
	CHECK_INT(cls("r--p", 12, "/usr/bin/app (deleted)"), MEMZ_CAT_EXE);
	CHECK_INT(cls("r--p", 12, "/usr/bin/app2"), MEMZ_CAT_FILE);
	CHECK_INT(cls("rw-s", 9, "/dev/shm/pulse-shm-1"), MEMZ_CAT_SHMEM);
	CHECK_INT(cls("rw-s", 9, "/SYSV00000000 (deleted)"), MEMZ_CAT_SHMEM);
	CHECK_INT(cls("rw-s", 9, "/memfd:wayland (deleted)"), MEMZ_CAT_SHMEM);
	CHECK_INT(cls("rw-s", 9, "/dev/zero (deleted)"), MEMZ_CAT_SHMEM);
	CHECK_INT(cls("rw-s", 0, ""), MEMZ_CAT_SHMEM);
	CHECK_INT(cls("rw-s", 0, "[anon_shmem:ring]"), MEMZ_CAT_SHMEM);
	CHECK_INT(cls("rw-s", 9, "/dev/dri/renderD128"), MEMZ_CAT_DEVICE);
	CHECK_INT(cls("rw-s", 9, "/dev/nvidia0"), MEMZ_CAT_DEVICE);
	CHECK_INT(cls("rw-s", 9, "anon_inode:dmabuf"), MEMZ_CAT_DEVICE);
	CHECK_INT(cls("r-xp", 9, "/usr/lib/libc.so.6"), MEMZ_CAT_LIB);
	CHECK_INT(cls("r-xp", 9, "/opt/x/plugin.so"), MEMZ_CAT_LIB);
	CHECK_INT(cls("r-xp", 9, "/opt/x/plugin.so (deleted)"), MEMZ_CAT_LIB);
	CHECK_INT(cls("r-xp", 9, "/lib64/ld-linux-x86-64.so.2"), MEMZ_CAT_LIB);
	/* ".so" inside a word is not a library */
	CHECK_INT(cls("r--p", 9, "/data/x.socket.db"), MEMZ_CAT_FILE);
	CHECK_INT(cls("r--p", 9, "/a.so.d/readme"), MEMZ_CAT_FILE);
	CHECK_INT(cls("r--p", 9, "/usr/share/locale/C.UTF-8"), MEMZ_CAT_FILE);
	CHECK_INT(cls("rw-p", 0, ""), MEMZ_CAT_ANON);
	CHECK_INT(cls("rw-p", 0, "[anon:arena]"), MEMZ_CAT_ANON);
}

static void test_precedence(void)
{
	struct memz_mapping m;

	/* an executable that lives in /dev/shm is the executable */
	m = map(0x1000, 0x2000, "r-xp", 5, "/dev/shm/run");
	CHECK_INT(memz_mapcat_classify(&m, NULL, NULL, "/dev/shm/run"),
		  MEMZ_CAT_EXE);
	/* a library as the main program is the executable, not a library */
	m = map(0x1000, 0x2000, "r-xp", 5, "/lib64/ld-linux-x86-64.so.2");
	CHECK_INT(memz_mapcat_classify(&m, NULL, NULL,
				       "/lib64/ld-linux-x86-64.so.2"),
		  MEMZ_CAT_EXE);
	/* with no exe known nothing is the executable */
	m = map(0x1000, 0x2000, "r-xp", 5, "/usr/bin/app");
	CHECK_INT(memz_mapcat_classify(&m, NULL, NULL, NULL), MEMZ_CAT_FILE);
	CHECK_INT(memz_mapcat_classify(&m, NULL, NULL, ""), MEMZ_CAT_FILE);
	/* grows-down beats a device path */
	m = map(0x1000, 0x2000, "rw-p", 0, "");
	snprintf(m.vm_flags, sizeof m.vm_flags, "rd wr mr mw me gd ac");
	CHECK_INT(memz_mapcat_classify(&m, NULL, NULL, NULL), MEMZ_CAT_STACK);
	/* "gd" must be a whole flag, not part of one */
	snprintf(m.vm_flags, sizeof m.vm_flags, "rd wr gdx ac");
	CHECK_INT(memz_mapcat_classify(&m, NULL, NULL, NULL), MEMZ_CAT_ANON);
}

static void test_thread_stack_shape(void)
{
	struct memz_mapping guard = map(0x10000, 0x11000, "---p", 0, "");
	struct memz_mapping body = map(0x11000, 0x811000, "rw-p", 0, "");
	struct memz_mapping gap = map(0x12000, 0x812000, "rw-p", 0, "");
	struct memz_mapping arena = map(0x7f0000000000, 0x7f0000021000, "rw-p",
					0, "");
	struct memz_mapping reserve = map(0x7f0000021000, 0x7f0004000000,
					  "---p", 0, "");
	struct memz_mapping big = map(0x0, 0x11000, "---p", 0, "");

	CHECK_INT(memz_mapcat_classify(&body, &guard, NULL, NULL),
		  MEMZ_CAT_STACK);
	CHECK_INT(memz_mapcat_classify(&guard, NULL, &body, NULL),
		  MEMZ_CAT_STACK);
	/* not adjacent: no shape */
	CHECK_INT(memz_mapcat_classify(&gap, &guard, NULL, NULL),
		  MEMZ_CAT_ANON);
	CHECK_INT(memz_mapcat_classify(&guard, NULL, &gap, NULL),
		  MEMZ_CAT_ANON);
	/* malloc arena: writable below a large reserve */
	CHECK_INT(memz_mapcat_classify(&arena, NULL, &reserve, NULL),
		  MEMZ_CAT_ANON);
	CHECK_INT(memz_mapcat_classify(&reserve, &arena, NULL, NULL),
		  MEMZ_CAT_ANON);
	/* a PROT_NONE region larger than a guard is no guard */
	CHECK_INT(memz_mapcat_classify(&body, &big, NULL, NULL),
		  MEMZ_CAT_ANON);
	/* a file-backed neighbour is no guard */
	guard.inode = 7;
	snprintf(guard.path, sizeof guard.path, "/x");
	CHECK_INT(memz_mapcat_classify(&body, &guard, NULL, NULL),
		  MEMZ_CAT_ANON);
}

static void test_filter(void)
{
	struct memz_mapping lib = map(0x1000, 0x2000, "r-xp", 3, "/l/libz.so.1");
	struct memz_mapping heap = map(0x1000, 0x2000, "rw-p", 0, "[heap]");
	struct memz_mapping shm = map(0x1000, 0x2000, "rw-s", 3, "/dev/shm/x");
	struct memz_mapfilter f = { 0, 0 };

	CHECK(memz_mapfilter_match(&f, &lib, MEMZ_CAT_LIB));
	f.cats = MEMZ_CATS_ANON;
	CHECK(!memz_mapfilter_match(&f, &lib, MEMZ_CAT_LIB));
	CHECK(memz_mapfilter_match(&f, &heap, MEMZ_CAT_HEAP));
	f.cats = MEMZ_CATS_FILE;
	CHECK(memz_mapfilter_match(&f, &lib, MEMZ_CAT_LIB));
	CHECK(!memz_mapfilter_match(&f, &shm, MEMZ_CAT_SHMEM));
	f.cats = 0;
	f.perms = MEMZ_MAPF_WRITABLE;
	CHECK(!memz_mapfilter_match(&f, &lib, MEMZ_CAT_LIB));
	CHECK(memz_mapfilter_match(&f, &heap, MEMZ_CAT_HEAP));
	f.perms = MEMZ_MAPF_EXEC;
	CHECK(memz_mapfilter_match(&f, &lib, MEMZ_CAT_LIB));
	CHECK(!memz_mapfilter_match(&f, &heap, MEMZ_CAT_HEAP));
	f.perms = MEMZ_MAPF_SHARED;
	CHECK(memz_mapfilter_match(&f, &shm, MEMZ_CAT_SHMEM));
	CHECK(!memz_mapfilter_match(&f, &heap, MEMZ_CAT_HEAP));
	f.perms = MEMZ_MAPF_PRIVATE | MEMZ_MAPF_WRITABLE;
	CHECK(memz_mapfilter_match(&f, &heap, MEMZ_CAT_HEAP));
	CHECK(!memz_mapfilter_match(&f, &shm, MEMZ_CAT_SHMEM));
	CHECK(!memz_mapfilter_match(&f, &lib, MEMZ_CAT_LIB));
	f.cats = 1u << MEMZ_CAT_STACK;
	CHECK(!memz_mapfilter_match(&f, &heap, MEMZ_CAT_HEAP));
}

static void test_names(void)
{
	for (int c = 0; c < MEMZ_CAT_COUNT; c++)
		CHECK_INT(memz_mapcat_parse(memz_mapcat_name(c)), c);
	CHECK_INT(memz_mapcat_parse("nope"), -1);
	CHECK_STR(memz_mapcat_name(MEMZ_CAT_LIB), "lib");
	CHECK_STR(memz_mapcat_label(MEMZ_CAT_STACK), "thread stacks");
}

/* One smaps record; sizes in kB. */
static size_t rec(char *out, size_t cap, const char *head, unsigned size,
		  unsigned rss, unsigned pss, unsigned pd, unsigned swap,
		  const char *flags)
{
	return (size_t)snprintf(
		out, cap,
		"%s\nSize: %8u kB\nKernelPageSize: 4 kB\nMMUPageSize: 4 kB\n"
		"Rss: %8u kB\nPss: %8u kB\nShared_Clean: 0 kB\n"
		"Shared_Dirty: 0 kB\nPrivate_Clean: %u kB\n"
		"Private_Dirty: %8u kB\nReferenced: %u kB\nAnonymous: %u kB\n"
		"Swap: %8u kB\nSwapPss: %u kB\nLocked: 0 kB\nVmFlags: %s\n",
		head, size, rss, pss, rss - pd, pd, rss, pd, swap, swap, flags);
}

struct seen {
	enum memz_mapcat cat[16];
	unsigned n;
	struct memz_smapscat sums;
	int stop_at;
};

static int collect(const struct memz_mapping *m, enum memz_mapcat c,
		   void *ctx)
{
	struct seen *s = ctx;

	if (s->n < 16)
		s->cat[s->n] = c;
	s->n++;
	memz_smapscat_add(&s->sums, m, c);
	return (int)s->n == s->stop_at ? 42 : 0;
}

static void test_walk(void)
{
	char buf[8192];
	size_t n = 0;
	struct seen s;

	n += rec(buf + n, sizeof buf - n,
		 "55d0c0a00000-55d0c0a02000 r-xp 00000000 fd:01 99 /usr/bin/app",
		 8, 8, 4, 0, 0, "rd ex mr mw me");
	n += rec(buf + n, sizeof buf - n,
		 "55d0c0c00000-55d0c0d00000 rw-p 00000000 00:00 0 [heap]",
		 1024, 600, 600, 600, 100, "rd wr mr mw me ac");
	n += rec(buf + n, sizeof buf - n,
		 "7f0000000000-7f0000001000 ---p 00000000 00:00 0",
		 4, 0, 0, 0, 0, "mr mw me");
	n += rec(buf + n, sizeof buf - n,
		 "7f0000001000-7f0000801000 rw-p 00000000 00:00 0",
		 8192, 64, 64, 64, 0, "rd wr mr mw me ac");
	n += rec(buf + n, sizeof buf - n,
		 "7f1000000000-7f1000100000 r-xp 00000000 fd:01 7 /usr/lib/libc.so.6",
		 1024, 900, 90, 0, 0, "rd ex mr mw me");
	n += rec(buf + n, sizeof buf - n,
		 "7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0 [stack]",
		 132, 20, 20, 20, 0, "rd wr mr mw me gd ac");
	n += rec(buf + n, sizeof buf - n,
		 "7ffd10000000-7ffd10002000 r-xp 00000000 00:00 0 [vdso]",
		 8, 4, 0, 0, 0, "rd ex mr mw me de");

	memset(&s, 0, sizeof s);
	memz_smapscat_init(&s.sums);
	CHECK_INT(memz_smapscat_walk(buf, n, "/usr/bin/app", collect, &s), 0);
	CHECK_INT(s.n, 7);
	CHECK_INT(s.cat[0], MEMZ_CAT_EXE);
	CHECK_INT(s.cat[1], MEMZ_CAT_HEAP);
	CHECK_INT(s.cat[2], MEMZ_CAT_STACK); /* guard: needs its successor */
	CHECK_INT(s.cat[3], MEMZ_CAT_STACK);
	CHECK_INT(s.cat[4], MEMZ_CAT_LIB);
	CHECK_INT(s.cat[5], MEMZ_CAT_STACK);
	CHECK_INT(s.cat[6], MEMZ_CAT_KERNEL);

	CHECK_INT(s.sums.cat[MEMZ_CAT_STACK].count, 3);
	CHECK_U64(s.sums.cat[MEMZ_CAT_STACK].size, (4 + 8192 + 132) * 1024ull);
	CHECK_U64(s.sums.cat[MEMZ_CAT_STACK].rss, (64 + 20) * 1024ull);
	CHECK_U64(s.sums.cat[MEMZ_CAT_HEAP].swap, 100 * 1024ull);
	CHECK_U64(s.sums.cat[MEMZ_CAT_HEAP].private_dirty, 600 * 1024ull);
	CHECK_U64(s.sums.cat[MEMZ_CAT_LIB].pss, 90 * 1024ull);
	CHECK_INT(s.sums.total.count, 7);
	CHECK_U64(s.sums.total.rss, (8 + 600 + 64 + 900 + 20 + 4) * 1024ull);
	CHECK_U64(s.sums.total.pss, (4 + 600 + 64 + 90 + 20) * 1024ull);
	{
		uint64_t rss = 0, pss = 0, size = 0;
		unsigned count = 0;

		for (int c = 0; c < MEMZ_CAT_COUNT; c++) {
			rss += s.sums.cat[c].rss;
			pss += s.sums.cat[c].pss;
			size += s.sums.cat[c].size;
			count += s.sums.cat[c].count;
		}
		CHECK_U64(rss, s.sums.total.rss);
		CHECK_U64(pss, s.sums.total.pss);
		CHECK_U64(size, s.sums.total.size);
		CHECK_INT(count, s.sums.total.count);
	}

	/* fn's non-zero value stops the walk and comes back */
	memset(&s, 0, sizeof s);
	s.stop_at = 2;
	CHECK_INT(memz_smapscat_walk(buf, n, NULL, collect, &s), 42);
	CHECK_INT(s.n, 2);

	/* empty smaps (a kernel thread): no mappings, no error */
	memset(&s, 0, sizeof s);
	CHECK_INT(memz_smapscat_walk("", 0, NULL, collect, &s), 0);
	CHECK_INT(s.n, 0);
}

/* Every category seen, in order, over a whole file. */
struct order {
	unsigned char *cat;
	size_t n, cap;
	uint64_t rss;
};

static int note(const struct memz_mapping *m, enum memz_mapcat c, void *ctx)
{
	struct order *o = ctx;

	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 1024;
		o->cat = realloc(o->cat, o->cap);
		if (!o->cat)
			abort();
	}
	o->cat[o->n++] = (unsigned char)c;
	o->rss += m->rss;
	return 0;
}

static void write_file(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	if (!f)
		return;
	CHECK_INT(fwrite(text, 1, len, f), len);
	fclose(f);
}

/* Streamed through a window, a file many windows long gives what a walk of
 * the whole text gives, neighbours across the windows' edges included; the
 * buffer never grows past the window; a record larger than it is refused,
 * as is what is not a regular file. */
static void test_walk_file(void)
{
	const struct memz_allocator *a = memz_allocator_libc();
	char dir[] = "/tmp/memz-smaps-XXXXXX", path[64];
	size_t n = 0, len = 0, cap = 0, one;
	struct order whole = { 0 }, streamed = { 0 };
	char rec7[8192], *text, *buf = NULL;
	int dfd;

	one = 0;
	one += rec(rec7 + one, sizeof rec7 - one,
		   "7f0000000000-7f0000001000 ---p 00000000 00:00 0",
		   4, 0, 0, 0, 0, "mr mw me");
	one += rec(rec7 + one, sizeof rec7 - one,
		   "7f0000001000-7f0000801000 rw-p 00000000 00:00 0",
		   8192, 64, 64, 64, 0, "rd wr mr mw me ac");
	one += rec(rec7 + one, sizeof rec7 - one,
		   "7f1000000000-7f1000100000 r-xp 00000000 fd:01 7 /usr/lib/libc.so.6",
		   1024, 900, 90, 0, 0, "rd ex mr mw me");
	/* about 4 MiB: sixteen windows, a record cut at most edges */
	len = one * (4u << 20) / one;
	text = malloc(len + 1);
	CHECK(text != NULL);
	for (n = 0; n + one <= len; n += one)
		memcpy(text + n, rec7, one);
	len = n;
	text[len] = '\0';
	CHECK(mkdtemp(dir) != NULL);
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	snprintf(path, sizeof path, "%s/smaps", dir);
	write_file(path, text, len);

	CHECK_INT(memz_smapscat_walk(text, len, NULL, note, &whole), 0);
	CHECK_INT(memz_smapscat_walk_file(dfd, "smaps", NULL, &buf, &cap, a,
					  note, &streamed), 0);
	CHECK_INT(whole.n, len / one * 3);
	CHECK_INT(streamed.n, whole.n);
	CHECK_U64(streamed.rss, whole.rss);
	CHECK(whole.n == streamed.n &&
	      memcmp(whole.cat, streamed.cat, whole.n) == 0);
	CHECK_INT(cap, MEMZ_SMAPS_WINDOW);

	/* one record larger than the window */
	{
		static const char head[] =
			"7f0000000000-7f0000001000 ---p 00000000 00:00 0\n"
			"Size: 4 kB\nRss: 0 kB\nPss: 0 kB\nVmFlags: ";
		size_t big = MEMZ_SMAPS_WINDOW + 4096, k = sizeof head - 1;
		char *r = malloc(k + big + 1);

		CHECK(r != NULL);
		if (!r)
			return;
		memcpy(r, head, k);
		memset(r + k, 'x', big);
		r[k + big] = '\n';
		write_file(path, r, k + big + 1);
		free(r);
		free(streamed.cat);
		memset(&streamed, 0, sizeof streamed);
		CHECK_INT(memz_smapscat_walk_file(dfd, "smaps", NULL, &buf, &cap,
						  a, note, &streamed), -EFBIG);
		CHECK_INT(cap, MEMZ_SMAPS_WINDOW);
	}
	unlink(path);
	CHECK_INT(mkfifo(path, 0600), 0);
	alarm(10);
	CHECK_INT(memz_smapscat_walk_file(dfd, "smaps", NULL, &buf, &cap, a,
					  note, &streamed), -EINVAL);
	alarm(0);
	unlink(path);
	rmdir(dir);
	close(dfd);
	memz_free(a, &buf);
	free(text);
	free(whole.cat);
	free(streamed.cat);
}

/* What grew: moved categories by growth, then the usual leak homes at +0. */
static void test_diff(void)
{
	struct memz_smapscat then, now;
	struct memz_catdiff d[MEMZ_CAT_COUNT];
	char buf[256];
	size_t n;

	memz_smapscat_init(&then);
	memz_smapscat_init(&now);
	then.cat[MEMZ_CAT_HEAP].pss = 1 << 20;
	now.cat[MEMZ_CAT_HEAP].pss = (1 << 20) + (12ull << 20);
	then.cat[MEMZ_CAT_ANON].pss = 100;
	now.cat[MEMZ_CAT_ANON].pss = 100 + (7ull << 19);
	then.cat[MEMZ_CAT_LIB].pss = 5000;
	now.cat[MEMZ_CAT_LIB].pss = 4488;
	n = memz_smapscat_diff(&then, &now, d);
	CHECK_INT(n, 4);
	CHECK_INT(d[0].cat, MEMZ_CAT_HEAP);
	CHECK_INT(d[0].pss, 12ll << 20);
	CHECK_INT(d[1].cat, MEMZ_CAT_ANON);
	CHECK_INT(d[2].cat, MEMZ_CAT_LIB);
	CHECK_INT(d[2].pss, -512);
	CHECK_INT(d[3].cat, MEMZ_CAT_STACK);
	CHECK_INT(d[3].pss, 0);
	CHECK_STR(memz_smapscat_diff_format(d, n, buf, sizeof buf),
		  "heap +12.0 MiB, other anonymous +3.5 MiB, "
		  "shared libraries -512 B, thread stacks +0 B");
	/* short buffers cut at a whole entry */
	CHECK_STR(memz_smapscat_diff_format(d, n, buf, 30),
		  "heap +12.0 MiB, ...");
	CHECK_STR(memz_smapscat_diff_format(d, 1, buf, 15), "heap +12.0 MiB");
	CHECK_STR(memz_smapscat_diff_format(d, n, buf, 5), "");

	/* nothing moved: the usual homes, each +0 */
	n = memz_smapscat_diff(&then, &then, d);
	CHECK_INT(n, 3);
	CHECK_STR(memz_smapscat_diff_format(d, n, buf, sizeof buf),
		  "heap +0 B, thread stacks +0 B, other anonymous +0 B");
}

int main(void)
{
	test_walk_file();
	test_diff();
	test_rules();
	test_precedence();
	test_thread_stack_shape();
	test_filter();
	test_names();
	test_walk();
	return check_status();
}
