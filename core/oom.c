#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "memz/alarm.h"
#include "memz/oom.h"
#include "memz/sanitize.h"
#include "parse_util.h"

void memz_oom_init(struct memz_oom *o)
{
	memset(o, 0, sizeof *o);
}

static bool is_v1(const struct memz_oom *o)
{
	return o->root.version == 1;
}

struct walk {
	const struct memz_cgroup_root *root;
	unsigned reads;
	struct memz_oom_watch found[MEMZ_OOM_MAX_SCOPES];
	bool live[MEMZ_OOM_MAX_SCOPES];
	uint64_t room[MEMZ_OOM_MAX_SCOPES];
	size_t n;
};

static void scope_id(char *out, size_t n, const char *path)
{
	char tmp[MEMZ_OOM_PATH_MAX + 3];
	size_t len;

	len = memz_sanitize_id(path, strlen(path), tmp + 2, sizeof tmp - 2);
	tmp[0] = 'c';
	tmp[1] = 'g';
	len += 2;
	if (len >= n) /* the end of a path says most about it */
		memmove(tmp + 2, tmp + 2 + (len - (n - 1)), n - 3 + 1);
	snprintf(out, n, "%s", tmp);
}

/* Does a (live, room) go before b? */
static bool before(bool live_a, uint64_t room_a, bool live_b, uint64_t room_b)
{
	return live_a != live_b ? live_a : room_a < room_b;
}

/* Keep the cgroups with least room (limit - usage): they are nearest
 * their OOM. Live ones first, those with a process and MEMZ_OOM_LIVE_MIN
 * charged: whoever may make cgroups could make eight empty ones with a
 * limit of a page, tighter than any real one, and push every real one out
 * of the watch. An empty one is watched when there is room, since a
 * service may be started in it. */
static void consider(void *ctx, const char *path, uint64_t limit)
{
	struct walk *w = ctx;
	char b[256];
	uint64_t usage = 0, room;
	bool populated = true, live;
	size_t i;

	if (limit == UINT64_MAX)
		return;
	w->reads += 2;
	memz_cgroup_populated(w->root, path, b, sizeof b, &populated);
	live = !memz_cgroup_usage(w->root, path, b, sizeof b, &usage) &&
	       populated && usage >= MEMZ_OOM_LIVE_MIN;
	room = limit > usage ? limit - usage : 0;
	if (w->n == MEMZ_OOM_MAX_SCOPES) {
		if (!before(live, room, w->live[w->n - 1], w->room[w->n - 1]))
			return;
		w->n--;
	}
	for (i = w->n;
	     i > 0 && before(live, room, w->live[i - 1], w->room[i - 1]); i--) {
		w->found[i] = w->found[i - 1];
		w->live[i] = w->live[i - 1];
		w->room[i] = w->room[i - 1];
	}
	memset(&w->found[i], 0, sizeof w->found[i]);
	snprintf(w->found[i].path, sizeof w->found[i].path, "%s", path);
	scope_id(w->found[i].id, sizeof w->found[i].id, path);
	w->found[i].limit = limit;
	w->live[i] = live;
	w->room[i] = room;
	w->n++;
}

/* A watched cgroup keeps its counters across a rescan. */
static void rescan(struct memz_oom *o, const char *sys_root)
{
	struct walk w;

	memset(&w, 0, sizeof w);
	w.root = &o->root;
	if (!memz_cgroup_find_root(sys_root, &o->root))
		o->files_read += memz_cgroup_walk(&o->root, MEMZ_OOM_MAX_WALK,
						  MEMZ_OOM_MAX_DEPTH,
						  MEMZ_OOM_PATH_MAX, o->buf,
						  sizeof o->buf, consider, &w);
	o->files_read += w.reads;
	for (size_t i = 0; i < w.n; i++) {
		for (size_t j = 0; j < o->n_w; j++)
			if (!strcmp(w.found[i].path, o->w[j].path)) {
				uint64_t limit = w.found[i].limit;

				w.found[i] = o->w[j];
				w.found[i].limit = limit;
				break;
			}
		/* without swap accounting the kernel counts all swap */
		if (memz_cgroup_swap_max(&o->root, w.found[i].path, o->buf,
					 sizeof o->buf, &w.found[i].swap_max))
			w.found[i].swap_max = UINT64_MAX;
		o->files_read++;
	}
	memcpy(o->w, w.found, sizeof w.found);
	o->n_w = w.n;
}

void memz_oom_read_cgroups(struct memz_oom *o, const char *sys_root)
{
	o->files_read = 0;
	if (o->cycle++ % MEMZ_OOM_RESCAN_CYCLES == 0)
		rescan(o, sys_root);
	for (size_t i = 0; i < o->n_w; i++) {
		struct memz_oom_watch *w = &o->w[i];
		uint64_t k, ino, n;

		w->ok = !memz_cgroup_usage(&o->root, w->path, o->buf,
					   sizeof o->buf, &w->usage);
		w->near = w->ok && w->has_prev && w->usage > w->prev_usage &&
			  (w->usage >= w->limit ||
			   (w->limit - w->usage) / MEMZ_OOM_NEAR_CYCLES <
				   w->usage - w->prev_usage);
		w->has_prev = w->ok;
		w->prev_usage = w->usage;
		w->has_kills = !memz_cgroup_oom_kills(&o->root, w->path, o->buf,
						      sizeof o->buf, &k, &ino);
		o->files_read += 2;
		if (!w->has_kills)
			continue;
		if (!w->primed) {
			w->kills = k;
			w->ino = ino;
			w->primed = true;
			continue;
		}
		/* A counter only rises: one that fell, or a new inode, is a
		 * cgroup made again under the path (a restarted service), made
		 * since the last read of the old one, so every kill it counts
		 * is new. */
		if (k < w->kills || (ino && w->ino && ino != w->ino))
			n = k;
		else
			n = k - w->kills;
		w->kills = k;
		w->ino = ino;
		w->counted += n;
		/* every kill counted, but only so many named: a counter that
		 * jumped by billions is not billions of records */
		if (n > MEMZ_OOM_MAX_KILLS - w->pending) {
			w->dropped += n - (MEMZ_OOM_MAX_KILLS - w->pending);
			n = MEMZ_OOM_MAX_KILLS - w->pending;
		}
		w->pending += (unsigned)n;
	}
}

/* ---- forecasts ---- */

/* Is path (a process's memory cgroup) scope or below it? */
static bool under(const char *path, const char *scope)
{
	size_t n = strlen(scope);

	return !strncmp(path, scope, n) && (path[n] == '\0' || path[n] == '/');
}

static void add_growth(struct memz_oom_scope *sc, const char *name, int pid,
		       const struct memz_verdict *v, double *conf_sum,
		       const struct memz_oom_input *in)
{
	unsigned i;

	if (!memz_alarm_sustained(v, in->t, in->s))
		return;
	sc->growth_bps += v->rate_bps;
	*conf_sum += v->rate_bps * v->confidence;
	for (i = sc->n_drivers;
	     i > 0 && sc->drivers[i - 1].rate_bps < v->rate_bps; i--)
		if (i < MEMZ_OOM_MAX_DRIVERS)
			sc->drivers[i] = sc->drivers[i - 1];
	if (i >= MEMZ_OOM_MAX_DRIVERS)
		return;
	snprintf(sc->drivers[i].name, sizeof sc->drivers[i].name, "%s",
		 name ? name : "");
	sc->drivers[i].pid = pid;
	sc->drivers[i].rate_bps = v->rate_bps;
	if (sc->n_drivers < MEMZ_OOM_MAX_DRIVERS)
		sc->n_drivers++;
}

/* The growth over GROWTH_TAU_S: a verdict renewed each cycle renews its
 * rate from its latest window, a few percent either way, and a forecast
 * that jumped with it would read as noise. None growing: none at once. */
#define GROWTH_TAU_S 30.0
static void smooth(double *g, double now, double dt)
{
	double k = dt > 0 ? dt / GROWTH_TAU_S : 1;

	if (!(now > 0) || !(*g > 0) || k >= 1)
		*g = now;
	else
		*g += (now - *g) * k;
}

static void finish(struct memz_oom_scope *sc, double conf_sum, double *g,
		   double dt)
{
	smooth(g, sc->growth_bps, dt);
	if (!(sc->growth_bps > 0)) {
		sc->growth_bps = 0;
		sc->seconds = NAN;
		sc->confidence = 0;
		sc->n_drivers = 0;
		return;
	}
	sc->seconds = (double)sc->available / *g;
	sc->confidence = (int)lround(conf_sum / sc->growth_bps);
	for (unsigned i = 0; i < sc->n_drivers; i++)
		sc->drivers[i].share = sc->drivers[i].rate_bps / sc->growth_bps;
}

/* The level the forecast is under now: 1 under warn_s, k under
 * warn_s / 2^(k-1), as long as that is MEMZ_OOM_REWARN_MIN_S or more: in
 * the last seconds before an OOM a warning a second tells nobody more. */
static unsigned level_of(double seconds, double warn_s)
{
	unsigned k = 0;

	if (!(warn_s > 0) || isnan(seconds))
		return 0;
	while (k < MEMZ_OOM_WARN_LEVELS && seconds < warn_s &&
	       (k == 0 || warn_s >= MEMZ_OOM_REWARN_MIN_S)) {
		k++;
		warn_s /= 2;
	}
	return k;
}

static void warn(struct memz_oom_scope *sc, double warn_s, unsigned *level)
{
	unsigned now = level_of(sc->seconds, warn_s);

	sc->warn_s = warn_s;
	sc->warn_changed = now > *level || (now == 0 && *level > 0);
	if (sc->warn_changed)
		*level = now;
	else if (now + 1 < *level) /* grown back past a whole halving */
		*level = now + 1;
	sc->warn = *level > 0;
	sc->warn_level = *level;
}

static void machine_growth(struct memz_oom_scope *sc,
			   const struct memz_oom_input *in, double *conf)
{
	const struct memz_table_view *v = in->view;

	if (in->grouped)
		for (size_t i = 0; i < v->n_groups; i++)
			add_growth(sc, v->groups[i]->name, 0,
				   &v->groups[i]->det.verdict, conf, in);
	for (size_t i = 0; i < v->n_procs; i++) {
		const struct memz_proc *p = v->procs[i];

		if (in->grouped && p->group && p->group->det.verdict.leak)
			continue;
		add_growth(sc, p->name, p->pid, &p->det.verdict, conf, in);
	}
}

static uint64_t sub0(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static void forecasts(struct memz_oom *o, const struct memz_oom_input *in)
{
	struct memz_oom_scope *m = &o->view.scope[0];
	double conf = 0, dt = o->t_last ? in->t - o->t_last : 0;

	memset(m, 0, sizeof *m);
	snprintf(m->id, sizeof m->id, "machine");
	m->limit = in->mem->mem_total + in->mem->swap_total;
	m->available = in->mem->mem_available + in->mem->swap_free;
	m->has_kills = in->vm->has_oom_kill;
	m->kills = in->vm->has_oom_kill ? in->vm->oom_kill - o->vm_kills0 : 0;
	o->t_last = in->t;
	machine_growth(m, in, &conf);
	finish(m, conf, &o->machine_growth, dt);
	warn(m, in->warn_s, &o->machine_warn_level);

	o->view.n_scopes = 1;
	for (size_t i = 0; i < o->n_w; i++) {
		struct memz_oom_watch *w = &o->w[i];
		struct memz_oom_scope *sc = &o->view.scope[o->view.n_scopes++];
		uint64_t used = w->usage, inactive;

		conf = 0;
		memset(sc, 0, sizeof *sc);
		memcpy(sc->path, w->path, sizeof sc->path);
		memcpy(sc->id, w->id, sizeof sc->id);
		sc->v1 = is_v1(o);
		sc->limit = w->limit;
		sc->has_kills = w->has_kills;
		sc->kills = w->counted;
		for (size_t j = 0; j < in->view->n_procs; j++) {
			const struct memz_proc *p = in->view->procs[j];

			if (p->memcg && p->memcg_v1 == is_v1(o) &&
			    under(p->memcg, w->path))
				add_growth(sc, p->name, p->pid, &p->det.verdict,
					   &conf, in);
		}
		/* memory.stat costs a read the kernel makes dear (it flushes
		 * its per-CPU counters): only where there is a forecast */
		if (sc->growth_bps > 0) {
			o->files_read++;
			if (!memz_cgroup_inactive_file(&o->root, w->path, o->buf,
						       sizeof o->buf, &inactive))
				used = sub0(used, inactive);
		}
		sc->available = w->ok ? sub0(w->limit, used) : 0;
		if (!w->ok)
			sc->growth_bps = 0;
		finish(sc, conf, &w->growth, dt);
		warn(sc, in->warn_s, &o->w[i].warn_level);
	}
}

/* ---- the kills ---- */

/* The largest PSS among p's last samples: by the time a victim is swept,
 * the OOM reaper may have emptied it. */
static uint64_t recent_peak(const struct memz_proc *p)
{
	double best = (double)p->mem.pss;

	for (unsigned i = 0; i < p->det.rcount; i++) {
		double v = memz_detector_ring_pss(&p->det, i);

		if (v > best)
			best = v;
	}
	return best > 0 ? (uint64_t)best : 0;
}

static void age_candidates(struct memz_oom *o)
{
	size_t n = 0;

	for (size_t i = 0; i < o->n_cand; i++)
		if (!o->cand[i].used && ++o->cand[i].age < 3)
			o->cand[n++] = o->cand[i];
	o->n_cand = n;
}

/* A process the kernel emptied but its parent has not reaped: a zombie
 * (statm all zeros) that had memory. Its size says so (no address space
 * left), whatever the estimate of its resident memory: the last exact
 * read moved by statm's fall, which a leaker read as it grew, more
 * resident than the probe before, leaves above 0. */
static bool emptied(const struct memz_proc *p)
{
	return !p->kernel_thread && p->has_sample &&
	       (p->vm_size == 0 || (p->mem.rss == 0 && p->mem.swap == 0)) &&
	       p->det.rcount > 0;
}

static bool was_emptied(const struct memz_oom *o, const struct memz_proc *p)
{
	for (size_t i = 0; i < MEMZ_OOM_CANDS; i++)
		if (o->emptied[i].pid == p->pid && o->emptied[i].start == p->start)
			return true;
	return false;
}

/* p joins the pool, at most MEMZ_OOM_CANDS a cycle (the kernel's
 * likeliest picks, first at cap). */
static void add_candidate(struct memz_oom *o, const struct memz_proc *p,
			  double total, size_t first, size_t cap)
{
	struct memz_oom_cand c;
	size_t j;

	memset(&c, 0, sizeof c);
	c.pss = recent_peak(p);
	c.points = (double)c.pss + (double)p->mem.swap;
	c.adj = p->oom_score_adj;
	c.badness = c.points + c.adj * total / 1000.0;
	if (o->n_cand == cap) {
		if (c.badness <= o->cand[cap - 1].badness)
			return;
		o->n_cand--;
	}
	snprintf(c.name, sizeof c.name, "%s", p->name ? p->name : "");
	if (p->memcg) {
		snprintf(c.memcg, sizeof c.memcg, "%s", p->memcg);
		c.has_memcg = true;
		c.v1 = p->memcg_v1;
	}
	c.pid = p->pid;
	c.start = p->start;
	c.leak = p->det.verdict.leak;
	c.leak_confidence = p->det.verdict.confidence;
	for (j = o->n_cand; j > first && o->cand[j - 1].badness < c.badness; j--)
		o->cand[j] = o->cand[j - 1];
	o->cand[j] = c;
	o->n_cand++;
}

/* The processes that left this cycle, and those emptied, join the pool. */
static void add_candidates(struct memz_oom *o, const struct memz_oom_input *in)
{
	const struct memz_table_view *v = in->view;
	double total = (double)(in->mem->mem_total + in->mem->swap_total);
	size_t first = o->n_cand, cap = first + MEMZ_OOM_CANDS;

	if (cap > sizeof o->cand / sizeof o->cand[0])
		cap = sizeof o->cand / sizeof o->cand[0];
	for (size_t i = 0; i < v->n_gone; i++)
		if (!was_emptied(o, v->gone[i]))
			add_candidate(o, v->gone[i], total, first, cap);
	for (size_t i = 0; i < v->n_procs; i++) {
		const struct memz_proc *p = v->procs[i];

		if (!emptied(p) || was_emptied(o, p))
			continue;
		o->emptied[o->n_emptied].pid = p->pid;
		o->emptied[o->n_emptied].start = p->start;
		o->n_emptied = (o->n_emptied + 1) % MEMZ_OOM_CANDS;
		add_candidate(o, p, total, first, cap);
	}
}

static void record(struct memz_oom *o, double t, const char *scope,
		   const struct memz_oom_cand *c, unsigned fitted, int sure)
{
	struct memz_oom_view *v = &o->view;
	struct memz_oom_kill *k;

	if (v->n_kills < MEMZ_OOM_MAX_KILLS)
		v->n_kills++;
	memmove(&v->kill[1], &v->kill[0], (v->n_kills - 1) * sizeof v->kill[0]);
	k = &v->kill[0];
	memset(k, 0, sizeof *k);
	k->t = t;
	snprintf(k->scope, sizeof k->scope, "%s", scope);
	if (*scope)
		scope_id(k->scope_id, sizeof k->scope_id, scope);
	else
		snprintf(k->scope_id, sizeof k->scope_id, "machine");
	k->candidates = fitted;
	if (c) {
		k->known = true;
		snprintf(k->name, sizeof k->name, "%s", c->name);
		k->pid = c->pid;
		k->pss = c->pss;
		k->leak = c->leak;
		k->leak_confidence = c->leak_confidence;
		k->sure = sure;
	}
	if (v->new_kills < MEMZ_OOM_MAX_KILLS)
		v->new_kills++;
}

/* The cap on sure when only oom_score_adj puts the victim first: a
 * process may set its own adj, and one that exited just before the kill
 * (set to 1000, say) is the likeliest pick on paper and not the victim. */
#define SURE_ADJ_ONLY 50

/* The cap on sure for a victim that left the cycle before its kill's: a
 * kill is counted before its victim is signalled, and the counters are
 * read before the processes, so such a victim died in the few
 * milliseconds between the two reads; most that left then left before
 * the kill. */
#define SURE_EARLY 50

/* Name up to *pending kills from the pool (only processes that were in
 * scope, when one is given, and that left no more than max_age cycles ago:
 * the kernel kills a live process, so one gone two cycles or more before
 * the cycle the kill was seen in cannot be its victim), oom_score_adj
 * scaled by total, what the scope may use; with give_up, those nothing
 * fits are recorded as unknown. One that left the cycle before the kill's
 * (age max_age) is named only when none that left since fits, and not in
 * the kill's own cycle (max_age 1), when its victim may still be leaving. */
static void name_kills(struct memz_oom *o, double t, const char *scope,
		       double total, unsigned max_age, unsigned *pending,
		       bool give_up)
{
	bool early = false;

	while (*pending) {
		struct memz_oom_cand *best = NULL, *second = NULL;
		double b1 = 0, b2 = 0;
		unsigned fitted = 0;
		int sure;

		for (size_t i = 0; i < o->n_cand; i++) {
			struct memz_oom_cand *c = &o->cand[i];
			double b = c->points + c->adj * total / 1000.0;

			if (c->used || c->age > max_age ||
			    (c->age == max_age) != early ||
			    (scope && (!c->has_memcg ||
						 c->v1 != is_v1(o) ||
						 !under(c->memcg, scope))))
				continue;
			fitted++;
			if (!best || b > b1) {
				second = best;
				b2 = b1;
				best = c;
				b1 = b;
			} else if (!second || b > b2) {
				second = c;
				b2 = b;
			}
		}
		if (!best) {
			if (early || (max_age < 2 && !give_up))
				break;
			early = true;
			continue;
		}
		if (fitted <= *pending || !second || !(b1 > 0))
			sure = 90;
		else if (second->points > best->points)
			/* without the adj term the runner-up would be first */
			sure = SURE_ADJ_ONLY;
		else
			sure = 50 + (int)lround(40.0 * fmax(0, b1 - b2) / b1);
		if (early && sure > SURE_EARLY)
			sure = SURE_EARLY;
		best->used = true;
		record(o, t, scope ? scope : "", best, fitted, sure);
		(*pending)--;
	}
	for (; give_up && *pending; (*pending)--)
		record(o, t, scope ? scope : "", NULL, 0, 0);
}

/* A victim may leave the cycle after its kill is counted: a kill nothing
 * fits waits this many cycles before it is unknown. */
#define KILL_WAIT 2

/* Kills this cycle's deeper scopes named that scope s also counted (v2
 * counts a kill in every ancestor; v1 only in the victim's own cgroup). */
static unsigned claimed_below(const struct memz_oom *o, const char *s)
{
	unsigned n = 0;

	if (is_v1(o))
		return 0;
	for (unsigned i = 0; i < o->view.new_kills; i++) {
		const char *k = o->view.kill[i].scope;

		if (*k && strcmp(k, s) && under(k, s))
			n++;
	}
	return n;
}

/* The kills the watched cgroups counted past what they may name: the
 * machine counted them too, and is not to name them as its own. v2
 * counts a kill in every ancestor, so only a watched cgroup with no
 * watched ancestor says how many; v1 counts it in one cgroup. */
static uint64_t dropped(struct memz_oom *o)
{
	uint64_t n = 0;

	for (size_t i = 0; i < o->n_w; i++) {
		bool top = true;

		if (!o->w[i].dropped)
			continue;
		for (size_t j = 0; !is_v1(o) && top && j < o->n_w; j++)
			if (j != i && strcmp(o->w[i].path, o->w[j].path) &&
			    under(o->w[i].path, o->w[j].path))
				top = false;
		if (top)
			n += o->w[i].dropped;
		o->w[i].dropped = 0;
	}
	return n;
}

/* What a cgroup's OOM scales oom_score_adj by: its limit and the swap it
 * may use (the kernel's mem_cgroup_get_max), not the machine's memory. */
static double scope_total(const struct memz_oom_watch *w,
			  const struct memz_meminfo *mem)
{
	uint64_t swap = w->swap_max < mem->swap_total ? w->swap_max
						       : mem->swap_total;

	return (double)w->limit + (double)swap;
}

static void kills(struct memz_oom *o, const struct memz_oom_input *in)
{
	size_t order[MEMZ_OOM_MAX_SCOPES];
	uint64_t total = 0;

	o->view.new_kills = 0;
	age_candidates(o);
	add_candidates(o, in);

	/* deepest first, so a kill is named in the cgroup nearest to it */
	for (size_t i = 0; i < o->n_w; i++) {
		size_t j = i;

		for (; j > 0 && strlen(o->w[order[j - 1]].path) <
				       strlen(o->w[i].path);
		     j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	for (size_t i = 0; i < o->n_w; i++) {
		struct memz_oom_watch *w = &o->w[order[i]];
		unsigned c = claimed_below(o, w->path);

		w->pending -= c < w->pending ? c : w->pending;
		if (!w->pending) {
			w->wait = 0;
			continue;
		}
		/* wait: cycles since the oldest pending kill was seen */
		name_kills(o, in->t, w->path, scope_total(w, in->mem),
			   w->wait + 1, &w->pending, w->wait >= KILL_WAIT);
		w->wait = w->pending ? w->wait + 1 : 0;
	}
	o->vm_named += o->view.new_kills + dropped(o);

	if (!in->vm->has_oom_kill)
		return;
	if (!o->vm_primed || in->vm->oom_kill < o->vm_kills0) {
		o->vm_kills0 = in->vm->oom_kill;
		o->vm_named = 0;
		o->vm_primed = true;
		return;
	}
	total = in->vm->oom_kill - o->vm_kills0;
	if (total <= o->vm_named) {
		o->vm_wait = 0;
		return;
	}
	/* as a cgroup's: all counted, a few named */
	if (total - o->vm_named > MEMZ_OOM_MAX_KILLS)
		o->vm_named = total - MEMZ_OOM_MAX_KILLS;
	/* the machine waits a cycle first: a cgroup whose counter was read
	 * a moment before vmstat may claim the kill next cycle */
	if (o->vm_wait++ >= 1) {
		unsigned pending = (unsigned)(total - o->vm_named);
		unsigned before = o->view.new_kills;

		/* vm_wait: cycles since the kill was seen, and one */
		name_kills(o, in->t, NULL,
			   (double)(in->mem->mem_total + in->mem->swap_total),
			   o->vm_wait, &pending, o->vm_wait > KILL_WAIT + 1);
		o->vm_named += o->view.new_kills - before;
		if (!pending)
			o->vm_wait = 0;
	}
}

bool memz_oom_restless(const struct memz_oom *o, const struct memz_vmstat *vm)
{
	for (size_t i = 0; i < o->n_w; i++)
		if (o->w[i].near || o->w[i].pending)
			return true;
	return vm && vm->has_oom_kill && o->vm_primed &&
	       vm->oom_kill >= o->vm_kills0 &&
	       vm->oom_kill - o->vm_kills0 > o->vm_named;
}

void memz_oom_update(struct memz_oom *o, const struct memz_oom_input *in)
{
	kills(o, in);
	forecasts(o, in);
}

const struct memz_oom_scope *memz_oom_limiting(const struct memz_oom_view *v,
					       const char *memcg, bool v1)
{
	const struct memz_oom_scope *best = &v->scope[0];

	for (size_t i = 1; memcg && i < v->n_scopes; i++)
		if (v->scope[i].v1 == v1 && under(memcg, v->scope[i].path) &&
		    v->scope[i].available < best->available)
			best = &v->scope[i];
	return best;
}
