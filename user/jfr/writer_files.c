// SPDX-License-Identifier: GPL-2.0
/*
 * The JFR writer's files: the recording's file, which appears at its path only once it holds a
 * flush (lib/outfile.h), or in a repository the chunk files, each created under a temporary name
 * and renamed once its first chunk is written; ending a file's last chunk; the repository's limits.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jfr/encode.h"
#include "jfr/reader.h"
#include "jfr/repository.h"
#include "jfr/writer_internal.h"
#include "lib/outfile.h"

/*
 * The file appears at path only once the recording has something in it, complete: the writer
 * writes a new file (lib/outfile.h: unnamed, or under a unique temporary name beside path) until
 * the first flush with events puts it at path (a reader never sees a first chunk half written, an
 * existing file is replaced only then, and no file of another name is touched).  A path that
 * exists and is no regular file (a FIFO, a device, a link) is refused.
 */
int jfr_writer_create_file(struct lfr_jfr_writer *w)
{
	char err[384];

	/* 0640: a recording holds every command line and thread name */
	int ret = lfr_outfile_open(&w->out, w->path, 0, 0640, err, sizeof(err));

	if (!ret) {
		/* the writer closes its own descriptor when the file ends; publishing needs one */
		w->fd = fcntl(w->out.fd, F_DUPFD_CLOEXEC, 3);
		ret = w->fd < 0 ? -errno : 0;
		if (ret)
			snprintf(err, sizeof(err), "opening %s: %s", w->path, strerror(errno));
	}
	if (ret) {
		w->dead = true;
		return jfr_writer_fail(w, -ret, "%s", err);
	}
	return 0;
}

/* Gives path the recording's data: the new file replaces the old file now. */
int jfr_writer_publish(struct lfr_jfr_writer *w)
{
	char err[384];
	int ret;

	if (w->published)
		return 0;
	if (!w->opt.repository && (ret = lfr_outfile_publish(&w->out, err, sizeof(err)))) {
		w->dead = true;
		return jfr_writer_fail(w, -ret, "%s", err);
	}
	w->published = true;
	return 0;
}

/*
 * In a repository: the file of a chunk that starts at ticks, created as NAME.tmp (renamed once
 * its first chunk is written, so that it appears whole) and listed as the repository's newest.
 */
int jfr_writer_create_chunk_file(struct lfr_jfr_writer *w, uint64_t ticks)
{
	char name[LFR_JFR_REPO_NAME_MAX];
	int64_t start = (int64_t)real_nanos(w, ticks);

	lfr_jfr_repo_name(name, start);
	free(w->chunk_path);
	free(w->tmp_path);
	w->tmp_path = NULL;
	if (asprintf(&w->chunk_path, "%s/%s", w->path, name) < 0) {
		w->chunk_path = NULL;
		return jfr_writer_nomem(w, "naming a chunk file");
	}
	if (asprintf(&w->tmp_path, "%s.tmp", w->chunk_path) < 0) {
		w->tmp_path = NULL;
		return jfr_writer_nomem(w, "naming a chunk file");
	}
	w->fd = open(w->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
	if (w->fd < 0) {
		w->dead = true;
		return jfr_writer_fail(w, errno, "cannot create %s: %s", w->tmp_path,
		                       strerror(errno));
	}
	if (lfr_jfr_repo_add(&w->repo, name, start))
		return jfr_writer_nomem(w, "listing a chunk file");
	return 0;
}

/* In a repository: the current chunk file, its first chunk written, appears under its name. */
int jfr_writer_publish_chunk_file(struct lfr_jfr_writer *w)
{
	if (rename(w->tmp_path, w->chunk_path) < 0) {
		w->dead = true;
		return jfr_writer_fail(w, errno, "cannot rename %s to %s: %s", w->tmp_path,
		                       w->chunk_path, strerror(errno));
	}
	free(w->tmp_path);
	w->tmp_path = NULL;
	w->published = true;
	return 0;
}

/*
 * Ends the current chunk at its content (final: flagged as the recording's last), syncs and
 * closes its file; in a repository the file then counts at its final size.
 */
int jfr_writer_end_chunk_file(struct lfr_jfr_writer *w, uint64_t now, bool final)
{
	uint64_t duration = chunk_duration(w, now);
	uint8_t flags[2];
	int err = 0;

	jfr_put_be16(flags, FLAG_COMPRESSED_INTS | FLAG_FINAL_CHUNK);
	if (final)
		err = jfr_writer_io_write(w, flags, 2, w->start + JFR_H_FLAGS,
		                          "flagging the final chunk");
	/* drop the filler: the chunk ends at its content, the file at the chunk */
	if (!err)
		err = jfr_writer_io_u64(w, w->start + JFR_H_SIZE, w->filler - w->start,
		                        "writing the chunk size");
	if (!err)
		err = jfr_writer_io_truncate(w, w->filler, "trimming the file");
	if (!err && !final)
		err = jfr_writer_io_u64(w, w->start + JFR_H_DURATION, duration,
		                        "writing a chunk duration");
	if (!err && (final || w->opt.sync) && fdatasync(w->fd) < 0)
		err = jfr_writer_fail_io(w, errno, "fdatasync", 0);
	if (w->fd >= 0 && close(w->fd) < 0 && !err)
		err = jfr_writer_fail_io(w, errno, "close", 0);
	w->fd = -1;
	if (!err && w->opt.repository)
		lfr_jfr_repo_update(&w->repo, w->filler - w->start,
		                    (int64_t)(real_nanos(w, w->chunk_ticks) + duration), true);
	return err;
}

/* In a repository, after a flush: the newest chunk's size and end, then the limits. */
int jfr_writer_repo_flushed(struct lfr_jfr_writer *w, uint64_t now)
{
	char msg[sizeof(w->err)];
	int err;

	if (!w->opt.repository)
		return 0;
	lfr_jfr_repo_update(&w->repo, w->end - w->start,
	                    (int64_t)(real_nanos(w, w->chunk_ticks) + chunk_duration(w, now)),
	                    false);
	err = lfr_jfr_repo_evict(&w->repo, (int64_t)real_nanos(w, now_ticks(w)), msg, sizeof(msg));
	return err ? jfr_writer_fail(w, -err, "%s", msg) : 0;
}

/* Undoes jfr_writer_create_file() when nothing was published: an old file at path stays as it was.
 */
void jfr_writer_unpublish(struct lfr_jfr_writer *w)
{
	if (w->opt.repository) {
		if (w->tmp_path) /* a chunk file not yet renamed: the others stay */
			unlink(w->tmp_path);
		else if (!w->st.flushes && w->chunk_path) /* the one file it made holds nothing */
			unlink(w->chunk_path);
		return;
	}
	/* removes the new file unless it was published; closes it either way */
	lfr_outfile_abort(&w->out);
}
