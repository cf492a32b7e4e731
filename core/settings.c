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
	  "Directory read as /sys (NUMA nodes)." },
	{ "GroupBy", MEMZ_SETTING_ENUM, OFF(group_by), "name", 0, 0,
	  group_by_choices, "",
	  "How processes are summed into groups: by name, exe, cgroup, user, or none." },
	{ "TopGroups", MEMZ_SETTING_INT, OFF(top_groups), "10", 0, 1000, NULL, "",
	  "How many of the largest groups (by PSS) are reported besides those selected by Process and ProcessMatch." },
	{ "Process", MEMZ_SETTING_LIST, OFF(process), "", 0, 0, NULL, "",
	  "Always report the group with exactly this name; repeatable." },
	{ "ProcessMatch", MEMZ_SETTING_REGEX_LIST, OFF(process_match), "", 0, 0,
	  NULL, "",
	  "Always report groups whose name matches this POSIX extended regex; repeatable." },
	{ "MaxOpenFiles", MEMZ_SETTING_INT, OFF(max_open_files), "2048", 0,
	  1048576, NULL, "",
	  "File descriptors kept open across cycles; above it files are opened, read and closed each time." },
	{ "PssRefreshCycles", MEMZ_SETTING_INT, OFF(pss_refresh_cycles), "10", 1,
	  100000, NULL, "",
	  "Re-read smaps_rollup of a process whose statm did not change every this many cycles (PSS drifts as sharers come and go)." },
	{ "PssMaxAge", MEMZ_SETTING_DOUBLE, OFF(pss_max_age), "60", 1, 86400,
	  NULL, "s",
	  "No process goes longer than this without an exact smaps_rollup read, whatever the CPU budget." },
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
	{ "LeakJoinSettle", MEMZ_SETTING_DOUBLE, OFF(leak_join_settle), "10", 0,
	  3600, NULL, "s",
	  "A process that joins an existing group counts as joining for this long: its start-up growth is not the group's." },
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

			rc = regcomp(&re, value, REG_EXTENDED | REG_NOSUB);
			if (rc) {
				regerror(rc, &re, allowed, sizeof allowed);
				regfree(&re);
				fmt_err(err, errlen,
					"%s: \"%s\" is not a valid extended regex (%s)",
					d->name, value, allowed);
				return -EINVAL;
			}
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
