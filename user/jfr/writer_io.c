// SPDX-License-Identifier: GPL-2.0
/*
 * The JFR writer's errors (the message lfr_jfr_strerror() returns), its clock and its file I/O:
 * every call checked, short writes completed, the tests' injected faults honoured.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/uio.h>
#include <unistd.h>

#include "jfr/encode.h"
#include "jfr/writer_internal.h"
#include "lib/clock.h"

int jfr_writer_fail(struct lfr_jfr_writer *w, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->err, sizeof(w->err), fmt, ap);
	va_end(ap);
	return -err;
}

int jfr_writer_fail_io(struct lfr_jfr_writer *w, int err, const char *what, uint64_t off)
{
	w->dead = true;
	return jfr_writer_fail(w, err, "%s: %s at offset %llu failed: %s", w->chunk_path ?: w->path,
	                       what, (unsigned long long)off, strerror(err));
}

int jfr_writer_nomem(struct lfr_jfr_writer *w, const char *what)
{
	return jfr_writer_fail(w, ENOMEM, "%s: out of memory while %s", w->path, what);
}

const char *lfr_jfr_strerror(const struct lfr_jfr_writer *w)
{
	return w && w->err[0] ? w->err : "no error";
}

uint64_t lfr_jfr_now(void)
{
	return lfr_kernel_mono_ns();
}

void lfr_jfr_set_io_budget(struct lfr_jfr_writer *w, int64_t budget)
{
	w->io_budget = budget;
}

void lfr_jfr_set_io_fault(struct lfr_jfr_writer *w, int64_t op, int64_t bytes)
{
	w->fault_op = op;
	w->fault_bytes = bytes;
}

/* ---- file I/O: every call checked, short writes completed, injected faults honoured ---- */

/*
 * Fault injection (tests): decides whether this I/O call is the one the simulated kill interrupts,
 * and how many of its n bytes reach the file first.
 */
static bool injected_fault(struct lfr_jfr_writer *w, size_t *n, uint64_t off, bool is_write)
{
	size_t keep;

	if (w->fault_op > 0) {
		w->fault_op--;
		return false;
	}
	if (w->fault_op == 0) {
		keep = w->fault_bytes < (int64_t)*n ? (size_t)w->fault_bytes : *n;
	} else if (w->io_budget >= 0 && (int64_t)*n > w->io_budget) {
		keep = (size_t)w->io_budget;
	} else {
		if (w->io_budget >= 0)
			w->io_budget -= (int64_t)*n;
		return false;
	}
	/* the kernel completes a write within one page entirely or not at all when the writer is
	 * killed; only larger writes can be cut short */
	if (is_write && *n <= 8 && off / PAGE == (off + *n - 1) / PAGE && keep < *n)
		keep = 0;
	*n = keep;
	w->io_budget = 0;
	w->fault_op = 0;
	w->fault_bytes = 0;
	return true;
}

int jfr_writer_io_writev(struct lfr_jfr_writer *w, const struct iovec *parts, int nparts,
                         uint64_t off, const char *what)
{
	struct iovec iov[JFR_WRITE_PARTS];
	int i, n = 0;
	size_t total = 0;
	bool cut;

	if (w->dead)
		return -EIO;
	if (nparts > JFR_WRITE_PARTS)
		return jfr_writer_fail(w, EINVAL, "%s: %s in %d parts", w->path, what, nparts);
	for (i = 0; i < nparts; i++) {
		if (parts[i].iov_len)
			iov[n++] = parts[i];
		total += parts[i].iov_len;
	}
	/* an injected fault cuts the whole write, as it cuts one buffer */
	size_t keep = total;
	cut = injected_fault(w, &keep, off, true);
	for (i = 0; i < n && keep; i++) {
		if (iov[i].iov_len > keep)
			iov[i].iov_len = keep;
		keep -= iov[i].iov_len;
	}
	n = i;
	struct iovec *v = iov;
	while (n) {
		ssize_t r = pwritev(w->fd, v, n, (off_t)off);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return jfr_writer_fail_io(w, errno, what, off);
		}
		if (r == 0)
			return jfr_writer_fail_io(w, EIO, what, off);
		off += (uint64_t)r;
		/* a short write: go on from the first byte not written */
		while (n && (size_t)r >= v->iov_len) {
			r -= (ssize_t)v->iov_len;
			v++;
			n--;
		}
		if (n) {
			v->iov_base = (uint8_t *)v->iov_base + r;
			v->iov_len -= (size_t)r;
		}
	}
	if (cut)
		return jfr_writer_fail_io(w, EIO, "(injected fault) write", off);
	return 0;
}

int jfr_writer_io_write(struct lfr_jfr_writer *w, const void *data, size_t n, uint64_t off,
                        const char *what)
{
	struct iovec one = {.iov_base = (void *)data, .iov_len = n};

	return jfr_writer_io_writev(w, &one, 1, off, what);
}

int jfr_writer_io_truncate(struct lfr_jfr_writer *w, uint64_t size, const char *what)
{
	size_t one = 1;
	bool cut;

	if (w->dead)
		return -EIO;
	cut = injected_fault(w, &one, 0, false);
	if (cut && !one)
		return jfr_writer_fail_io(w, EIO, "(injected fault) ftruncate", size);
	while (ftruncate(w->fd, (off_t)size) < 0) {
		if (errno != EINTR)
			return jfr_writer_fail_io(w, errno, what, size);
	}
	if (cut)
		return jfr_writer_fail_io(w, EIO, "(injected fault) after ftruncate", size);
	return 0;
}

int jfr_writer_io_u64(struct lfr_jfr_writer *w, uint64_t off, uint64_t v, const char *what)
{
	uint8_t b[8];

	jfr_put_be64(b, v);
	return jfr_writer_io_write(w, b, 8, off, what);
}

/* Rewrites the padded size of the filler at off: one write inside one page. */
int jfr_writer_io_filler_size(struct lfr_jfr_writer *w, uint64_t off, uint64_t size)
{
	uint8_t b[FILLER_SIZE_WIDTH];

	if (!jfr_varint_encode_padded(b, size, FILLER_SIZE_WIDTH))
		return jfr_writer_fail(w, EFBIG, "%s: chunk larger than the writer supports",
		                       w->path);
	return jfr_writer_io_write(w, b, FILLER_SIZE_WIDTH, off, "writing a filler size");
}
