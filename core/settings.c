#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "memz/settings.h"

#define OFF(field) offsetof(struct memz_settings, field)

static const char *const group_by_choices[] = { "name", "exe", "cgroup",
						"user", "none", NULL };
static const char *const pace_choices[] = { "auto", "eco", "normal", "fast",
					    NULL };

static const struct memz_setting_desc table[] = {
	{ "ProcRoot", MEMZ_SETTING_PATH, OFF(proc_root), "/proc", 0, 0, NULL, "",
	  "Directory read as /proc (tests point it at a fixture tree)." },
	{ "SysRoot", MEMZ_SETTING_PATH, OFF(sys_root), "/sys", 0, 0, NULL, "",
	  "Directory read as /sys (NUMA nodes, cgroup memory files under fs/cgroup)." },
	{ "DockerRoot", MEMZ_SETTING_PATH, OFF(docker_root), "/var/lib/docker", 0,
	  0, NULL, "",
	  "Docker's data directory: GroupBy cgroup names a container from its containers/ID/config.v2.json (empty: never read)." },
	{ "GroupBy", MEMZ_SETTING_ENUM, OFF(group_by), "name", 0, 0,
	  group_by_choices, "",
	  "How processes are summed into groups: by name, exe, cgroup, user, or none." },
	{ "PasswdFile", MEMZ_SETTING_PATH, OFF(passwd_file), "/etc/passwd", 0, 0,
	  NULL, "",
	  "The passwd file that names each uid, for GroupBy user and the per-user totals (read again when it changes; never NSS, which may block). A uid it does not name is shown as its number." },
	{ "TopGroups", MEMZ_SETTING_INT, OFF(top_groups), "10", 0, 1000, NULL, "",
	  "How many of the largest groups (by PSS) are reported besides those selected by Process and ProcessMatch." },
	{ "TopUsers", MEMZ_SETTING_INT, OFF(top_users), "20", 0, 100, NULL, "",
	  "How many of the users with the largest PSS have their totals published (every process of a uid summed, whatever GroupBy is), by the same PublishAfter and PublishHold as groups. 0: none." },
	{ "Process", MEMZ_SETTING_LIST, OFF(process), "", 0, 0, NULL, "",
	  "Always report the group with exactly this name; repeatable." },
	{ "ProcessMatch", MEMZ_SETTING_REGEX_LIST, OFF(process_match), "", 0, 0,
	  NULL, "",
	  "Always report groups whose name matches this POSIX extended regex (repetitions nested at most 3 deep, counts at most 255); repeatable." },
	{ "PublishAfter", MEMZ_SETTING_DOUBLE, OFF(publish_after), "60", 0,
	  86400, NULL, "s",
	  "A group among the TopGroups largest is published (a collectd file, a netdata dimension) only once it has existed this long, so short-lived processes (compilers, linkers) create none; a leak suspect and a group selected by Process or ProcessMatch are published at once. 0: at once." },
	{ "PublishHold", MEMZ_SETTING_DOUBLE, OFF(publish_hold), "300", 0,
	  86400, NULL, "s",
	  "A published group that falls out of the TopGroups largest, or whose leak verdict clears, stays published this long while it has processes, so a group at the edge does not come and go and a host shows a suspect's clear." },
	{ "CgroupRefresh", MEMZ_SETTING_DOUBLE, OFF(cgroup_refresh), "10", 1,
	  3600, NULL, "s",
	  "GroupBy cgroup: how often a published group's cgroup memory limit and usage are read again." },
	{ "MaxOpenFiles", MEMZ_SETTING_INT, OFF(max_open_files), "16384", 0,
	  1048576, NULL, "",
	  "File descriptors kept open across cycles (each holds about 4 KiB of kernel memory once read); above it files are opened, read and closed each time, about three times the CPU." },
	{ "PssRefreshCycles", MEMZ_SETTING_INT, OFF(pss_refresh_cycles), "10", 1,
	  100000, NULL, "",
	  "Re-read smaps_rollup of a process whose statm did not change every this many cycles (PSS drifts as sharers come and go)." },
	{ "PssMaxAge", MEMZ_SETTING_DOUBLE, OFF(pss_max_age), "60", 1, 86400,
	  NULL, "s",
	  "No process goes longer than this without an exact smaps_rollup read, whatever the CPU budget." },
	{ "ExactMaxRss", MEMZ_SETTING_DOUBLE, OFF(exact_max_rss), "536870912", 0,
	  1e15, NULL, "B",
	  "A process resident above this is never read whole by smaps_rollup (the kernel holds its mmap lock for the whole walk, about 17 ms per GiB); its figures come from status and a pagemap walk spread over cycles, and are flagged as an estimate, its PSS within a stated error. 0: no bound." },
	{ "CpuBudget", MEMZ_SETTING_DOUBLE, OFF(cpu_budget), "1", 0.01, 100, NULL,
	  "%",
	  "CPU time the expensive smaps_rollup reads may use, in percent of one core, averaged over a minute." },
	{ "LeakMinSamples", MEMZ_SETTING_INT, OFF(leak_min_samples), "8", 3, 64,
	  NULL, "", "Samples the short horizon needs before it can flag a leak." },
	{ "LeakMinRate", MEMZ_SETTING_DOUBLE, OFF(leak_min_rate), "32768", 0,
	  1e12, NULL, "B/s",
	  "Least PSS growth rate the short horizon flags." },
	{ "LeakMinR2", MEMZ_SETTING_DOUBLE, OFF(leak_min_r2), "0.7", 0, 1, NULL,
	  "", "Least goodness of fit (R squared) of the growth line." },
	{ "LeakMaxDip", MEMZ_SETTING_DOUBLE, OFF(leak_max_dip), "0.333", 0, 1,
	  NULL, "",
	  "Largest drawdown inside the window, as a fraction of the window's growth." },
	{ "LeakSlowMinRate", MEMZ_SETTING_DOUBLE, OFF(leak_slow_min_rate), "1024",
	  0, 1e12, NULL, "B/s", "Least PSS growth rate the long horizon flags." },
	{ "LeakLongHorizon", MEMZ_SETTING_DOUBLE, OFF(leak_long_horizon), "3600",
	  60, 604800, NULL, "s", "How far back the long horizon's history reaches." },
	{ "LeakBucket", MEMZ_SETTING_DOUBLE, OFF(leak_bucket), "60", 1, 3600,
	  NULL, "s", "Width of one bucket of the long horizon's history." },
	{ "LeakMinSize", MEMZ_SETTING_DOUBLE, OFF(leak_min_size), "1048576", 0,
	  1e15, NULL, "B",
	  "Processes and groups with less PSS than this are never flagged." },
	{ "LeakWarmup", MEMZ_SETTING_DOUBLE, OFF(leak_warmup), "900", 0, 86400,
	  NULL, "s",
	  "A process younger than this is judged only once what it owns, or its floor under spikes, has held still for LeakSettle: growth since it started is start-up (a compiler, a batch job, a daemon filling its caches), not a leak. 0 judges every process from its first sample." },
	{ "LeakSettle", MEMZ_SETTING_DOUBLE, OFF(leak_settle), "60", 1, 86400,
	  NULL, "s",
	  "How long what a young process owns (its anonymous memory and shared memory only it maps) must hold still, within 64 KiB or 1%, before its growth is judged." },
	{ "LeakIgnore", MEMZ_SETTING_REGEX_LIST, OFF(leak_ignore), "", 0, 0,
	  NULL, "",
	  "Never flag a process or group whose name matches this POSIX extended regex (as ProcessMatch); repeatable. memz never flags its own processes (memz, memz.plugin)." },
	{ "LeakAlarmAfter", MEMZ_SETTING_DOUBLE, OFF(leak_alarm_after), "120", 0,
	  86400, NULL, "s",
	  "A leak suspect raises a host alarm (netdata WARNING or CRITICAL, a collectd notification) and counts in the time to OOM only once its verdict has stood this long." },
	{ "LeakWarnTime", MEMZ_SETTING_DOUBLE, OFF(leak_warn_time), "172800", 0,
	  31536000, NULL, "s",
	  "A sustained leak raises a WARNING when, at its rate, the memory that limits it (its cgroup's limit, else MemAvailable and free swap) runs out within this time; CRITICAL within OomWarn. 0 never warns." },
	{ "LeakJoinSettle", MEMZ_SETTING_DOUBLE, OFF(leak_join_settle), "10", 0,
	  3600, NULL, "s",
	  "A process that joins an existing group counts as joining for this long: its start-up growth is not the group's." },
	{ "LeakPartsDelay", MEMZ_SETTING_DOUBLE, OFF(leak_parts_delay), "300", 1,
	  86400, NULL, "s",
	  "When a leak verdict starts, smaps of the process (a group's largest member) is read, and again this long after, to say which mapping categories grew." },
	{ "LeakPartsMaxRss", MEMZ_SETTING_DOUBLE, OFF(leak_parts_max_rss),
	  "536870912", 0, 1e15, NULL, "B",
	  "A suspect with more RSS than this is not read for LeakPartsDelay (reading smaps holds its mmap lock for the whole walk, about 17 ms per GiB, as ExactMaxRss); 0 never reads." },
	{ "Pace", MEMZ_SETTING_ENUM, OFF(pace), "auto", 0, 0, pace_choices, "",
	  "Sampling pace: auto adapts (eco 2 s, normal 1 s, fast 0.5 s); eco, normal or fast pins it." },
	{ "PaceSwapOutRate", MEMZ_SETTING_DOUBLE, OFF(pace_swap_out_rate),
	  "4194304", 0, 1e12, NULL, "B/s",
	  "Swap-out rate at or above which the pace goes fast." },
	{ "PacePsiFull", MEMZ_SETTING_DOUBLE, OFF(pace_psi_full), "1", 0, 100,
	  NULL, "%", "PSI full avg10 at or above which the pace goes fast." },
	{ "PaceMinAvailable", MEMZ_SETTING_DOUBLE, OFF(pace_min_available), "15",
	  0, 100, NULL, "%",
	  "MemAvailable below this share of MemTotal makes the pace go fast." },
	{ "OomWarn", MEMZ_SETTING_DOUBLE, OFF(oom_warn), "3600", 0, 31536000,
	  NULL, "s",
	  "A time to OOM under this warns, and again at each halving (collectd: a WARNING notification); netdata's memz_time_to_oom alarm reads it as the chart variable oom_warn (critical under a sixth of it); 0 never warns." },
};

#define N_SETTINGS (sizeof table / sizeof table[0])

const struct memz_setting_desc *memz_settings_table(size_t *n)
{
	*n = N_SETTINGS;
	return table;
}

const struct memz_setting_desc *memz_setting_find(const char *name)
{
	for (size_t i = 0; i < N_SETTINGS; i++)
		if (!strcasecmp(table[i].name, name))
			return &table[i];
	return NULL;
}

static void fmt_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void fmt_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/*
 * glibc's regcomp builds its automaton by copying a repeated subexpression
 * once per repetition and its cost grows exponentially with the nesting of
 * repetitions: "a" and 25 "+" takes 10 s and 7 GB, "a{1,32767}" 5 s, and in
 * collectd that happens inside the daemon. So a pattern is measured before it
 * is compiled: repetitions nest at most REGEX_MAX_NESTING deep, a bound is at
 * most REGEX_MAX_BOUND, and the copies all bounds make come to at most
 * REGEX_MAX_COPIES atoms. A group name is matched, which needs none of that.
 */
#define REGEX_MAX_NESTING 3
#define REGEX_MAX_BOUND 255
#define REGEX_MAX_COPIES 10000
#define REGEX_MAX_DEPTH 32 /* parentheses */

struct re_level {
	unsigned long total, last; /* atoms: this group's so far, last item's */
	unsigned nest, last_nest;  /* repetition nesting of the same */
	bool has_last;
};

static unsigned long sat_mul(unsigned long a, unsigned long b)
{
	return b && a > (REGEX_MAX_COPIES + 1UL) / b ? REGEX_MAX_COPIES + 1UL
						     : a * b;
}

static void re_commit(struct re_level *l)
{
	if (!l->has_last)
		return;
	l->total += l->last;
	if (l->total > REGEX_MAX_COPIES)
		l->total = REGEX_MAX_COPIES + 1UL;
	if (l->last_nest > l->nest)
		l->nest = l->last_nest;
	l->has_last = false;
}

static void re_item(struct re_level *l, unsigned long atoms, unsigned nest)
{
	re_commit(l);
	l->last = atoms;
	l->last_nest = nest;
	l->has_last = true;
}

/* "{m}", "{m,}" or "{m,n}" at p: its length and largest count, or 0 when
 * it is not a bound (regcomp then judges the brace). */
static size_t re_bound(const char *p, unsigned long *count)
{
	const char *s = p + 1;
	unsigned long m = 0, n = 0;
	bool comma = false, has_n = false;

	/* glibc reads "{,n}" as "{0,n}" */
	if ((*s < '0' || *s > '9') && *s != ',')
		return 0;
	for (; *s >= '0' && *s <= '9'; s++)
		m = m > 100000 ? m : m * 10 + (unsigned long)(*s - '0');
	if (*s == ',') {
		comma = true;
		for (s++; *s >= '0' && *s <= '9'; s++, has_n = true)
			n = n > 100000 ? n : n * 10 + (unsigned long)(*s - '0');
	}
	if (*s != '}')
		return 0;
	*count = !comma ? m : has_n ? (n > m ? n : m) : m + 1;
	return (size_t)(s - p) + 1;
}

int memz_regex_check(const char *pat, char *why, size_t whylen)
{
	struct re_level lv[REGEX_MAX_DEPTH + 1], *l = lv;
	const char *p = pat;

	memset(lv, 0, sizeof lv);
	while (*p) {
		unsigned long count = 0;
		size_t blen;

		switch (*p) {
		case '\\':
			re_item(l, 1, 0);
			p += p[1] ? 2 : 1;
			continue;
		case '[': {
			const char *q = p + 1;

			if (*q == '^')
				q++;
			if (*q == ']')
				q++;
			while (*q && *q != ']') {
				if (*q == '[' && (q[1] == ':' || q[1] == '.' ||
						  q[1] == '=')) {
					const char *e = strchr(q + 2, q[1]);

					while (e && e[1] != ']')
						e = strchr(e + 1, q[1]);
					q = e ? e + 2 : q + 1;
					continue;
				}
				q++;
			}
			re_item(l, 1, 0);
			p = *q ? q + 1 : q;
			continue;
		}
		case '(':
			re_commit(l);
			if (l == lv + REGEX_MAX_DEPTH) {
				snprintf(why, whylen,
					 "nests groups more than %d deep",
					 REGEX_MAX_DEPTH);
				return -E2BIG;
			}
			l++;
			memset(l, 0, sizeof *l);
			p++;
			continue;
		case ')':
			if (l == lv) {
				re_item(l, 1, 0);
			} else {
				re_commit(l);
				l--;
				re_item(l, l[1].total ? l[1].total : 1, l[1].nest);
			}
			p++;
			continue;
		case '|':
			re_commit(l);
			p++;
			continue;
		case '*': case '+': case '?':
			count = 1;
			blen = 1;
			break;
		case '{':
			blen = re_bound(p, &count);
			if (!blen) {
				re_item(l, 1, 0);
				p++;
				continue;
			}
			if (count > REGEX_MAX_BOUND) {
				snprintf(why, whylen,
					 "repeats %lu times (at most %d)",
					 count, REGEX_MAX_BOUND);
				return -E2BIG;
			}
			break;
		default:
			re_item(l, 1, 0);
			p++;
			continue;
		}
		/* a repetition: of the last item, if there is one */
		if (l->has_last) {
			l->last = sat_mul(l->last, count ? count : 1);
			if (++l->last_nest > REGEX_MAX_NESTING) {
				snprintf(why, whylen,
					 "nests repetitions %u deep (at most %d)",
					 l->last_nest, REGEX_MAX_NESTING);
				return -E2BIG;
			}
			if (l->last > REGEX_MAX_COPIES) {
				snprintf(why, whylen,
					 "repeats to more than %d atoms",
					 REGEX_MAX_COPIES);
				return -E2BIG;
			}
		}
		p += blen;
	}
	while (l > lv) {
		re_commit(l);
		l--;
		re_item(l, l[1].total ? l[1].total : 1, l[1].nest);
	}
	re_commit(l);
	if (l->total > REGEX_MAX_COPIES) {
		snprintf(why, whylen, "repeats to more than %d atoms",
			 REGEX_MAX_COPIES);
		return -E2BIG;
	}
	return 0;
}

int memz_regex_compile(regex_t *re, const char *name, const char *pat,
		       char *err, size_t errlen)
{
	char why[128];
	int rc = memz_regex_check(pat, why, sizeof why);

	if (rc) {
		fmt_err(err, errlen, "%s: \"%s\" is too costly to compile: it %s",
			name, pat, why);
		return -EINVAL;
	}
	rc = regcomp(re, pat, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		regerror(rc, re, why, sizeof why);
		regfree(re);
		fmt_err(err, errlen, "%s: \"%s\" is not a valid extended regex (%s)",
			name, pat, why);
		return -EINVAL;
	}
	return 0;
}

static void fmt_range(const struct memz_setting_desc *d, char *buf, size_t n)
{
	if (d->type == MEMZ_SETTING_INT)
		snprintf(buf, n, "an integer from %.0f to %.0f", d->min, d->max);
	else
		snprintf(buf, n, "a number from %g to %g%s%s", d->min, d->max,
			 *d->unit ? " " : "", d->unit);
}

/* A number parsed (or not) from value, against d's range. */
static int check_number(const struct memz_setting_desc *d, const char *value,
			bool parsed, double v, char *err, size_t errlen)
{
	char allowed[128];

	fmt_range(d, allowed, sizeof allowed);
	if (!parsed) {
		fmt_err(err, errlen, "%s: \"%s\" is not %s", d->name, value,
			allowed);
		return -EINVAL;
	}
	if (v < d->min || v > d->max) {
		fmt_err(err, errlen, "%s: \"%s\" is out of range (%s)", d->name,
			value, allowed);
		return -ERANGE;
	}
	return 0;
}

static int set_one(struct memz_settings *s, const struct memz_setting_desc *d,
		   const char *value, char *err, size_t errlen)
{
	char *field = (char *)s + d->offset;
	char allowed[128];
	char *end;
	int rc;

	switch (d->type) {
	case MEMZ_SETTING_BOOL: {
		bool v;
		if (!strcasecmp(value, "true") || !strcasecmp(value, "yes") ||
		    !strcmp(value, "1"))
			v = true;
		else if (!strcasecmp(value, "false") ||
			 !strcasecmp(value, "no") || !strcmp(value, "0"))
			v = false;
		else
			goto bad_bool;
		*(bool *)field = v;
		return 0;
	bad_bool:
		fmt_err(err, errlen, "%s: \"%s\" is not a boolean (true or false)",
			d->name, value);
		return -EINVAL;
	}
	case MEMZ_SETTING_INT: {
		long v;
		errno = 0;
		v = strtol(value, &end, 10);
		rc = check_number(d, value, *value && !*end && !errno, (double)v,
				  err, errlen);
		if (!rc)
			*(int *)field = (int)v;
		return rc;
	}
	case MEMZ_SETTING_DOUBLE: {
		double v;
		errno = 0;
		v = strtod(value, &end);
		rc = check_number(d, value,
				  *value && !*end && !errno && isfinite(v), v, err,
				  errlen);
		if (!rc)
			*(double *)field = v;
		return rc;
	}
	case MEMZ_SETTING_PATH:
		if (!*value || strlen(value) >= MEMZ_PATH_MAX) {
			fmt_err(err, errlen,
				"%s: \"%s\" is not a path (1 to %d bytes)", d->name,
				value, MEMZ_PATH_MAX - 1);
			return -EINVAL;
		}
		strcpy(field, value);
		return 0;
	case MEMZ_SETTING_ENUM: {
		size_t off = 0;
		for (int i = 0; d->choices[i]; i++)
			if (!strcasecmp(d->choices[i], value)) {
				*(int *)field = i;
				return 0;
			}
		allowed[0] = '\0';
		for (int i = 0; d->choices[i] && off < sizeof allowed; i++)
			off += (size_t)snprintf(allowed + off, sizeof allowed - off,
						"%s%s", i ? ", " : "",
						d->choices[i]);
		fmt_err(err, errlen, "%s: \"%s\" is not one of %s", d->name,
			value, allowed);
		return -EINVAL;
	}
	case MEMZ_SETTING_LIST:
	case MEMZ_SETTING_REGEX_LIST: {
		struct memz_strlist *l = (struct memz_strlist *)field;
		if (!*value || strlen(value) >= MEMZ_PATTERN_MAX) {
			fmt_err(err, errlen, "%s: \"%s\" must be 1 to %d bytes",
				d->name, value, MEMZ_PATTERN_MAX - 1);
			return -EINVAL;
		}
		if (l->n >= MEMZ_LIST_MAX) {
			fmt_err(err, errlen,
				"%s: \"%s\" is one too many (at most %d entries)",
				d->name, value, MEMZ_LIST_MAX);
			return -EINVAL;
		}
		if (d->type == MEMZ_SETTING_REGEX_LIST) {
			regex_t re;

			rc = memz_regex_compile(&re, d->name, value, err, errlen);
			if (rc)
				return rc;
			regfree(&re);
		}
		strcpy(l->item[l->n++], value);
		return 0;
	}
	}
	return -EINVAL;
}

int memz_settings_set(struct memz_settings *s, const char *name,
		      const char *value, char *err, size_t errlen)
{
	const struct memz_setting_desc *d = memz_setting_find(name);
	char known[1024];
	size_t off = 0;

	if (!value)
		value = "";
	if (d)
		return set_one(s, d, value, err, errlen);
	known[0] = '\0';
	for (size_t i = 0; i < N_SETTINGS && off < sizeof known; i++)
		off += (size_t)snprintf(known + off, sizeof known - off, "%s%s",
					i ? ", " : "", table[i].name);
	fmt_err(err, errlen, "unknown setting \"%s\" (value \"%s\"); known: %s",
		name, value, known);
	return -EINVAL;
}

void memz_settings_init(struct memz_settings *s)
{
	memset(s, 0, sizeof *s);
	for (size_t i = 0; i < N_SETTINGS; i++)
		if (*table[i].def)
			set_one(s, &table[i], table[i].def, NULL, 0);
}

int memz_setting_format(const struct memz_settings *s,
			const struct memz_setting_desc *d, char *buf, size_t len)
{
	const char *field = (const char *)s + d->offset;
	int n = 0;

	switch (d->type) {
	case MEMZ_SETTING_BOOL:
		n = snprintf(buf, len, "%s", *(const bool *)field ? "true" : "false");
		break;
	case MEMZ_SETTING_INT:
		n = snprintf(buf, len, "%d", *(const int *)field);
		break;
	case MEMZ_SETTING_DOUBLE:
		n = snprintf(buf, len, "%.15g", *(const double *)field);
		break;
	case MEMZ_SETTING_PATH:
		n = snprintf(buf, len, "%s", field);
		break;
	case MEMZ_SETTING_ENUM:
		n = snprintf(buf, len, "%s", d->choices[*(const int *)field]);
		break;
	case MEMZ_SETTING_LIST:
	case MEMZ_SETTING_REGEX_LIST: {
		const struct memz_strlist *l = (const struct memz_strlist *)field;
		size_t off = 0;
		if (len)
			buf[0] = '\0';
		for (unsigned i = 0; i < l->n; i++) {
			n = snprintf(buf + off, off < len ? len - off : 0, "%s%s",
				     i ? ", " : "", l->item[i]);
			off += (size_t)n;
		}
		n = (int)off;
		break;
	}
	}
	return (size_t)n < len ? 0 : -ENOSPC;
}
