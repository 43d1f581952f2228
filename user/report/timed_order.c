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
