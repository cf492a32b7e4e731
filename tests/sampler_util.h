/*
 * sampler_util.h - what the sampler's tests share: test_sampler.c (fixture
 * trees) and test_sampler_live.c (the live /proc).
 */
#ifndef MEMZ_TEST_SAMPLER_UTIL_H
#define MEMZ_TEST_SAMPLER_UTIL_H

#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "memz/sampler.h"

#define MiB (1024ull * 1024ull)

static inline uint64_t parts_sum(const struct memz_breakdown *b)
{
	return b->free + b->pcp_free + b->buffers + b->cached + b->slab +
	       b->page_tables +
	       b->process_anon + b->hidden_anon + b->kernel_residual;
}

static inline const struct memz_proc *find_pid(const struct memz_snapshot *s,
					       int pid)
{
	for (size_t i = 0; i < s->view.n_procs; i++)
		if (s->view.procs[i]->pid == pid)
			return s->view.procs[i];
	return NULL;
}

/* ProcRoot and SysRoot at dir's proc and sys (a path too long for them
 * fails the check). */
static inline void settings_under(struct memz_settings *s, const char *dir)
{
	char path[MEMZ_PATH_MAX + 8];

	snprintf(path, sizeof path, "%s/proc", dir);
	CHECK_INT(memz_settings_set(s, "ProcRoot", path, NULL, 0), 0);
	snprintf(path, sizeof path, "%s/sys", dir);
	CHECK_INT(memz_settings_set(s, "SysRoot", path, NULL, 0), 0);
}

/* Default settings, below fixture's proc and sys trees unless NULL. */
static inline void settings_for(struct memz_settings *s, const char *fixture)
{
	char path[MEMZ_PATH_MAX];

	memz_settings_init(s);
	if (!fixture)
		return;
	snprintf(path, sizeof path, "%s/%s", MEMZ_FIXTURES, fixture);
	settings_under(s, path);
}

#endif
