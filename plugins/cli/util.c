#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "memz/privilege.h"
#include "memz/procfs.h"
#include "memz/sampler.h"
#include "memz/sanitize.h"

/* The one piece of process-wide state: a signal can only reach a flag. */
static volatile sig_atomic_t interrupted;

static int all_digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

int cli_apply_set(struct memz_settings *s, const char *assignment)
{
	char name[128], err[1024];
	const char *eq = strchr(assignment, '=');
	size_t n;

	if (!eq || eq == assignment || (size_t)(eq - assignment) >= sizeof name) {
		fprintf(stderr, "memz: --set takes NAME=VALUE, not \"%s\"\n",
			assignment);
		return -1;
	}
	n = (size_t)(eq - assignment);
	memcpy(name, assignment, n);
	name[n] = '\0';
	if (memz_settings_set(s, name, eq + 1, err, sizeof err)) {
		fprintf(stderr, "memz: %s\n", err);
		return -1;
	}
	return 0;
}

int cli_parse_pid(const char *s, int *pid)
{
	return s && !memz_parse_pid(s, strlen(s), pid) ? 0 : -1;
}

int cli_parse_count(const char *s, unsigned *out)
{
	unsigned long long v = 0;

	if (!s || !all_digits(s))
		return -1;
	for (; *s; s++) {
		v = v * 10 + (unsigned)(*s - '0');
		if (v > 1000000)
			return -1;
	}
	*out = (unsigned)v;
	return 0;
}

int cli_parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s || *s == ' ' || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v <= 0 || v > 86400)
		return -1;
	*out = v;
	return 0;
}

const char *cli_bytes(uint64_t v, bool raw, char *buf, size_t len)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB" };
	double x = (double)v;
	int u = -1;

	if (raw || v < 1024) {
		snprintf(buf, len, raw ? "%llu" : "%llu B",
			 (unsigned long long)v);
		return buf;
	}
	while (x >= 1024 && u < 3) {
		x /= 1024;
		u++;
	}
	snprintf(buf, len, "%.1f %s", x, unit[u]);
	return buf;
}

const char *cli_rate(double bps, bool raw, char *buf, size_t len)
{
	char b[32];
	uint64_t mag = (uint64_t)llround(fabs(bps));

	if (raw) {
		snprintf(buf, len, "%+.0f", bps);
		return buf;
	}
	snprintf(buf, len, "%s%s/s", bps < 0 ? "-" : "+",
		 cli_bytes(mag, false, b, sizeof b));
	return buf;
}

const char *cli_name(const char *name, char *buf, size_t len)
{
	if (!name)
		name = "";
	memz_sanitize_terminal(name, strlen(name), buf, len);
	return buf;
}

int cli_sampler_open(const char *cmd, struct memz_sampler **sm,
		     const struct memz_settings *set,
		     const struct memz_allocator *a)
{
	char failed[PATH_MAX + 128], safe[PATH_MAX + 128];
	int rc = memz_sampler_open(sm, set, a, failed, sizeof failed);

	if (!rc)
		return 0;
	fprintf(stderr, "%s: cannot read %s: %s\n", cmd,
		cli_name(*failed ? failed : set->proc_root, safe, sizeof safe),
		strerror(-rc));
	return 1;
}

int cli_cycle_report(const char *cmd, const struct memz_settings *set,
		     const struct memz_snapshot *snap, int rc, bool *warned)
{
	char safe[PATH_MAX + 128];
	const char *path = snap->stats.failed_path;

	if (rc) {
		fprintf(stderr, "%s: cannot read %s: %s\n", cmd,
			cli_name(path ? path : set->proc_root, safe, sizeof safe),
			strerror(-rc));
		return 1;
	}
	if (*warned)
		return 0;
	if (snap->stats.fd_short) {
		fprintf(stderr,
			"%s: short of file descriptors: %u file%s not read "
			"(the first: %s: %s)\n",
			cmd, snap->stats.fd_short,
			snap->stats.fd_short == 1 ? "" : "s",
			cli_name(path, safe, sizeof safe), strerror(EMFILE));
		*warned = true;
	} else if (snap->stats.fd_degraded) {
		fprintf(stderr,
			"%s: short of file descriptors: system files are read "
			"with open/read/close\n", cmd);
		*warned = true;
	}
	return 0;
}

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

void cli_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

bool cli_interrupted(void)
{
	return interrupted != 0;
}

int cli_sleep(double s)
{
	struct timespec ts;

	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (!interrupted && nanosleep(&ts, &ts) && errno == EINTR)
		;
	return interrupted != 0;
}

int cli_other_option(const char *cmd, int c, char **argv,
		     void (*usage)(FILE *f))
{
	if (c == 'h') {
		usage(stdout);
		return 0;
	}
	if (c == ':') {
		fprintf(stderr, "%s: %s needs a value\n", cmd, argv[optind - 1]);
		return 2;
	}
	fprintf(stderr, "%s: unknown option \"%s\"\n", cmd, argv[optind - 1]);
	usage(stderr);
	return 2;
}

int cli_shared_option(const char *cmd, int c, char **argv, double *interval,
		      struct memz_settings *set, void (*usage)(FILE *f))
{
	if (c == 'i' && interval) {
		if (!cli_parse_seconds(optarg, interval))
			return -1;
		fprintf(stderr, "%s: bad --interval \"%s\" "
			"(seconds, 0 < s <= 86400)\n", cmd, optarg);
		return 2;
	}
	if (c == CLI_OPT_SET)
		return cli_apply_set(set, optarg) ? 2 : -1;
	return cli_other_option(cmd, c, argv, usage);
}

int cli_no_operands(const char *cmd, int argc, char **argv)
{
	if (optind >= argc)
		return -1;
	fprintf(stderr, "%s: unexpected argument \"%s\"\n", cmd, argv[optind]);
	return 2;
}

void cli_tell_denied(const char *cmd, unsigned denied, bool *told)
{
	struct memz_caps c;
	char missing[64];

	if (*told || !denied || memz_caps_get(&c) ||
	    !memz_priv_missing(c.effective, missing, sizeof missing))
		return;
	*told = true;
	fprintf(stderr, "%s: cannot read %u processes of other users (uid %u "
		"lacks %s); their memory is shown as hidden. Run it as root "
		"(sudo %s) to see every process\n", cmd, denied,
		(unsigned)getuid(), missing, cmd);
}
