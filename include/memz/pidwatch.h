/*
 * pidwatch.h - has the kernel handed out a pid since the last look?
 *
 * Listing /proc is a fifth of an idle cycle at 1,000 processes: getdents
 * walks every task and looks up a dentry for each entry it returns. The
 * listing only finds something the kept statm fds do not already cover when
 * a task was created, and every new task (process or thread) takes a pid.
 * The last field of /proc/loadavg is the last pid the kernel allocated in
 * the reader's pid namespace, so while it stays the same no task was
 * created, and the sampler can walk its table instead of listing /proc.
 * The field before it ends in the number of tasks on the machine: while
 * that stays the same too, no task exited either, and a process the
 * sampler did not probe this cycle is still there.
 *
 * The last pid belongs to the namespace of the process reading it, not to
 * the /proc it is read from, so the watch is on only when ProcRoot's "self"
 * names our own pid (the same namespace). Anything else (another
 * namespace's /proc, a tree without loadavg or self, a loadavg showing 0 or
 * not parsing) leaves the watch off, and off means "new and gone" every
 * time.
 *
 * The task count is the whole machine's, every namespace's. It tells our
 * exits only in the initial pid namespace (ProcRoot/self/ns/pid reads
 * "pid:[4026531836]", the kernel's fixed PROC_PID_INIT_INO); in a
 * container, a fork on the host could hide an exit here. There the watch
 * still tells new pids, but "gone" is always possible and no span delta
 * is given (memz_pidwatch_counts_exits).
 *
 * Between two reads, the span of pids handed out and the change in the
 * task count tell more: a task created and gone in between shows in
 * neither the count nor a lookup, so the caller that looks up every pid of
 * the span and counts the tasks it finds knows exactly how many of the
 * tasks it already knew exited (sampler.c uses that).
 *
 * _init opens nothing and never fails; _open decides once; _release closes
 * and leaves the struct as _init does.
 */
#ifndef MEMZ_PIDWATCH_H
#define MEMZ_PIDWATCH_H

#include <stdbool.h>
#include <stddef.h>

struct memz_pidwatch {
	int fd;        /* ProcRoot/loadavg, kept open; -1 when off */
	bool primed;   /* last_pid and tasks hold an earlier _changed's read */
	bool has_prev; /* so do prev_last_pid and prev_tasks, the one before */
	bool counts;   /* the task count is our namespace's: the initial one */
	int last_pid, tasks;
	int prev_last_pid, prev_tasks;
	char buf[128]; /* loadavg is one short line */
};

/* "0.30 0.57 1.75 2/345 12345": 345 tasks, last pid 12345. */
int memz_parse_loadavg_pids(const char *buf, size_t len, int *tasks,
			    int *last_pid);

void memz_pidwatch_init(struct memz_pidwatch *w);
/* proc_fd: ProcRoot opened as a directory. Cannot fail: a watch that
 * cannot be turned on is off (memz_pidwatch_on tells). */
void memz_pidwatch_open(struct memz_pidwatch *w, int proc_fd);
bool memz_pidwatch_on(const struct memz_pidwatch *w);
/* On, and its task count is this namespace's: tasks gone can be told. */
bool memz_pidwatch_counts_exits(const struct memz_pidwatch *w);

#define MEMZ_PIDWATCH_NEW 1u  /* a pid may have been handed out */
#define MEMZ_PIDWATCH_GONE 2u /* a task may have exited */
/* What may have happened since the previous call: both when off, on the
 * first call, and when loadavg cannot be read; 0 when nothing did. */
unsigned memz_pidwatch_changed(struct memz_pidwatch *w);
/*
 * After a _changed that read loadavg twice in a row: the pids handed out
 * between the two reads are (from, to], and tasks now minus tasks then is
 * *delta (0 when the count is not this namespace's: see
 * memz_pidwatch_counts_exits). False when that is not known: off, the
 * first read, a failed read, or the pids wrapped past pid_max (to below
 * from).
 */
bool memz_pidwatch_span(const struct memz_pidwatch *w, int *from, int *to,
			int *delta);
/*
 * Does loadavg still read as at the last _changed: no task was created and
 * (so, with the same count) none exited since? False when it cannot tell,
 * and so always when the count is not this namespace's.
 * The watch's state stays as _changed left it.
 */
bool memz_pidwatch_still(struct memz_pidwatch *w);
void memz_pidwatch_release(struct memz_pidwatch *w);

#endif
