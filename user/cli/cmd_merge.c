// SPDX-License-Identifier: GPL-2.0
/*
 * lfr merge: joins a JVM's own recording and lfr's recordings of it into one JFR file that JDK 17
 * and JDK 25 both read on one timeline.  The others' chunks come first, unchanged but for a class
 * name JMC cannot read (jfr/class_names.h); lfr's follow, rebased onto the first chunk's clock
 * (jfr/rebase.h), because JDK 25 converts the ticks of every chunk with the first chunk's clock
 * pair.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/ctl_util.h"
#include "jfr/chunk_io.h"
#include "jfr/class_names.h"
#include "jfr/rebase.h"
#include "jfr/reader.h"
#include "lib/outfile.h"

#define PROG "lfr merge"

static void usage(FILE *out)
{
	fprintf(out,
	        "usage: lfr merge [-q] -o OUT FILE...\n\n"
	        "Joins JFR files into one that JDK 17 and JDK 25 read as one recording, every\n"
	        "event at its own instant: first every chunk of the files that are not lfr's\n"
	        "(a JVM's -XX:StartFlightRecording file), in the order given and unchanged,\n"
	        "then every chunk of lfr's files with its ticks rebased onto the clock of the\n"
	        "first chunk (JDK 25 reads every chunk with the first chunk's clock).  The\n"
	        "others' files must be one JVM's: a file whose ticks count from another origin\n"
	        "(another JVM's start) is refused, and so is a file given twice (by its name\n"
	        "or through a link): its samples would count twice.\n\n"
	        "  -o, --output OUT      the file to write (mode 0640; - standard output): a\n"
	        "                        new file renamed over OUT once complete; not one of\n"
	        "                        the inputs; an OUT that is no regular file, or\n"
	        "                        another user's in a sticky directory, is refused\n"
	        "  -q, --quiet           no summary\n\n"
	        "A chunk whose events, metadata or constant pools do not parse (a block a crash\n"
	        "zeroed) is left out and named on stderr; the others are kept.  A class name\n"
	        "that JDK Mission Control cannot read (one that starts with '[' and is no\n"
	        "array's descriptor, as a perf tool's [kernel.kallsyms]) is renamed "
	        "(kernel.kallsyms).\n\n"
	        "Example:\n"
	        "  lfr merge -o both.jfr jvm.jfr lfr.jfr && jfr summary both.jfr\n\n"
	        "Exit status: 0; 2 bad usage; 6 a file could not be read or written; 8 a file\n"
	        "is not a finished JFR recording, lfr's chunks do not count ns, or the others'\n"
	        "files are two JVMs'.\n");
}

struct merge {
	const char *out;
	struct lfr_outfile file;
	int fd;
	struct jfr_buf buf;
	struct jfr_clock_origin first; /* the output's first chunk (header fields) */
	uint64_t chunks, moved, damaged, renamed;
	int64_t dmin, dmax;
	/* the clock pair of the last chunk copied unchanged, and its file (NULL before it) */
	int64_t prev_nanos, prev_ticks, prev_tps;
	const char *prev_file;
};

static int put(struct merge *m, const void *p, size_t n)
{
	char err[512];

	if (jfr_chunk_write(m->fd, p, n, m->out, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", PROG, err);
		return LFR_EXIT_IO;
	}
	return 0;
}

/* load(): the chunk's header holds (so the next chunk is found), its metadata or pools do not */
#define LOAD_DAMAGED (-1)

/*
 * Loads the chunk at off of file r (jfr_chunk_at), or says why not.  A header that does not check
 * out after a first complete chunk is what a killed recorder leaves: lfr repair cuts it.  A chunk
 * whose header holds but whose metadata or constant pools do not parse (a block a crash zeroed) is
 * LOAD_DAMAGED, with its size in ch->size and the reason in r->err.
 */
static int load(struct jfr_reader *r, const char *file, uint64_t off, struct jfr_chunk *ch)
{
	char why[256];

	switch (jfr_chunk_at(r, off, ch, why, sizeof(why))) {
	case 0:
		return 0;
	case JFR_CHUNK_NO_MAGIC:
		fprintf(stderr, "%s: %s: not a JFR file (no chunk magic at its start)\n", PROG,
		        file);
		return LFR_EXIT_FORMAT;
	case JFR_CHUNK_UNFINISHED:
		fprintf(stderr,
		        "%s: %s: the chunk at offset %" PRIu64
		        " is not finished (%s): run `lfr repair %s` first\n",
		        PROG, file, off, why, file);
		return LFR_EXIT_FORMAT;
	default:
		return LOAD_DAMAGED;
	}
}

/*
 * Whether a chunk that is not lfr's, copied unchanged, counts its ticks from the origin of those
 * copied before it: JDK 17 and 25 read every chunk with the first chunk's clock pair, so another
 * JVM's recording (ticks from its own start) would read that far off.  The chunks of one file are
 * its JVM's (their pairs differ by the ns between two clock reads); the first of each further file
 * must be within 1 ms of the last one copied.  Returns 0, or the exit status after saying why.
 */
static int same_origin(struct merge *m, const char *file, const struct jfr_chunk *ch)
{
	long double d = (long double)ch->start_nanos - (long double)m->prev_nanos -
	                ((long double)ch->start_ticks - (long double)m->prev_ticks) * 1e9L /
	                    (long double)ch->ticks_per_second;

	if (m->prev_file && m->prev_file != file &&
	    (ch->ticks_per_second != m->prev_tps || d > 1e6L || d < -1e6L)) {
		if (ch->ticks_per_second != m->prev_tps)
			fprintf(stderr,
			        "%s: %s: counts %" PRId64
			        " ticks per second, %s before it %" PRId64,
			        PROG, file, ch->ticks_per_second, m->prev_file, m->prev_tps);
		else
			fprintf(
			    stderr,
			    "%s: %s: its ticks count from %.6Lf s %s those of %s (another JVM's "
			    "recording): JDK 17 and 25 would read its events %.6Lf s %s",
			    PROG, file, d < 0 ? -d / 1e9L : d / 1e9L, d < 0 ? "before" : "after",
			    m->prev_file, d < 0 ? -d / 1e9L : d / 1e9L, d < 0 ? "late" : "early");
		fprintf(stderr,
		        "; lfr merge moves only lfr's chunks: give the recording of one JVM\n");
		return LFR_EXIT_FORMAT;
	}
	m->prev_nanos = ch->start_nanos;
	m->prev_ticks = ch->start_ticks;
	m->prev_tps = ch->ticks_per_second;
	m->prev_file = file;
	return 0;
}

/* A file given, by its identity: the device and inode, then its place on the command line. */
struct file_id {
	dev_t dev;
	ino_t ino;
	int i;
};

static int by_identity(const void *a, const void *b)
{
	const struct file_id *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->i - y->i;
}

/*
 * Whether two of the files are one (the same device and inode: a name given twice, a symbolic or
 * a hard link): its chunks would be copied twice, every sample counted twice.  Says so.  Sorted
 * by identity, so any number of files costs n log n.
 */
static bool same_file_twice(int n, char **files)
{
	struct file_id *v = calloc((size_t)n, sizeof(*v));
	struct stat st;
	int k = 0;
	bool twice = false;

	if (!v)
		return false; /* the merge itself says what it cannot do */
	for (int i = 0; i < n; i++)
		if (!stat(files[i], &st)) /* a file that is not there is the merge's to report */
			v[k++] = (struct file_id){st.st_dev, st.st_ino, i};
	qsort(v, (size_t)k, sizeof(*v), by_identity);
	for (int j = 1; j < k && !twice; j++) {
		const char *a = files[v[j - 1].i], *b = files[v[j].i];

		if (v[j].dev != v[j - 1].dev || v[j].ino != v[j - 1].ino)
			continue;
		twice = true;
		if (!strcmp(a, b))
			fprintf(stderr,
			        "%s: %s is given twice: its chunks would be copied twice, every "
			        "sample counted twice; name each file once\n",
			        PROG, a);
		else
			fprintf(stderr,
			        "%s: %s and %s are the same file: its chunks would be copied "
			        "twice, every sample counted twice; name each file once\n",
			        PROG, a, b);
	}
	free(v);
	return twice;
}

/* pass 0 copies the chunks that are not lfr's, pass 1 rebases lfr's. */
static int merge_file(struct merge *m, const char *file, int pass)
{
	char err[512];
	struct jfr_reader *r = jfr_open_file(file, err, sizeof(err));
	int ret = 0;

	if (!r) {
		fprintf(stderr, "%s: %s\n", PROG, err);
		return LFR_EXIT_IO;
	}
	for (uint64_t off = 0; !ret && (off < r->size || off == 0);) {
		struct jfr_chunk ch;

		ret = load(r, file, off, &ch);
		if (ret == LOAD_DAMAGED) {
			/* whose it is is not known: told (and counted) by the first pass only */
			if (pass == 0) {
				fprintf(stderr,
				        "%s: %s: left out the damaged chunk at offset %" PRIu64
				        " (%s)\n",
				        PROG, file, off, r->err + strlen(r->name) + 2);
				m->damaged++;
			}
			r->failed = false;
			r->err[0] = 0;
			ret = 0;
			off += ch.size;
			jfr_chunk_release(&ch);
			continue;
		}
		if (ret)
			break;
		bool lfr = jfr_chunk_is_lfr(&ch);
		int renamed = 0;

		if (lfr == (pass == 1) && jfr_chunk_verify(r, &ch)) {
			/* its header holds, so the next chunk is found: only this one is lost */
			fprintf(stderr,
			        "%s: %s: left out the damaged chunk at offset %" PRIu64 " (%s)\n",
			        PROG, file, off, r->err + strlen(r->name) + 2);
			r->failed = false;
			r->err[0] = 0;
			m->damaged++;
		} else if (!lfr && pass == 0 && (ret = same_origin(m, file, &ch))) {
			/* said */
		} else if (lfr == (pass == 1) && (renamed = jfr_chunk_rename_names(r, &ch)) < 0) {
			fprintf(stderr, "%s: %s: chunk at offset %" PRIu64 ": %s\n", PROG, file,
			        off, r->err + strlen(r->name) + 2);
			ret = LFR_EXIT_FORMAT;
		} else if (lfr == (pass == 1)) {
			int64_t delta = 0;

			/* the class names JMC cannot read, renamed in the reader's copy */
			m->renamed += (uint64_t)renamed;
			jfr_clock_origin_note(&m->first, &ch, true);
			if (lfr && (ch.ticks_per_second != JFR_REBASE_TICKS_PER_SECOND ||
			            m->first.hdr.ticks_per_second != JFR_REBASE_TICKS_PER_SECOND)) {
				fprintf(stderr,
				        "%s: %s: counts %" PRId64
				        " ticks per second, the first chunk %" PRId64
				        ": lfr's chunks can be rebased only between clocks of 1e9 "
				        "ticks per second\n",
				        PROG, file, ch.ticks_per_second,
				        m->first.hdr.ticks_per_second);
				ret = LFR_EXIT_FORMAT;
			} else if (lfr && (delta = jfr_rebase_delta(&m->first.hdr, &ch))) {
				jfr_buf_reset(&m->buf);
				if (jfr_rebase_chunk(r, &ch, delta, &m->buf, err, sizeof(err))) {
					fprintf(stderr, "%s: %s: chunk at offset %" PRIu64 ": %s\n",
					        PROG, file, off, err);
					ret = LFR_EXIT_FORMAT;
				} else {
					ret = put(m, m->buf.data, m->buf.len);
				}
			} else {
				ret = put(m, r->data + off, ch.size);
			}
			if (lfr && !ret) {
				if (!m->moved || delta < m->dmin)
					m->dmin = delta;
				if (!m->moved || delta > m->dmax)
					m->dmax = delta;
				m->moved++;
			}
			m->chunks += !ret;
		}
		off += ch.size;
		jfr_chunk_release(&ch);
	}
	jfr_close(r);
	return ret;
}

int cmd_merge(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct merge m = {.fd = -1, .file = LFR_OUTFILE_INIT};
	bool quiet = false;
	int c, ret = 0;

	while ((c = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1)
		if ((ret = cli_output_option("merge", c, &m.out, &quiet, usage)) >= 0)
			return ret;
	ret = 0;
	if (!m.out) {
		fprintf(stderr, "%s: say where to write the merged recording: -o OUT\n", PROG);
		return LFR_EXIT_USAGE;
	}
	if (optind == argc) {
		fprintf(stderr, "%s: name the files to merge\n", PROG);
		return LFR_EXIT_USAGE;
	}
	for (int i = optind; i < argc; i++) {
		char err[512];

		if (lfr_outfile_same(m.out, argv[i], err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", PROG, err);
			return LFR_EXIT_USAGE;
		}
	}
	if (same_file_twice(argc - optind, argv + optind))
		return LFR_EXIT_USAGE;
	char err[512];

	if (lfr_outfile_open(&m.file, m.out, LFR_OUTFILE_STDOUT, 0640, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", PROG, err);
		return LFR_EXIT_IO;
	}
	m.fd = m.file.fd;
	/* the first chunk's clock is the output's: the others' chunks lead */
	for (int pass = 0; pass < 2 && !ret; pass++)
		for (int i = optind; i < argc && !ret; i++)
			ret = merge_file(&m, argv[i], pass);
	if (!ret && !m.chunks) {
		fprintf(stderr, "%s: no chunk of the files given is readable: nothing written\n",
		        PROG);
		ret = LFR_EXIT_FORMAT;
	}
	if (ret) {
		lfr_outfile_abort(&m.file);
	} else if (lfr_outfile_commit(&m.file, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", PROG, err);
		ret = LFR_EXIT_IO;
	}
	jfr_buf_free(&m.buf);
	if (ret || quiet)
		return ret;
	/* the recording itself may be on standard output */
	FILE *say = strcmp(m.out, "-") ? stdout : stderr;
	fprintf(say,
	        "%s: wrote %s: %" PRIu64 " chunk%s from %d file%s, %" PRIu64 " of lfr's moved by ",
	        PROG, strcmp(m.out, "-") ? m.out : "standard output", m.chunks,
	        m.chunks == 1 ? "" : "s", argc - optind, argc - optind == 1 ? "" : "s", m.moved);
	if (m.dmin == m.dmax)
		fprintf(say, "%+.6f s", (double)m.dmin / 1e9);
	else
		fprintf(say, "%+.6f to %+.6f s", (double)m.dmin / 1e9, (double)m.dmax / 1e9);
	if (m.damaged)
		fprintf(say, "; %" PRIu64 " damaged chunk%s left out", m.damaged,
		        m.damaged == 1 ? "" : "s");
	if (m.renamed)
		fprintf(say, "; %" PRIu64 " class name%s JMC cannot read renamed ([x] to (x))",
		        m.renamed, m.renamed == 1 ? "" : "s");
	fprintf(say, "\n");
	return LFR_EXIT_OK;
}
