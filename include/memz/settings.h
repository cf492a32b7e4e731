/*
 * settings.h - the one table of every memz setting.
 *
 * collectd's <Plugin memz> block, the netdata plugin's memz.conf and the CLI's
 * --set NAME=VALUE all go through memz_settings_set(), so a name means the
 * same thing in every host and a bad name or value is refused with the same
 * message. Names are CamelCase as in collectd.conf and compared
 * case-insensitively (collectd does that for its own keys).
 *
 * struct memz_settings is plain data: no pointers, no allocation, safe to copy
 * by assignment. memz_settings_init() fills in every default.
 */
#ifndef MEMZ_SETTINGS_H
#define MEMZ_SETTINGS_H

#include <regex.h>
#include <stddef.h>

#define MEMZ_PATH_MAX 256
#define MEMZ_LIST_MAX 32     /* entries of a repeatable setting */
#define MEMZ_PATTERN_MAX 128 /* bytes of one entry, with its NUL */

enum memz_group_by {
	MEMZ_GROUP_NAME,   /* comm */
	MEMZ_GROUP_EXE,    /* basename of /proc/PID/exe */
	MEMZ_GROUP_CGROUP, /* the cgroup v2 path (or the memory controller's) */
	MEMZ_GROUP_USER,   /* real uid, as a number */
	MEMZ_GROUP_NONE,   /* every process is its own group: no group sums */
};

enum memz_pace_setting {
	MEMZ_PACE_AUTO,
	MEMZ_PACE_ECO,
	MEMZ_PACE_NORMAL,
	MEMZ_PACE_FAST,
};

struct memz_strlist {
	unsigned n;
	char item[MEMZ_LIST_MAX][MEMZ_PATTERN_MAX];
};

struct memz_settings {
	/* where to read */
	char proc_root[MEMZ_PATH_MAX];
	char sys_root[MEMZ_PATH_MAX];
	char docker_root[MEMZ_PATH_MAX];

	/* what to report */
	enum memz_group_by group_by;
	char passwd_file[MEMZ_PATH_MAX]; /* uid to name (users.h) */
	int top_groups;
	int top_users; /* per-user totals published (users.h) */
	struct memz_strlist process;       /* exact group names, always reported */
	struct memz_strlist process_match; /* POSIX extended regexes, likewise */
	double publish_after; /* s a top group must hold its place first */
	double publish_hold;  /* s a published group stays after it falls out */
	double cgroup_refresh; /* s between reads of a cgroup's memory files */

	/* what it may cost */
	int max_open_files;
	int pss_refresh_cycles;
	double pss_max_age;  /* s */
	double cpu_budget;   /* percent of one core for smaps_rollup reads */
	double exact_max_rss; /* bytes resident above which no smaps_rollup */

	/* leak detector */
	int leak_min_samples;
	double leak_min_rate;     /* B/s, short horizon */
	double leak_min_r2;
	double leak_max_dip;      /* fraction of the window's growth */
	double leak_slow_min_rate; /* B/s, long horizon */
	double leak_long_horizon; /* s */
	double leak_bucket;       /* s, width of one long-horizon bucket */
	double leak_min_size;     /* bytes of PSS below which nothing is judged */
	double leak_warmup;       /* s of age below which growth is start-up */
	double leak_settle;       /* s a young process must hold still */
	struct memz_strlist leak_ignore; /* POSIX extended regexes */
	double leak_alarm_after;  /* s a verdict stands before it alarms */
	double leak_warn_time;    /* s of headroom under which it warns */
	double leak_join_settle;  /* s a new member's growth counts as joining */
	double leak_parts_delay;  /* s between a suspect's two smaps reads */
	double leak_parts_max_rss; /* bytes of RSS above which smaps is not read */

	/* pace policy */
	enum memz_pace_setting pace;
	double pace_swap_out_rate; /* B/s */
	double pace_psi_full;      /* percent, avg10 */
	double pace_min_available; /* percent of MemTotal */

	/* time to OOM */
	double oom_warn; /* s; a forecast under it warns; 0: never */
};

enum memz_setting_type {
	MEMZ_SETTING_BOOL,
	MEMZ_SETTING_INT,
	MEMZ_SETTING_DOUBLE,
	MEMZ_SETTING_PATH,
	MEMZ_SETTING_ENUM,
	MEMZ_SETTING_LIST,  /* repeatable: each set appends one entry */
	MEMZ_SETTING_REGEX_LIST,
};

struct memz_setting_desc {
	const char *name;
	enum memz_setting_type type;
	size_t offset;           /* into struct memz_settings */
	const char *def;         /* default, as a string a user would write */
	double min, max;         /* INT and DOUBLE only */
	const char *const *choices; /* ENUM: NULL-terminated, index = value */
	const char *unit;        /* "B/s", "s", "%", "" */
	const char *help;        /* one sentence */
};

/* The table, in the order the docs list it. */
const struct memz_setting_desc *memz_settings_table(size_t *n);

/* Look a setting up by name (case-insensitive); NULL if unknown. */
const struct memz_setting_desc *memz_setting_find(const char *name);

/* Every setting at its default; lists empty. */
void memz_settings_init(struct memz_settings *s);

/*
 * Set one setting from its string form. Returns 0, or -EINVAL (unknown name,
 * bad value, out of range, full list) or -ERANGE, and then writes into err a
 * message that names the setting, the value and what is allowed, e.g.
 *   LeakMinR2: "1.5" is out of range (0 to 1)
 * s is unchanged on error.
 */
int memz_settings_set(struct memz_settings *s, const char *name,
		      const char *value, char *err, size_t errlen);

/*
 * A regex setting (ProcessMatch) is measured before it is compiled, as
 * regcomp's time and memory grow exponentially with nested repetitions:
 * memz_regex_check() returns 0, or -E2BIG with why ("nests repetitions 26
 * deep (at most 3)"). memz_regex_compile() is the one way memz compiles a
 * pattern: checked, then regcomp(REG_EXTENDED | REG_NOSUB); on failure
 * -EINVAL and err names the setting (name) and the pattern. regfree() *re
 * after a success.
 */
int memz_regex_check(const char *pattern, char *why, size_t whylen);
int memz_regex_compile(regex_t *re, const char *name, const char *pattern,
		       char *err, size_t errlen);

/* The current value of one setting as text (lists joined by ", "). */
int memz_setting_format(const struct memz_settings *s,
			const struct memz_setting_desc *d, char *buf,
			size_t len);

#endif
