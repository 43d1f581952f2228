/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A queue's worker thread: the work a part hands over to run beside the recording (the unwind
 * tables built, the thread contexts found).  The owner keeps the queue and tells the worker how to
 * look at it; the worker keeps the lock (the owner's queue, flags and stats are under it too), the
 * thread at its nice level, the wait for work, the wait until the queue is drained, and the stop,
 * which raises the thread to the caller's priority while it finishes the item in hand.
 */
#ifndef LFR_LIB_WORKER_H
#define LFR_LIB_WORKER_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

struct lfr_worker_ops {
	bool (*pending)(void *arg);         /* under the lock: an item waits */
	void *(*take)(void *arg);           /* under the lock: the next item, off the queue */
	void (*run)(void *arg, void *item); /* without the lock: the item's work */
};

struct lfr_worker {
	pthread_mutex_t lock; /* the queue, the flags (and the owner's stats) */
	pthread_cond_t wake;  /* work queued, or stop */
	pthread_cond_t idle;  /* the queue drained */
	const struct lfr_worker_ops *ops;
	void *arg;
	bool busy;     /* the thread runs an item taken from the queue */
	bool stopping; /* the thread is asked to end */
	bool running;
	pthread_t thread;
	pid_t tid;
	int nice;
};

void lfr_worker_init(struct lfr_worker *w, const struct lfr_worker_ops *ops, void *arg);
void lfr_worker_destroy(struct lfr_worker *w);
/* Starts the thread at nice: 0, or a negative errno. */
int lfr_worker_start(struct lfr_worker *w, int nice);
/* With the lock held, after an item was queued. */
void lfr_worker_queued(struct lfr_worker *w);
/* Waits until the queue is drained and no item runs (at once when stopped or not started). */
void lfr_worker_flush(struct lfr_worker *w);
/* Asks the thread to end, and waits for it; items still queued stay for the owner to free. */
void lfr_worker_stop(struct lfr_worker *w);
/* Copies len bytes from src, which the thread writes under the lock, to dst: its statistics. */
void lfr_worker_read(struct lfr_worker *w, void *dst, const void *src, size_t len);

#endif
