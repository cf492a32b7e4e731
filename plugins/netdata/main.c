/*
 * memz.plugin - netdata external plugin.
 *
 *   memz.plugin [UPDATE_EVERY]
 *
 * Samples at the pace the core asks for (0.5 to 2 s) and reports every
 * update_every seconds; a report that falls between two samples repeats the
 * latest one, so the charts stay regular whatever the pace does. Between
 * cycles it waits in ppoll() on stdin, where netdata delivers function
 * calls. SIGTERM is blocked from the check of the stop flag to the wait,
 * which unblocks it, so a signal cannot be lost in between and ends the
 * wait at once. Anywhere else (a cycle, a function call, an open() that
 * blocks on a hostile file) the handler ends the process on the spot: netdata
 * is done with it, and whatever it was writing no longer matters.
 *
 * Function calls are queued and served in slices (FN_TIME_BUDGET_S,
 * FN_BYTE_BUDGET) between the cycles, with a ppoll() that does not wait
 * between slices: a flood of calls delays neither the charts nor SIGTERM.
 * netdata stops a plugin silent for about two minutes, so with a long
 * update_every the plugin says it is alive every KEEPALIVE_S.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sys/stat.h>

#include "memz/privilege.h"
#include "memz/report.h"
#include "memz/budget.h"
#include "memz/sampler.h"
#include "memz/sanitize.h"
#include "config.h"
#include "emit.h"
#include "memz/sanitize.h"
#include "functions.h"

#define FN_TIME_BUDGET_S 0.05
#define FN_BYTE_BUDGET (1024 * 1024)
#define KEEPALIVE_S 30
/* a plugin that never got one sample would run with no charts forever */
#define FIRST_SAMPLE_TRIES 3

static volatile sig_atomic_t stop, waiting;

static void on_stop(int sig)
{
	(void)sig;
	if (!waiting)
		_exit(0);
	stop = 1;
}

/* netdata reads stdout; whatever it cannot parse kills the connection. So
 * a fatal problem goes to stderr (error.log) and stdout gets only DISABLE,
 * which tells netdata not to restart a plugin that would fail again. */
static int disable(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int disable(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "memz.plugin: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fputs("DISABLE\n", stdout);
	fflush(stdout);
	return 1;
}

/* The core says only that a system file failed; name the one a user can
 * fix, and the setting that points at it. */
static void name_fault(const struct memz_settings *set, int rc, char *out,
		       size_t len)
{
	char path[PATH_MAX];
	struct stat st;
	int fd;

	if (stat(set->proc_root, &st) || !S_ISDIR(st.st_mode)) {
		int err = errno;
		if (!stat(set->proc_root, &st))
			err = ENOTDIR;
		snprintf(out, len, "cannot open %s (ProcRoot): %s",
			 set->proc_root, strerror(err));
		return;
	}
	snprintf(path, sizeof path, "%s/meminfo", set->proc_root);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		int err = fd < 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		snprintf(out, len, "cannot read %s (ProcRoot %s): %s", path,
			 set->proc_root, strerror(err));
	} else {
		snprintf(out, len,
			 "cannot read the system files under %s (ProcRoot) or %s (SysRoot): %s",
			 set->proc_root, set->sys_root, strerror(-rc));
	}
	if (fd >= 0)
		close(fd);
}

/* A chart counts the kills; who was killed goes to error.log, where
 * netdata keeps what its plugins say, one line a kill. */
static void log_kills(const struct memz_oom_view *o)
{
	for (size_t i = o->new_kills; i-- > 0;) {
		const struct memz_oom_kill *k = &o->kill[i];
		char name[MEMZ_OOM_NAME_MAX * 3], scope[MEMZ_OOM_PATH_MAX * 3];

		memz_sanitize_label(k->scope[0] ? k->scope : "machine",
				    strlen(k->scope[0] ? k->scope : "machine"),
				    scope, sizeof scope);
		if (!k->known) {
			fprintf(stderr, "memz: [OOM KILL] %s%s: victim unknown "
				"(no process that left fits)\n",
				k->scope[0] ? "cgroup " : "", scope);
			continue;
		}
		memz_sanitize_label(k->name, strlen(k->name), name, sizeof name);
		fprintf(stderr, "memz: [OOM KILL] %s%s: %s (pid %d), PSS %.1f MiB%s, "
			"sure %d%%\n", k->scope[0] ? "cgroup " : "", scope, name,
			k->pid, (double)k->pss / 1048576.0,
			k->leak ? ", leak suspect" : "", k->sure);
	}
	fflush(stderr);
}

static int parse_every(const char *s)
{
	char *end;
	long v;

	if (!s || !*s)
		return 0;
	v = strtol(s, &end, 10);
	return (*end || v < 1 || v > 86400) ? 0 : (int)v;
}

static int setup_signals(sigset_t *block, sigset_t *wait_mask)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: the wait must return when netdata says stop */
	if (sigaction(SIGTERM, &sa, NULL) || sigaction(SIGINT, &sa, NULL) ||
	    sigaction(SIGHUP, &sa, NULL))
		return -1;
	/* a closed stdout must be a write error we handle, not a kill: a
	 * plugin killed by a signal is disabled for good by netdata */
	sa.sa_handler = SIG_IGN;
	if (sigaction(SIGPIPE, &sa, NULL))
		return -1;
	sigemptyset(block);
	sigaddset(block, SIGTERM);
	sigaddset(block, SIGINT);
	sigaddset(block, SIGHUP);
	if (sigprocmask(SIG_UNBLOCK, block, wait_mask))
		return -1;
	sigdelset(wait_mask, SIGTERM);
	sigdelset(wait_mask, SIGINT);
	sigdelset(wait_mask, SIGHUP);
	return 0;
}

struct plugin {
	struct memz_sampler *sampler;
	struct memz_nd_emitter *emitter;
	struct memz_snapshot snap;
	struct memz_nd_input in;
	struct memz_leakparts_kept parts; /* leak findings, for the tables */
	int update_every;
	bool have_snap;
	bool told_denied;
	unsigned errors_logged;
	uint64_t held; /* capabilities kept for /proc reads, lowered between */
	/* memz-inspect's own CpuBudget, beside the sampler's: a call soon
	 * after start, while the sampler's first reads have its budget in
	 * debt, is still answered, and a flood of calls is not */
	struct memz_budget inspect_budget;
	bool told_busy, told_tx;
	char fault[2 * PATH_MAX + 512]; /* why the last sample failed */
};

/* Once, in error.log: which processes are not seen, why, and the command
 * that fixes it, with the path this binary really has. Holding both
 * capabilities, what is still refused is refused to root too (a process
 * in another namespace's care): nothing to fix, so nothing said. */
static void tell_denied(struct plugin *p)
{
	char exe[PATH_MAX], shown[2 * PATH_MAX], missing[64];
	ssize_t n;

	if (p->told_denied || !p->snap.stats.denied ||
	    !memz_priv_missing(p->held, missing, sizeof missing))
		return;
	p->told_denied = true;
	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		n = (ssize_t)strlen(strcpy(exe, "memz.plugin"));
	memz_sanitize_terminal(exe, (size_t)n, shown, sizeof shown);
	fprintf(stderr, "memz.plugin: cannot read %u processes of other users "
		"(uid %u lacks %s); their memory is counted as hidden_anon. "
		"Fix: as root run 'setcap cap_dac_read_search,cap_sys_ptrace=ep "
		"%s' and restart netdata\n", p->snap.stats.denied,
		(unsigned)getuid(), missing, shown);
}

/* Privilege that cannot be raised or lowered again is an error: the
 * plugin stops rather than go on with it in effect. */
static int sample(struct plugin *p, struct memz_clock *c, double now)
{
	int rc = memz_priv_raise(p->held);

	if (rc)
		return rc;
	rc = memz_sampler_run(p->sampler, now, &p->snap);
	if (memz_priv_lower(p->held))
		return -EPERM;
	if (!rc) {
		p->have_snap = true;
		memz_leakparts_keep(&p->parts, &p->snap.view, p->snap.leak_parts,
				    p->snap.n_leak_parts);
		memz_clock_sampled(c, now, p->snap.interval_ms);
		tell_denied(p);
		log_kills(&p->snap.oom);
		return 0;
	}
	memz_clock_failed(c, now);
	name_fault(memz_sampler_settings(p->sampler), rc, p->fault,
		   sizeof p->fault);
	/* a broken system file is worth one line in error.log, not one a
	 * second */
	if (p->errors_logged++ < 5)
		fprintf(stderr, "memz.plugin: sampling failed: %s\n",
			p->fault);
	return 0;
}

/* Once each: what the plugin left undone, so error.log says why. */
static void tell(struct plugin *p)
{
	if (p->in.busy && !p->told_busy) {
		p->told_busy = true;
		fprintf(stderr,
			"memz.plugin: function calls answered 503: more than %d queued\n",
			MEMZ_ND_QUEUE);
	}
	if (p->in.bad_tx && !p->told_tx) {
		p->told_tx = true;
		fprintf(stderr,
			"memz.plugin: function call not answered: its transaction id is not one word of at most %d bytes\n",
			MEMZ_ND_TX_MAX - 1);
	}
}

/* ppoll() never wakes early, so a tick of a millisecond only absorbs the
 * rounding of the timeout. */
#define TICK_S 0.001

/* 0 when stdout went away (netdata is gone: nothing to say), else 1 after
 * saying why on stderr and DISABLE on stdout. */
static int emit_failed(int rc)
{
	if (rc == -EIO && errno == EPIPE)
		return 0;
	return disable("writing charts failed: %s",
		       strerror(rc == -EIO ? errno : -rc));
}

static unsigned long long usec_of(double s)
{
	return s > 0 ? (unsigned long long)llround(s * 1e6) : 0;
}

static int run(struct plugin *p, const sigset_t *block,
	       const sigset_t *wait_mask)
{
	struct memz_clock clk;
	double last_out = memz_now(), last_data = 0;

	memz_clock_init(&clk, TICK_S, p->update_every);
	for (;;) {
		struct pollfd pfd = { .fd = p->in.eof ? -1 : STDIN_FILENO,
				      .events = POLLIN };
		double now = memz_now(), w, until;
		struct timespec ts;
		int rc;

		if (stop || p->in.quit)
			break;
		if (memz_clock_sample_due(&clk, now)) {
			if (sample(p, &clk, now))
				return disable("cannot raise or lower capabilities");
			if (!p->have_snap && p->errors_logged >= FIRST_SAMPLE_TRIES)
				return disable("%s", p->fault);
		}
		if (p->have_snap && memz_clock_publish_due(&clk, now)) {
			double since = memz_clock_published(&clk, now);
			/* a keepalive's repeat of the data came in between */
			if (last_data > 0 && since > now - last_data)
				since = now - last_data;
			rc = memz_nd_emit(p->emitter, &p->snap, usec_of(since));
			if (rc)
				return emit_failed(rc);
			last_out = last_data = now;
		} else if (p->have_snap && now - last_out >= KEEPALIVE_S) {
			rc = memz_nd_emit_keepalive(p->emitter, &p->snap,
						    usec_of(now - last_data));
			if (rc < 0)
				return emit_failed(rc);
			if (rc == 1)
				last_data = now;
			last_out = now;
		}
		struct memz_nd_fctx fctx = {
			p->have_snap ? &p->snap : NULL,
			memz_sampler_settings(p->sampler)->proc_root,
			p->update_every, p->held, &p->parts,
			memz_sampler_settings(p->sampler)->exact_max_rss,
			&p->inspect_budget
		};
		if (memz_nd_pending(&p->in)) {
			if (memz_nd_serve(&p->in, stdout, &fctx, memz_now(),
					  FN_TIME_BUDGET_S, FN_BYTE_BUDGET))
				return errno == EPIPE ? 0 : -EIO;
			last_out = memz_now();
		}
		until = memz_clock_next(&clk);
		if (last_out + KEEPALIVE_S < until)
			until = last_out + KEEPALIVE_S;
		/* queued calls left: look at stdin and signals, do not wait */
		w = memz_nd_pending(&p->in) ? 0 : until - memz_now();
		if (w < 0)
			w = 0;
		ts.tv_sec = (time_t)w;
		ts.tv_nsec = (long)((w - (double)ts.tv_sec) * 1e9);
		sigprocmask(SIG_BLOCK, block, NULL);
		waiting = 1;
		if (stop) {
			waiting = 0;
			break;
		}
		rc = ppoll(&pfd, 1, &ts, wait_mask);
		waiting = 0;
		sigprocmask(SIG_UNBLOCK, block, NULL);
		if (rc > 0 && memz_nd_input_read(&p->in, STDIN_FILENO, stdout,
						 &fctx, memz_now()))
			return errno == EPIPE ? 0 : -EIO;
		tell(p);
	}
	return 0;
}

int main(int argc, char **argv)
{
	/* zeroed by the loader, not cleared on the stack: most of its pages
	 * (the function input line, the kept findings, the fault text) are
	 * never written, and a page never written is never resident */
	static struct plugin p;
	struct memz_settings set;
	sigset_t block, wait_mask;
	char path[PATH_MAX], err[1024];
	int rc, fl;

#ifdef __GLIBC__
	/* A fixed threshold: glibc's own moves up to the largest block freed,
	 * so the 256 KiB smaps window of a leak's composition, once given
	 * back, came from the heap the next time and stayed resident (memz's
	 * RSS is the cost users see; blocks this large are rare, not per cycle) */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
	/* before anything a user controls is read: from here on the kept
	 * two are in effect only inside sample() and memz-inspect's read */
	rc = memz_priv_drop(&p.held);
	if (rc)
		return disable("cannot drop capabilities: %s", strerror(-rc));
	p.update_every = parse_every(argc > 1 ? argv[1] : NULL);
	if (!p.update_every)
		p.update_every = parse_every(getenv("NETDATA_UPDATE_EVERY"));
	if (!p.update_every)
		p.update_every = 1;

	memz_settings_init(&set);
	memz_nd_config_path(path, sizeof path);
	if (*path && memz_nd_config_load(path, &set, err, sizeof err) == -EINVAL)
		return disable("%s", err);
	if (memz_nd_config_host_prefix(&set, getenv("NETDATA_HOST_PREFIX"), err,
				       sizeof err))
		return disable("NETDATA_HOST_PREFIX: %s", err);
	if (setup_signals(&block, &wait_mask))
		return disable("signals: %s", strerror(errno));
	if (p.held &&
	    (rc = memz_priv_kernel_roots(set.proc_root, set.sys_root))) {
		struct memz_caps none = { 0, 0, 0 };
		int why = rc;

		if ((rc = memz_caps_set(&none)))
			return disable("cannot drop capabilities: %s",
				       strerror(-rc));
		p.held = 0;
		fprintf(stderr, "memz.plugin: ProcRoot or SysRoot is not the "
			"kernel's /proc or /sys behind root's directories (%s): "
			"reading it without privilege\n", strerror(-why));
	}
	/* docker's directory is read with privilege too: one a user could
	 * swap (a symlink, a directory others may write) is not read at all,
	 * and containers keep their short ids */
	if (p.held && (rc = memz_priv_trusted_dir(set.docker_root))) {
		fprintf(stderr, "memz.plugin: DockerRoot is not behind root's "
			"directories (%s): container names are not read from "
			"it\n", strerror(-rc));
		set.docker_root[0] = '\0';
	}
	if ((rc = memz_priv_raise(p.held)))
		return disable("cannot raise capabilities: %s", strerror(-rc));
	rc = memz_sampler_new(&p.sampler, &set, memz_allocator_libc());
	if (memz_priv_lower(p.held)) {
		memz_sampler_free(&p.sampler);
		return disable("cannot lower capabilities");
	}
	if (rc) {
		name_fault(&set, rc, p.fault, sizeof p.fault);
		return disable("%s", p.fault);
	}
	/* full from the start: the first calls are read */
	memz_budget_init(&p.inspect_budget, set.cpu_budget);
	memz_budget_refill(&p.inspect_budget, memz_now());
	p.inspect_budget.tokens = p.inspect_budget.cap;
	if (memz_nd_emitter_new(&p.emitter, stdout, p.update_every,
				memz_nd_version(getenv("NETDATA_VERSION"))) ||
	    memz_nd_input_init(&p.in)) {
		memz_nd_emitter_free(&p.emitter);
		memz_sampler_free(&p.sampler);
		return disable("out of memory");
	}
	memz_snapshot_init(&p.snap);
	fl = fcntl(STDIN_FILENO, F_GETFL);
	if (fl < 0 || fcntl(STDIN_FILENO, F_SETFL, fl | O_NONBLOCK))
		p.in.eof = true; /* no stdin: no functions, still charts */

	rc = memz_nd_emit_functions(stdout, 10);
	if (!rc)
		rc = run(&p, &block, &wait_mask);

	memz_snapshot_release(&p.snap);
	memz_nd_input_release(&p.in);
	memz_nd_emitter_free(&p.emitter);
	memz_sampler_free(&p.sampler);
	return rc ? 1 : 0;
}
