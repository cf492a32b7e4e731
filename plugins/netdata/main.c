/*
 * memz.plugin - netdata external plugin.
 *
 *   memz.plugin [UPDATE_EVERY]
 *
 * Samples at the pace the core asks for (0.5 to 2 s) and reports every
 * update_every seconds; a report that falls between two samples repeats the
 * latest one, so the charts stay regular whatever the pace does. Between
 * cycles it waits in ppoll() on stdin, where netdata delivers function
 * calls, with SIGTERM unblocked only inside the wait: a signal can neither
 * be lost between the check and the wait nor interrupt a half-written line.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "memz/privilege.h"
#include "memz/report.h"
#include "memz/sampler.h"
#include "memz/sanitize.h"
#include "config.h"
#include "emit.h"
#include "functions.h"

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
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

static int parse_every(const char *s)
{
	char *end;
	long v;

	if (!s || !*s)
		return 0;
	v = strtol(s, &end, 10);
	return (*end || v < 1 || v > 86400) ? 0 : (int)v;
}

static int setup_signals(sigset_t *wait_mask)
{
	struct sigaction sa;
	sigset_t block;

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
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	return sigprocmask(SIG_BLOCK, &block, wait_mask);
}

struct plugin {
	struct memz_sampler *sampler;
	struct memz_nd_emitter *emitter;
	struct memz_snapshot snap;
	struct memz_nd_input in;
	int update_every;
	bool have_snap;
	bool told_denied;
	unsigned errors_logged;
	uint64_t held; /* capabilities kept for /proc reads, lowered between */
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
		memz_clock_sampled(c, now, p->snap.interval_ms);
		tell_denied(p);
		return 0;
	}
	memz_clock_failed(c, now);
	/* a broken system file is worth one line in error.log, not one a
	 * second */
	if (p->errors_logged++ < 5)
		fprintf(stderr, "memz.plugin: sampling failed: %s\n",
			strerror(-rc));
	return 0;
}

/* ppoll() never wakes early, so a tick of a millisecond only absorbs the
 * rounding of the timeout. */
#define TICK_S 0.001

static int run(struct plugin *p, const sigset_t *wait_mask)
{
	struct memz_clock clk;

	memz_clock_init(&clk, TICK_S, p->update_every);
	while (!stop) {
		struct pollfd pfd = { .fd = p->in.eof ? -1 : STDIN_FILENO,
				      .events = POLLIN };
		double now = memz_now(), w;
		struct timespec ts;

		if (memz_clock_sample_due(&clk, now) && sample(p, &clk, now))
			return -EPERM;
		if (p->have_snap && memz_clock_publish_due(&clk, now)) {
			double since = memz_clock_published(&clk, now);
			if (memz_nd_emit(p->emitter, &p->snap,
					 (unsigned long long)llround(since * 1e6)))
				return errno == EPIPE ? 0 : -EIO;
		}
		w = memz_clock_next(&clk) - memz_now();
		if (w < 0)
			w = 0;
		ts.tv_sec = (time_t)w;
		ts.tv_nsec = (long)((w - (double)ts.tv_sec) * 1e9);
		struct memz_nd_fctx fctx = {
			p->have_snap ? &p->snap : NULL,
			memz_sampler_settings(p->sampler)->proc_root,
			p->update_every, p->held
		};

		if (ppoll(&pfd, 1, &ts, wait_mask) > 0 &&
		    memz_nd_input_read(&p->in, STDIN_FILENO, stdout, &fctx))
			return errno == EPIPE ? 0 : -EIO;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct memz_settings set;
	struct plugin p;
	sigset_t wait_mask;
	char path[PATH_MAX], err[1024];
	int rc, fl;

	memset(&p, 0, sizeof p);
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
	if (setup_signals(&wait_mask))
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
	if ((rc = memz_priv_raise(p.held)))
		return disable("cannot raise capabilities: %s", strerror(-rc));
	rc = memz_sampler_new(&p.sampler, &set, memz_allocator_libc());
	if (memz_priv_lower(p.held)) {
		memz_sampler_free(&p.sampler);
		return disable("cannot lower capabilities");
	}
	if (rc)
		return disable("cannot read %s: %s", set.proc_root,
			       strerror(-rc));
	if (memz_nd_emitter_new(&p.emitter, stdout, p.update_every)) {
		memz_sampler_free(&p.sampler);
		return disable("out of memory");
	}
	memz_snapshot_init(&p.snap);
	fl = fcntl(STDIN_FILENO, F_GETFL);
	if (fl < 0 || fcntl(STDIN_FILENO, F_SETFL, fl | O_NONBLOCK))
		p.in.eof = true; /* no stdin: no functions, still charts */

	rc = memz_nd_emit_functions(stdout, 10);
	if (!rc)
		rc = run(&p, &wait_mask);

	memz_snapshot_release(&p.snap);
	memz_nd_emitter_free(&p.emitter);
	memz_sampler_free(&p.sampler);
	return rc ? 1 : 0;
}
