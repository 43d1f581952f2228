// SPDX-License-Identifier: GPL-2.0
/* The timed samples in time order; see timed_order.h. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report/timed_order.h"

/* Whether x comes strictly before y. */
static inline bool before(const struct report_timed *x, const struct report_timed *y)
{
	if (x->nanos != y->nanos)
		return x->nanos < y->nanos;
	if (x->thread != y->thread)
		return x->thread < y->thread;
	return x->stack < y->stack;
}

/* Merges the ordered a[0..na) and b[0..nb) into out; on a tie a's first (stable). */
static void merge(const struct report_timed *a, size_t na, const struct report_timed *b, size_t nb,
                  struct report_timed *out)
{
	size_t i = 0, j = 0;

	while (i < na && j < nb)
		*out++ = before(&b[j], &a[i]) ? b[j++] : a[i++];
	memcpy(out, a + i, (na - i) * sizeof(*a));
	memcpy(out + (na - i), b + j, (nb - j) * sizeof(*b));
}

/* The first of the ordered v[0..n) that x comes strictly before (n when none): x goes there,
 * after its equals (stable). */
static size_t upper_bound(const struct report_timed *v, size_t n, const struct report_timed *x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (before(x, &v[mid]))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * Grows the ordered prefix v[0..runs[1]) run by run while that moves few entries: each run merged
 * with only the prefix's tail it overlaps (a drain's batch overlaps the other CPUs' last batches,
 * not the whole chunk).  Stops when the entries moved would pass twice n, which keeps adversarial
 * input (every run reaching back to the start) at n log(n): the runs left are merged in pairs.
 * Returns the runs left, the prefix as the first.
 */
static size_t grow_prefix(struct report_timed *v, size_t n, size_t *runs, size_t nruns,
                          struct report_timed *tmp)
{
	size_t k = 1, moved = 0;

	for (; k < nruns; k++) {
		size_t end = runs[k], e = runs[k + 1];
		size_t at = upper_bound(v, end, &v[end]);
		size_t na = end - at, i = 0, j = end, out = at;

		if (moved + na > 2 * n)
			break;
		moved += na;
		/* the prefix's tail aside; writing never passes the run's next unread entry */
		memcpy(tmp, v + at, na * sizeof(*v));
		while (i < na && j < e)
			v[out++] = before(&v[j], &tmp[i]) ? v[j++] : tmp[i++];
		memcpy(v + out, tmp + i, (na - i) * sizeof(*v));
	}
	/* the prefix is run 0; the runs not merged follow */
	runs[1] = runs[k];
	memmove(runs + 2, runs + k + 1, (nruns - k) * sizeof(*runs));
	return nruns - k + 1;
}

int report_sort_timed(struct report_timed *v, size_t n)
{
	struct report_timed *tmp, *from = v, *to;
	size_t *runs, nruns = 0;

	if (n < 2)
		return 0;
	/* runs[k]: where run k starts; runs[nruns] = n */
	runs = malloc((n + 1) * sizeof(*runs));
	tmp = runs ? malloc(n * sizeof(*tmp)) : NULL;
	if (!tmp) {
		free(runs);
		return -1;
	}
	runs[nruns++] = 0;
	for (size_t i = 1; i < n; i++)
		if (before(&v[i], &v[i - 1]))
			runs[nruns++] = i;
	runs[nruns] = n;
	if (nruns > 1)
		nruns = grow_prefix(v, n, runs, nruns, tmp);
	to = tmp;
	/* each pass merges runs in pairs, from one buffer into the other */
	while (nruns > 1) {
		size_t k = 0, m = 0;

		for (; k + 1 < nruns; k += 2) {
			size_t a = runs[k], b = runs[k + 1], e = runs[k + 2];

			merge(from + a, b - a, from + b, e - b, to + a);
			runs[m++] = a;
		}
		if (k < nruns) {
			memcpy(to + runs[k], from + runs[k], (n - runs[k]) * sizeof(*v));
			runs[m++] = runs[k];
		}
		runs[m] = n;
		nruns = m;
		struct report_timed *t = from;

		from = to;
		to = t;
	}
	if (from != v)
		memcpy(v, from, n * sizeof(*v));
	free(tmp);
	free(runs);
	return 0;
}
