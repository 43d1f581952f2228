// SPDX-License-Identifier: GPL-2.0
/* An export's position and counts in a repository, written atomically; see state.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export/state.h"
#include "lib/outfile.h"

#define STATE_MAX 16384

static const char *const loss_names[LFR_LOSS_COUNT] = {"evicted", "refused", "damaged"};

const char *lfr_export_loss_name(enum lfr_export_loss l)
{
	return l < LFR_LOSS_COUNT ? loss_names[l] : "?";
}

void lfr_export_state_name(const struct lfr_export_target *t, char *buf, size_t n)
{
	snprintf(buf, n, LFR_EXPORT_STATE_PREFIX "%s-%08x", lfr_export_kind_name(t->kind), t->id);
}

/* The state as text. */
static int format(const struct lfr_export_state *st, char *buf, size_t n)
{
	size_t len = (size_t)snprintf(buf, n,
	                              "target %s\ndone %s\npartial %s\nparts %u\n"
	                              "sent_chunks %" PRIu64 "\nsent_bytes %" PRIu64
	                              "\nsent_samples %" PRIu64 "\n",
	                              st->target, st->done, st->partial, st->parts, st->sent_chunks,
	                              st->sent_bytes, st->sent_samples);

	for (int i = 0; i < LFR_LOSS_COUNT && len < n; i++)
		len += (size_t)snprintf(
		    buf + len, n - len, "lost_%s_chunks %" PRIu64 "\nlost_%s_bytes %" PRIu64 "\n",
		    loss_names[i], st->lost_chunks[i], loss_names[i], st->lost_bytes[i]);
	if (len < n)
		len +=
		    (size_t)snprintf(buf + len, n - len,
		                     "pending_chunks %" PRIu64 "\npending_bytes %" PRIu64
		                     "\nretries %" PRIu64 "\nwritten %" PRId64 "\nlast_ok %" PRId64
		                     "\nlast_error %" PRId64 "\npid %" PRIu32 "\nerror %s\n",
		                     st->pending_chunks, st->pending_bytes, st->retries,
		                     st->written, st->last_ok, st->last_error, st->pid, st->error);
	return len < n ? (int)len : -1;
}

/* The u64 of a key; false when key is not it. */
static bool num(const char *line, const char *key, uint64_t *v)
{
	size_t n = strlen(key);

	if (strncmp(line, key, n) || line[n] != ' ')
		return false;
	*v = strtoull(line + n + 1, NULL, 10);
	return true;
}

/* A chunk name's value: a chunk's name, or empty. */
static bool name_of(const char *line, const char *key, char *dst)
{
	size_t n = strlen(key);

	if (strncmp(line, key, n) || line[n] != ' ')
		return false;
	if (!line[n + 1] || lfr_jfr_repo_is_chunk_name(line + n + 1))
		snprintf(dst, LFR_JFR_REPO_NAME_MAX, "%s", line + n + 1);
	return true;
}

static void parse_line(const char *l, struct lfr_export_state *st)
{
	uint64_t v;
	char key[64];

	if (name_of(l, "done", st->done) || name_of(l, "partial", st->partial))
		return;
	if (!strncmp(l, "target ", 7)) {
		snprintf(st->target, sizeof(st->target), "%s", l + 7);
	} else if (!strncmp(l, "error ", 6)) {
		snprintf(st->error, sizeof(st->error), "%s", l + 6);
	} else if (num(l, "parts", &v)) {
		st->parts = (unsigned)v;
	} else if (num(l, "sent_chunks", &st->sent_chunks) ||
	           num(l, "sent_bytes", &st->sent_bytes) ||
	           num(l, "sent_samples", &st->sent_samples) ||
	           num(l, "pending_chunks", &st->pending_chunks) ||
	           num(l, "pending_bytes", &st->pending_bytes) || num(l, "retries", &st->retries)) {
	} else if (num(l, "written", &v)) {
		st->written = (int64_t)v;
	} else if (num(l, "last_ok", &v)) {
		st->last_ok = (int64_t)v;
	} else if (num(l, "last_error", &v)) {
		st->last_error = (int64_t)v;
	} else if (num(l, "pid", &v)) {
		st->pid = (uint32_t)v;
	} else {
		for (int i = 0; i < LFR_LOSS_COUNT; i++) {
			snprintf(key, sizeof(key), "lost_%s_chunks", loss_names[i]);
			num(l, key, &st->lost_chunks[i]);
			snprintf(key, sizeof(key), "lost_%s_bytes", loss_names[i]);
			num(l, key, &st->lost_bytes[i]);
		}
	}
}

int lfr_export_state_read(int dirfd, const char *name, struct lfr_export_state *st, char *why,
                          size_t whylen)
{
	char buf[STATE_MAX + 1], *line, *save = NULL;
	struct stat sb;
	ssize_t n;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	memset(st, 0, sizeof(*st));
	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		close(fd);
		snprintf(why, whylen, "%s is not a regular file", name);
		return -EINVAL;
	}
	n = read(fd, buf, STATE_MAX);
	close(fd);
	if (n < 0) {
		snprintf(why, whylen, "%s: %s", name, strerror(errno));
		return -EIO;
	}
	buf[n] = 0;
	for (char *p = buf; (line = strtok_r(p, "\n", &save)); p = NULL)
		parse_line(line, st);
	return 0;
}

int lfr_export_state_load(int dirfd, const struct lfr_export_target *t, struct lfr_export_state *st,
                          char *why, size_t whylen)
{
	char name[64];
	int rc;

	lfr_export_state_name(t, name, sizeof(name));
	rc = lfr_export_state_read(dirfd, name, st, why, whylen);
	if (rc == -ENOENT) {
		memset(st, 0, sizeof(*st));
		rc = 0;
	}
	snprintf(st->target, sizeof(st->target), "%s", t->spec);
	return rc;
}

int lfr_export_state_save(int dirfd, const struct lfr_export_target *t,
                          const struct lfr_export_state *st, bool sync, char *why, size_t whylen)
{
	char name[64], tmp[80], buf[STATE_MAX];
	int len = format(st, buf, sizeof(buf)), fd, rc;

	lfr_export_state_name(t, name, sizeof(name));
	snprintf(tmp, sizeof(tmp), "%s.tmp", name);
	if (len < 0) {
		snprintf(why, whylen, "the export's state does not fit in %d bytes", STATE_MAX);
		return -EOVERFLOW;
	}
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0640);
	if (fd < 0) {
		rc = -errno;
		snprintf(why, whylen, "cannot write %s: %s", tmp, strerror(errno));
		return rc;
	}
	rc = lfr_write_all(fd, buf, (size_t)len);
	if (!rc && sync && fsync(fd) < 0)
		rc = -errno;
	if (close(fd) < 0 && !rc)
		rc = -errno;
	if (!rc && renameat(dirfd, tmp, dirfd, name) < 0)
		rc = -errno;
	/* the rename itself survives a crash once the directory is synced */
	if (!rc && sync && fsync(dirfd) < 0)
		rc = -errno;
	if (rc) {
		snprintf(why, whylen, "cannot write the export's state %s: %s", name,
		         strerror(-rc));
		unlinkat(dirfd, tmp, 0);
	}
	return rc;
}
