// SPDX-License-Identifier: GPL-2.0
/*
 * The unwind table loader (user/record/unwind_loader.h) against a fake module: which objects it
 * builds tables for, once each, from MMAP records, process maps and a program's start; and what
 * it does with each answer of the module.
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include "record/unwind_loader.h"
#include "sym_test_util.h"

/* The fake module: every table it was given, and the answer it gives next. */
struct fake {
	int calls;
	int answer;
	uint64_t rows;
};

/* The executable of this process: built with frame pointers, as lfr is, never given a table. */
static bool is_own_executable(const struct stat *st)
{
	struct stat self;

	assert_int_equal(stat("/proc/self/exe", &self), 0);
	return st->st_dev == self.st_dev && st->st_ino == self.st_ino;
}

static int fake_add(void *arg, int object_fd, const struct lfr_unwind_table *t, struct lfr_error *e)
{
	struct fake *f = arg;
	struct stat st;

	f->calls++;
	assert_int_equal(fstat(object_fd, &st), 0);
	assert_false(is_own_executable(&st));
	assert_int_equal(t->hdr.magic, LFR_UNWIND_MAGIC);
	assert_int_equal(t->hdr.ctime_sec, st.st_ctim.tv_sec);
	f->rows += t->hdr.nr_rows;
	if (f->answer == -EOPNOTSUPP)
		snprintf(e->msg, sizeof(e->msg), "no such command");
	return f->answer;
}

/* An MMAP record of the file at path as process tgid's mapping; ino_delta != 0 lies. */
static void queue_file(struct lfr_unwind_loader *l, const char *path, uint64_t ino_delta)
{
	uint64_t buf[(sizeof(struct lfr_rec_mmap) + 512) / 8] = {0};
	struct lfr_rec_mmap *m = (void *)buf;
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	m->hdr.type = LFR_REC_MMAP;
	m->hdr.size = sizeof(buf);
	m->flags = LFR_MMAP_F_EXEC;
	m->ino = st.st_ino + ino_delta;
	m->dev_major = major(st.st_dev);
	m->dev_minor = minor(st.st_dev);
	snprintf(m->path, 512, "%s", path);
	lfr_unwind_loader_queue_mmap(l, m);
}

static void test_mmap_records(void **state)
{
	struct fake f = {0};
	struct lfr_unwind_loader *l;
	struct lfr_unwind_loader_stats st;

	(void)state;
	assert_int_equal(lfr_unwind_loader_new(&l, fake_add, &f), 0);
	assert_int_equal(lfr_unwind_loader_start(l, 0), 0);
	queue_file(l, fixture("libunw.so"), 0);
	queue_file(l, fixture("libunw.so"), 0); /* once */
	queue_file(l, fixture("libunw_fp.so"), 0);
	lfr_unwind_loader_flush(l);
	lfr_unwind_loader_get_stats(l, &st);
	assert_int_equal(f.calls, 2);
	assert_int_equal(st.tables, 2);
	assert_true(st.bytes > 2 * sizeof(struct lfr_unwind_hdr));
	assert_int_equal(st.failed, 0);

	/* a file that is no longer the mapped one (and no process to reopen it through) */
	queue_file(l, fixture("libunw_df.so"), 1000000);
	/* not an object */
	queue_file(l, fixture("libsymfix.plt"), 0);
	lfr_unwind_loader_flush(l);
	lfr_unwind_loader_get_stats(l, &st);
	assert_int_equal(f.calls, 2);
	assert_int_equal(st.failed, 2);
	assert_non_null(strstr(st.first_failure, "libunw_df.so: the file is gone or changed"));

	/* the session had it already: fine */
	f.answer = -EEXIST;
	queue_file(l, fixture("unw_prog"), 0);
	lfr_unwind_loader_flush(l);
	lfr_unwind_loader_get_stats(l, &st);
	assert_int_equal(st.present, 1);
	assert_int_equal(st.failed, 2);

	/* an old module: nothing more is tried */
	f.answer = -EOPNOTSUPP;
	queue_file(l, fixture("unw_needs"), 0);
	lfr_unwind_loader_flush(l);
	queue_file(l, fixture("libsymcfi.so"), 0);
	lfr_unwind_loader_flush(l);
	lfr_unwind_loader_stop(l);
	lfr_unwind_loader_get_stats(l, &st);
	assert_true(st.unsupported);
	assert_string_equal(st.unsupported_why, "no such command");
	assert_int_equal(f.calls, 4);
	assert_int_equal(st.failed, 2);
	lfr_unwind_loader_free(l);
}

/* A program's objects before it runs, then a running process's from its maps. */
static void test_program_and_process(void **state)
{
	struct fake f = {0};
	struct lfr_unwind_loader *l;
	struct lfr_unwind_loader_stats st;
	char err[256];

	(void)state;
	assert_int_equal(lfr_unwind_loader_new(&l, fake_add, &f), 0);
	assert_int_equal(lfr_unwind_loader_load_program(l, fixture("unw_needs"), err, sizeof(err)),
	                 4);
	lfr_unwind_loader_get_stats(l, &st);
	assert_int_equal(st.tables, 4); /* the program, libunw.so, ld.so, libc */
	assert_int_equal(
	    lfr_unwind_loader_load_program(l, "no-such-program-here", err, sizeof(err)), -1);
	/* this process's own executable is not queued (nor by its maps below: fake_add checks) */
	{
		char self[4096];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

		assert_true(n > 0);
		self[n] = '\0';
		queue_file(l, self, 0);
	}
	/* this process maps libc too: queued, but tried once only */
	assert_true(lfr_unwind_loader_queue_process(l, (uint32_t)getpid()) >= 1);
	assert_int_equal(lfr_unwind_loader_start(l, 0), 0);
	lfr_unwind_loader_flush(l);
	lfr_unwind_loader_get_stats(l, &st);
	assert_true(st.tables > 4);
	assert_int_equal(f.calls, (int)st.tables);
	assert_int_equal(lfr_unwind_loader_queue_process(l, 0x7ffffff0), -ENOENT);
	lfr_unwind_loader_free(l);
}

static void *quiesce_thread(void *arg)
{
	lfr_unwind_loader_quiesce(arg);
	return NULL;
}

/*
 * Quiescing (before the session is stopped through the control socket the loader shares) does
 * not wait for the object being loaded: here the loader is stuck opening a FIFO nobody writes,
 * as a starved low-priority thread is stuck building a table.  Afterwards no table is added.
 */
static void test_quiesce_waits_for_no_load(void **state)
{
	char dir[] = "/tmp/lfr-loader-test-XXXXXX", fifo[64];
	struct fake f = {0};
	struct lfr_unwind_loader *l;
	struct timespec limit;
	pthread_t q;
	int fd, joined;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/object", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(lfr_unwind_loader_new(&l, fake_add, &f), 0);
	assert_int_equal(lfr_unwind_loader_start(l, 0), 0);
	queue_file(l, fifo, 0);
	assert_int_equal(pthread_create(&q, NULL, quiesce_thread, l), 0);
	/* a liveness bound, not a time to meet: a hang becomes a failure */
	clock_gettime(CLOCK_REALTIME, &limit);
	limit.tv_sec += 120;
	joined = pthread_timedjoin_np(q, NULL, &limit);
	/*
	 * the loader's open returns: a writer comes, writes what is no object, and goes (read and
	 * write, so that this open does not wait for a reader: a loader quiesced before it took the
	 * object never opens it)
	 */
	fd = open(fifo, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "not an object", 13), 13);
	close(fd);
	if (joined)
		pthread_join(q, NULL);
	assert_int_equal(joined, 0);
	queue_file(l, fixture("libunw.so"), 0); /* not loaded any more */
	lfr_unwind_loader_stop(l);
	assert_int_equal(f.calls, 0);
	lfr_unwind_loader_free(l);
	unlink(fifo);
	rmdir(dir);
}

/*
 * With a cache (sym/unwind_cache.h): a first session builds and stores, the next reads back; the
 * module is given the same rows.  A file of the cache that cannot be used is counted and said.
 */
/* One session's loading of libunw.so with the cache c: how many tables it read and stored. */
static void session(struct lfr_blob_cache *c, struct fake *f, uint64_t cached, uint64_t stored,
                    uint64_t problems, struct lfr_unwind_loader_stats *st)
{
	struct lfr_unwind_loader *l;

	assert_int_equal(lfr_unwind_loader_new(&l, fake_add, f), 0);
	lfr_unwind_loader_set_cache(l, c);
	lfr_unwind_loader_load_object(l, fixture("libunw.so"));
	lfr_unwind_loader_get_stats(l, st);
	assert_int_equal(st->tables, 1);
	assert_int_equal(st->cached, cached);
	assert_int_equal(st->stored, stored);
	assert_int_equal(st->cache_problems, problems);
	lfr_unwind_loader_free(l);
}

static void test_cache(void **state)
{
	char dir[] = "/tmp/lfr-loader-cache-XXXXXX", path[512], err[256];
	struct lfr_unwind_loader_stats st;
	struct lfr_blob_cache *c;
	struct fake f = {0};
	uint64_t rows;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(lfr_blob_cache_open(dir, &c, err, sizeof(err)), 0);
	session(c, &f, 0, 1, 0, &st);
	rows = f.rows;
	/* the next session reads it, and the module is given the same rows */
	session(c, &f, 1, 0, 0, &st);
	assert_int_equal(f.rows, 2 * rows);

	/* a file in its place that is not the table: said, built and stored again */
	snprintf(path, sizeof(path), "%s", dir);
	{
		DIR *d = opendir(dir);
		struct dirent *de;

		assert_non_null(d);
		while ((de = readdir(d)))
			if (strstr(de->d_name, ".unwind"))
				snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		closedir(d);
	}
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "not a table", 11), 11);
	close(fd);
	session(c, &f, 0, 1, 1, &st);
	assert_non_null(strstr(st.first_cache_problem, ".unwind: cut short, built again"));
	lfr_blob_cache_close(c);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mmap_records),
	    cmocka_unit_test(test_program_and_process),
	    cmocka_unit_test(test_quiesce_waits_for_no_load),
	    cmocka_unit_test(test_cache),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
