/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A repository: the directory where a continuous recording keeps its history, one chunk per file
 * (JFR's disk repository).  A file is named by its chunk's start time (UTC, nanoseconds), so that
 * the names sort in time order: 2026-11-24T01-02-03.123456789Z.jfr.  Every file is a complete
 * recording after each flush of its writer, the newest one included; the oldest files are evicted
 * beyond a maximum age and size (JFR's maxage and maxsize), and a dump joins the files that cover
 * a span of time into one recording (chunks are self-contained, so a file of chunks is one).
 *
 * One writer at a time: it holds an exclusive lock on DIR/.lock.  Readers (lfr raw) take none: a
 * file may be evicted or finished while they read it, which they detect and survive.
 */
#ifndef LFR_JFR_REPOSITORY_H
#define LFR_JFR_REPOSITORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LFR_JFR_REPO_NAME_MAX 48

/* A chunk file of a repository, as its header and the file system describe it. */
struct lfr_jfr_repo_chunk {
	char name[LFR_JFR_REPO_NAME_MAX];
	uint64_t bytes;                 /* the file's size (what it takes in the repository) */
	int64_t start_nanos, end_nanos; /* epoch ns: the header's start, start + duration */
	bool done;                      /* finished by its writer (not the chunk being written) */
	bool chunk;                     /* its header is one the reader accepts */
	/* a file that could not be read: the errno of its open, fstat or read, or 0 when it is no
	 * regular file (its S_IFMT bits in type) */
	bool unreadable;
	int err;
	unsigned type;
};

/* An open repository: its lock and its chunk files, oldest first. */
struct lfr_jfr_repo {
	char *dir;
	int lock_fd;
	uint64_t max_bytes, max_age_ns; /* 0: no limit */
	struct lfr_jfr_repo_chunk *chunks;
	size_t n, cap;
	uint64_t evicted, evicted_bytes; /* files removed by this writer */
	/* told of every file removed, after its removal (an export following the repository
	 * counts those it had not delivered, export/follow.h); NULL: none */
	void (*on_evict)(void *arg, const char *name, uint64_t bytes);
	void *on_evict_arg;
};

/* The file name of a chunk that starts at start_nanos (epoch ns); buf holds NAME_MAX bytes. */
void lfr_jfr_repo_name(char *buf, int64_t start_nanos);
/* Why a chunk file listed unreadable could not be read, in words ("Permission denied", "a FIFO,
 * not a regular file"). */
void lfr_jfr_repo_why(const struct lfr_jfr_repo_chunk *c, char *buf, size_t n);

/* Whether s is a chunk file's name (what lfr_jfr_repo_name() writes). */
bool lfr_jfr_repo_is_chunk_name(const char *s);

/*
 * Opens the repository dir (O_DIRECTORY) after the checks its users make: no symbolic link,
 * owned by the caller (by root too for a reader: lfr dump, lfr export), writable by nobody
 * else.  Returns the descriptor, or a negative errno with a message in err.
 */
int lfr_jfr_repo_open_trusted(const char *dir, bool reader, char *err, size_t errlen);

/*
 * Reads the chunk file name of the repository open at dirfd into *data (malloc'ed, len bytes)
 * as of its writer's last flush (without the room preallocated after it), its header checked
 * but its events not walked: for a caller that reads every event it uses with a reader and takes
 * what fails to parse as damage (the exports; lfr dump walks each chunk it copies).  Returns 0;
 * 1 when the file is gone (evicted); 2 when its header does not parse (why says what it has); or
 * a negative errno with why set.
 */
int lfr_jfr_repo_read(int dirfd, const char *name, uint8_t **data, uint64_t *len, char *why,
                      size_t whylen);

/*
 * Lists the chunk files of dir, oldest first (*out is malloc'ed, free it).  Files that do not
 * carry a chunk file's name are ignored, as are those gone meanwhile; a file whose header the
 * reader rejects, or that cannot be read at all (unreadable: its permissions, an I/O error, a
 * FIFO, a link or a directory under a chunk's name), is listed with chunk false, its start and
 * end the time its name gives (a writer takes it for no chunk of its own: it neither counts nor
 * evicts it; a dump names it as damaged or unreadable).  Returns 0 or a negative errno with a
 * message in err.
 */
int lfr_jfr_repo_list(const char *dir, struct lfr_jfr_repo_chunk **out, size_t *n, char *err,
                      size_t errlen);

/*
 * Opens dir for writing (creating it, mode 0750, when missing): takes its lock and lists the
 * chunks already there (from earlier recordings: they count against the limits).  Returns 0 or a
 * negative errno with a message in err (-EBUSY: another recording writes to it).
 */
int lfr_jfr_repo_open(struct lfr_jfr_repo *r, const char *dir, uint64_t max_bytes,
                      uint64_t max_age_ns, char *err, size_t errlen);
void lfr_jfr_repo_close(struct lfr_jfr_repo *r);

/* A chunk file the writer has just created (it becomes the newest); 0 or -ENOMEM. */
int lfr_jfr_repo_add(struct lfr_jfr_repo *r, const char *name, int64_t start_nanos);
/* The newest chunk's size and end as of its writer's last flush, and whether it is finished. */
void lfr_jfr_repo_update(struct lfr_jfr_repo *r, uint64_t bytes, int64_t end_nanos, bool done);

/*
 * Removes the oldest finished chunk files while the repository is larger than its maximum size or
 * their end is older than its maximum age at now_nanos.  The chunk being written stays, so the
 * repository holds at most the maximum size plus that chunk.  Returns 0 or a negative errno with
 * a message in err.
 */
int lfr_jfr_repo_evict(struct lfr_jfr_repo *r, int64_t now_nanos, char *err, size_t errlen);

/* The repository's size: the sum of its chunk files' sizes. */
uint64_t lfr_jfr_repo_bytes(const struct lfr_jfr_repo *r);

struct lfr_jfr_dump_stats {
	uint64_t chunks, bytes;         /* chunks and bytes written */
	int64_t start_nanos, end_nanos; /* the span the dump covers (epoch ns) */
	uint64_t skipped;               /* files evicted while the dump read them */
	uint64_t damaged;           /* chunk files left out: their header or events do not parse */
	char damaged_names[512];    /* the first of them, ", "-separated */
	char damaged_why[256];      /* what the first of them has */
	uint64_t rebased;           /* chunks of another clock origin, rebased onto the first's */
	uint64_t unrebased;         /* such chunks copied as they are: not readable to rebase */
	uint64_t unreadable;        /* chunk files of the span that could not be read: left out */
	char unreadable_names[768]; /* the first of them, "NAME (why), NAME (why)" */
};

/*
 * Writes the chunks of dir that end at or after since_nanos (0: all of them) to out ("-": standard
 * output), oldest first, as one recording (lib/outfile.h: renamed to out once complete, mode
 * 0640).  The chunk being written is copied as of its writer's last flush, without the room
 * preallocated after it.  A chunk whose header or events do not parse is left out and counted in
 * st->damaged; a chunk file that cannot be read (its permissions, an I/O error, no regular file)
 * is left out and counted in st->unreadable, with its name and why (whether such a file is in the
 * span is judged by its name's time and the next chunk's start).  A chunk whose
 * ticks count from another origin than the first chunk's (a recording of an earlier boot: lfr's
 * ticks count from boot) is rebased onto the first chunk's clock, as `lfr merge` does, since JDK 25
 * converts every chunk of a file with the first chunk's clock pair.  Returns 0, -ENOENT when no
 * chunk covers the span, -EUCLEAN when every chunk that does is damaged, -EIO when none of them
 * could be read (some may be damaged), or a negative errno, with a message in err.
 */
int lfr_jfr_repo_dump(const char *dir, const char *out, int64_t since_nanos,
                      struct lfr_jfr_dump_stats *st, char *err, size_t errlen);

#endif
