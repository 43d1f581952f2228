// SPDX-License-Identifier: GPL-2.0
/* A queue's worker thread; see worker.h. */
#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/worker.h"

void lfr_worker_init(struct lfr_worker *w, const struct lfr_worker_ops *ops, void *arg)
{
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->wake, NULL);
	pthread_cond_init(&w->idle, NULL);
	w->ops = ops;
	w->arg = arg;
}

void lfr_worker_destroy(struct lfr_worker *w)
{
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->wake);
	pthread_cond_destroy(&w->idle);
}

static void *worker_thread(void *arg)
{
	struct lfr_worker *w = arg;

	/* its work takes CPU the recorded threads may want */
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), w->nice);
	pthread_mutex_lock(&w->lock);
	w->tid = (pid_t)syscall(SYS_gettid);
	for (;;) {
		void *item;

		while (!w->ops->pending(w->arg) && !w->stopping) {
			pthread_cond_broadcast(&w->idle);
			pthread_cond_wait(&w->wake, &w->lock);
		}
		if (w->stopping)
			break;
		item = w->ops->take(w->arg);
		w->busy = true;
		pthread_mutex_unlock(&w->lock);
		w->ops->run(w->arg, item);
		pthread_mutex_lock(&w->lock);
		w->busy = false;
	}
	pthread_cond_broadcast(&w->idle);
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

int lfr_worker_start(struct lfr_worker *w, int nice)
{
	int err;

	w->nice = nice;
	err = pthread_create(&w->thread, NULL, worker_thread, w);
	if (err)
		return -err;
	w->running = true;
	return 0;
}

void lfr_worker_queued(struct lfr_worker *w)
{
	pthread_cond_signal(&w->wake);
}

void lfr_worker_flush(struct lfr_worker *w)
{
	pthread_mutex_lock(&w->lock);
	while (w->running && !w->stopping && (w->ops->pending(w->arg) || w->busy))
		pthread_cond_wait(&w->idle, &w->lock);
	pthread_mutex_unlock(&w->lock);
}

void lfr_worker_read(struct lfr_worker *w, void *dst, const void *src, size_t len)
{
	pthread_mutex_lock(&w->lock);
	memcpy(dst, src, len);
	pthread_mutex_unlock(&w->lock);
}

void lfr_worker_stop(struct lfr_worker *w)
{
	int mine;

	pthread_mutex_lock(&w->lock);
	w->stopping = true;
	pthread_cond_broadcast(&w->wake);
	/*
	 * The item in hand is waited for: at the caller's priority, not at the low one that
	 * starves it on a busy machine (best effort: raising it takes CAP_SYS_NICE).
	 */
	errno = 0;
	mine = getpriority(PRIO_PROCESS, 0);
	if (w->tid && !errno)
		setpriority(PRIO_PROCESS, (id_t)w->tid, mine);
	pthread_mutex_unlock(&w->lock);
	if (w->running)
		pthread_join(w->thread, NULL);
	w->running = false;
}
