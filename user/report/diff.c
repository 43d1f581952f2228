// SPDX-License-Identifier: GPL-2.0
/*
 * lfr report --diff BASE NEW: what changed between two recordings.  Functions are matched by
 * name, object and kind (the key the other views use); each is given as its share of all the
 * samples of its recording, so recordings of different lengths or rates compare, and the change
 * is NEW's share minus BASE's in percentage points.  With both sampling periods known the change
 * of the self time the samples stand for (CPU time, or with --wall wall-clock time: report/units.h)
 * is given too.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/diff.h"
#include "report/text_safe.h"
#include "report/units.h"
#include "report/views.h"

/* a function (name, object, kind), or with --sort dso an object (its name, no object) */
struct fn_entry {
	const char *name, *object;
	uint8_t kind;
	int side;
	uint64_t self, total;
};

static int cmp_str(const char *a, const char *b)
{
	if (!a || !b)
		return a ? 1 : b ? -1 : 0;
	return strcmp(a, b);
}

static int cmp_fn(const void *a, const void *b)
{
	const struct fn_entry *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (!c)
		c = cmp_str(x->object, y->object);
	if (!c)
		c = (int)x->kind - (int)y->kind;
	return c;
}

static bool by_total_key;

static int cmp_row(const void *a, const void *b)
{
	const struct report_diff_row *x = a, *y = b;
	double k1x = fabs(by_total_key ? x->dtotal : x->dself);
	double k1y = fabs(by_total_key ? y->dtotal : y->dself);
	double k2x = fabs(by_total_key ? x->dself : x->dtotal);
	double k2y = fabs(by_total_key ? y->dself : y->dtotal);

	if (k1x != k1y)
		return k1x < k1y ? 1 : -1;
	if (k2x != k2y)
		return k2x < k2y ? 1 : -1;
	int c = strcmp(x->name, y->name);
	return c ? c : cmp_str(x->object, y->object);
}

void report_diff_sort(struct report_diff *d, bool by_total)
{
	by_total_key = by_total;
	qsort(d->rows, d->nrows, sizeof(*d->rows), cmp_row);
}

static int period_of(const struct report *r)
{
	return r->period_ns > 0 && !r->period_mixed;
}

/* The functions of side's report r, or its objects, into e from *k on; -1 when out of memory. */
static int add_entries(const struct report *r, int side, bool objects, struct fn_entry *e,
                       size_t *k)
{
	uint64_t *self, *total;

	if (!objects) {
		if (views_frame_totals(r, &self, &total))
			return -1;
		for (size_t i = 0; i < r->nframes; i++) {
			const struct report_frame *f = &r->frames[i];
			if (total[i])
				e[(*k)++] = (struct fn_entry){f->name, f->object, f->kind,
				                              side,    self[i],   total[i]};
		}
		free(self);
		free(total);
		return 0;
	}
	uint64_t *sv = views_stack_values(r);
	uint32_t *first;
	size_t nobj;
	if (!sv || views_object_totals(r, sv, &nobj, &first, &self, &total)) {
		free(sv);
		return -1;
	}
	for (size_t i = 0; i < nobj; i++)
		if (total[i])
			e[(*k)++] = (struct fn_entry){views_object_name(r->frames[first[i]].object),
			                              NULL,
			                              RF_JAVA,
			                              side,
			                              self[i],
			                              total[i]};
	free(sv), free(first), free(self), free(total);
	return 0;
}

static int compute(const struct report *base, const struct report *cur, bool objects,
                   struct report_diff *d)
{
	const struct report *reps[2] = {base, cur};
	size_t n = base->nframes + cur->nframes, k = 0;
	struct fn_entry *e = malloc((n ? n : 1) * sizeof(*e));

	memset(d, 0, sizeof(*d));
	if (!e)
		return -1;
	for (int side = 0; side < 2; side++) {
		const struct report *r = reps[side];
		if (add_entries(r, side, objects, e, &k)) {
			free(e);
			return -1;
		}
		d->total[side] = r->total;
		d->period_ns[side] = period_of(r) ? r->period_ns : 0;
	}
	d->cpu = d->period_ns[0] && d->period_ns[1];
	qsort(e, k, sizeof(*e), cmp_fn);
	d->rows = calloc(k ? k : 1, sizeof(*d->rows));
	if (!d->rows) {
		free(e);
		return -1;
	}
	for (size_t i = 0; i < k;) {
		struct report_diff_row *row = &d->rows[d->nrows++];
		row->name = e[i].name;
		row->object = e[i].object;
		row->kind = e[i].kind;
		size_t j = i;
		/* one frame per key in each report, but sum in case a writer repeats one */
		for (; j < k && !cmp_fn(&e[i], &e[j]); j++) {
			row->self[e[j].side] += e[j].self;
			row->total[e[j].side] += e[j].total;
		}
		for (int s = 0; s < 2; s++) {
			row->self_pct[s] = report_pct(row->self[s], d->total[s]);
			row->total_pct[s] = report_pct(row->total[s], d->total[s]);
		}
		row->dself = row->self_pct[1] - row->self_pct[0];
		row->dtotal = row->total_pct[1] - row->total_pct[0];
		if (d->cpu)
			row->dself_ns = (double)row->self[1] * (double)d->period_ns[1] -
			                (double)row->self[0] * (double)d->period_ns[0];
		i = j;
	}
	free(e);
	report_diff_sort(d, false);
	return 0;
}

int report_diff_compute(const struct report *base, const struct report *cur, struct report_diff *d)
{
	return compute(base, cur, false, d);
}

int report_diff_compute_objects(const struct report *base, const struct report *cur,
                                struct report_diff *d)
{
	return compute(base, cur, true, d);
}

void report_diff_free(struct report_diff *d)
{
	free(d->rows);
	memset(d, 0, sizeof(*d));
}

static void print_side(const char *label, const struct report *r, const struct report_units *u,
                       FILE *out)
{
	struct text_safe ts = {0};

	fprintf(out, "%s %s: %llu %s of %s", label, text_safe(&ts, r->path),
	        (unsigned long long)r->total, u->words, text_safe(&ts, r->selected));
	text_safe_free(&ts);
	if (u->period_ns)
		fprintf(out, ", period %.3f ms, %.3f s of %s", (double)u->period_ns / 1e6,
		        (double)r->total * (double)u->period_ns / 1e9, u->time_name);
	fputc('\n', out);
}

/* The rows by |dself| or |dtotal|; by self, only functions with self samples in either. */
static void print_rows(const struct report_diff *d, const struct report_opts *o,
                       const struct report_units *u, FILE *out, const char *title, bool by_self)
{
	fprintf(out, "\n%s\n", title);
	fprintf(out, "%7s %7s %8s  %7s %7s %8s%s  %s\n", "BASE", "NEW", "DELTA", "BASE", "NEW",
	        "DELTA",
	        !d->cpu                         ? ""
	        : !strcmp(u->time_type, "wall") ? "  DELTA WALL"
	                                        : "  DELTA CPU",
	        o->sort_objects ? "OBJECT" : "FUNCTION");
	fprintf(out, "%7s %7s %8s  %7s %7s %8s%s\n", "self%", "self%", "self pp", "total%",
	        "total%", "total pp", d->cpu ? "     (self)" : "");
	struct text_safe ts = {0};
	for (size_t i = 0, shown = 0; i < d->nrows && shown < (size_t)o->top; i++) {
		const struct report_diff_row *r = &d->rows[i];
		if (by_self && !r->self[0] && !r->self[1])
			continue;
		shown++;
		bool show_obj = r->object && r->kind != RF_KERNEL;
		char cpu[32] = "";

		if (d->cpu)
			snprintf(cpu, sizeof(cpu), "  %+8.1fms", r->dself_ns / 1e6);
		fprintf(out, "%6.2f%% %6.2f%% %+8.2f  %6.2f%% %6.2f%% %+8.2f%s  %s%s%s%s%s%s\n",
		        r->self_pct[0], r->self_pct[1], r->dself, r->total_pct[0], r->total_pct[1],
		        r->dtotal, cpu, text_safe(&ts, r->name),
		        r->kind == RF_KERNEL ? " [kernel]" : "", show_obj ? "  (" : "",
		        show_obj ? text_safe(&ts, r->object) : "", show_obj ? ")" : "",
		        !r->total[1]   ? "  [only in BASE]"
		        : !r->total[0] ? "  [only in NEW]"
		                       : "");
	}
	text_safe_free(&ts);
}

void report_print_diff_text(const struct report *base, const struct report *cur,
                            const struct report_opts *o, FILE *out)
{
	struct report_diff d;

	if (o->sort_objects ? report_diff_compute_objects(base, cur, &d)
	                    : report_diff_compute(base, cur, &d)) {
		fprintf(stderr, "lfr report: out of memory\n");
		return;
	}
	struct report_units u[2];

	report_units(base, o, &u[0]);
	report_units(cur, o, &u[1]);
	/* the time compared is the one both sides' samples stand for */
	if (!u[0].period_ns || !u[1].period_ns) {
		d.cpu = false;
		d.period_ns[0] = d.period_ns[1] = 0;
	}
	print_side("Base:", base, &u[0], out);
	print_side("New: ", cur, &u[1], out);
	fprintf(out, "Shares of each recording's %s; DELTA = NEW - BASE in percentage points",
	        u[1].words);
	if (d.cpu)
		fprintf(out, "; %s = the change of self %s (samples x period)\n",
		        !strcmp(u[1].time_type, "wall") ? "DELTA WALL" : "DELTA CPU",
		        u[1].time_name);
	else if (o->value_field)
		fprintf(out, " (time not compared: the values are %s, not samples)\n", u[1].words);
	else if (base->period_ns > 0 && cur->period_ns > 0)
		fputs(" (time not compared: the events counted are not the sampler's)\n", out);
	else
		fputs(" (time not compared: a recording does not give its sampling period)\n", out);
	size_t only[2] = {0, 0};
	for (size_t i = 0; i < d.nrows; i++) {
		only[0] += !d.rows[i].total[1];
		only[1] += !d.rows[i].total[0];
	}
	fprintf(out, "%s: %zu, %zu only in BASE, %zu only in NEW\n",
	        o->sort_objects ? "Objects" : "Functions", d.nrows, only[0], only[1]);
	print_rows(&d, o, &u[1], out, "Largest changes of self share", true);
	report_diff_sort(&d, true);
	print_rows(&d, o, &u[1], out, "Largest changes of total share", false);
	report_diff_free(&d);
}

struct folded {
	char *s;
	int side;
	uint64_t v;
};

static int cmp_folded(const void *a, const void *b)
{
	return strcmp(((const struct folded *)a)->s, ((const struct folded *)b)->s);
}

int report_print_diff_collapsed(const struct report *base, const struct report *cur,
                                const struct report_opts *o, FILE *out)
{
	const struct report *reps[2] = {base, cur};
	size_t n = base->nstacks + cur->nstacks, k = 0;
	struct folded *e = calloc(n ? n : 1, sizeof(*e));
	int rc = 0;

	(void)o;
	if (!e)
		return -1;
	for (int side = 0; side < 2 && !rc; side++) {
		const struct report *r = reps[side];
		uint64_t *sv = views_stack_values(r);
		if (!sv) {
			rc = -1;
			break;
		}
		for (size_t i = 0; i < r->nstacks; i++) {
			const struct report_stack *st = &r->stacks[i];
			const uint32_t *f = r->stack_frames + st->first;
			size_t len;
			char *buf = NULL;
			FILE *m;
			if (!sv[i])
				continue;
			if (!(m = open_memstream(&buf, &len))) {
				rc = -1;
				break;
			}
			for (uint32_t dd = st->depth; dd-- > 0;) {
				views_put_folded_name(m, &r->frames[f[dd]]);
				if (dd)
					fputc(';', m);
			}
			if (fclose(m)) {
				free(buf);
				rc = -1;
				break;
			}
			e[k++] = (struct folded){buf, side, sv[i]};
		}
		free(sv);
	}
	if (!rc) {
		qsort(e, k, sizeof(*e), cmp_folded);
		for (size_t i = 0; i < k;) {
			uint64_t v[2] = {0, 0};
			size_t j = i;
			for (; j < k && !strcmp(e[j].s, e[i].s); j++)
				v[e[j].side] += e[j].v;
			/* BASE scaled to NEW's total, as difffolded.pl -n does */
			double scaled =
			    base->total ? (double)v[0] * (double)cur->total / (double)base->total
			                : 0;
			fprintf(out, "%s %llu %llu\n", e[i].s, (unsigned long long)llround(scaled),
			        (unsigned long long)v[1]);
			i = j;
		}
	} else {
		fprintf(stderr, "lfr report: out of memory\n");
	}
	for (size_t i = 0; i < k; i++)
		free(e[i].s);
	free(e);
	return rc;
}
