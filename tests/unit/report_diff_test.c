// SPDX-License-Identifier: GPL-2.0
/*
 * lfr report --diff's computation (report/diff.c) on reports built in memory: shares of all
 * samples in each recording, the change in points, the order, functions matched by name and
 * object whatever their index, recursion counted once, CPU time only with both periods (and never
 * for values of a field), and the two-count folded stacks.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "report/diff.h"

/* A report of up to 8 frames, 8 stacks (each up to 8 frames, leaf first) and 8 samples. */
struct fake {
	struct report rep;
	struct report_frame frames[8];
	uint32_t stack_frames[64];
	struct report_stack stacks[8];
	struct report_sample samples[8];
};

static void fake_init(struct fake *f, const char *path)
{
	memset(f, 0, sizeof(*f));
	f->rep.path = (char *)path;
	f->rep.frames = f->frames;
	f->rep.stack_frames = f->stack_frames;
	f->rep.stacks = f->stacks;
	f->rep.samples = f->samples;
	snprintf(f->rep.selected, sizeof(f->rep.selected), "jdk.ExecutionSample");
}

static uint32_t fake_frame(struct fake *f, const char *name, const char *object)
{
	for (size_t i = 0; i < f->rep.nframes; i++)
		if (!strcmp(f->frames[i].name, name) &&
		    !strcmp(f->frames[i].object ? f->frames[i].object : "", object ? object : ""))
			return i;
	f->frames[f->rep.nframes] = (struct report_frame){(char *)name, RF_JAVA, (char *)object};
	return f->rep.nframes++;
}

/* A stack given root first as "a;b;c" (an object after '@'), sampled value times. */
static void fake_sample(struct fake *f, const char *folded, uint64_t value)
{
	char buf[256], *save = NULL;
	uint32_t path[8], n = 0;

	snprintf(buf, sizeof(buf), "%s", folded);
	for (char *t = strtok_r(buf, ";", &save); t; t = strtok_r(NULL, ";", &save)) {
		char *at = strchr(t, '@');
		if (at)
			*at++ = 0;
		char *nm = strdup(t), *ob = at ? strdup(at) : NULL;
		uint32_t before = f->rep.nframes, id = fake_frame(f, nm, ob);
		if (id < before) {
			free(nm);
			free(ob);
		}
		path[n++] = id;
	}
	struct report_stack *st = &f->stacks[f->rep.nstacks];
	st->first = f->rep.nstack_frames;
	st->depth = n;
	for (uint32_t d = n; d-- > 0;)
		f->stack_frames[f->rep.nstack_frames++] = path[d];
	f->samples[f->rep.nsamples++] = (struct report_sample){f->rep.nstacks++, 0, value};
	f->rep.total += value;
}

static void fake_free(struct fake *f)
{
	for (size_t i = 0; i < f->rep.nframes; i++) {
		free(f->frames[i].name);
		free(f->frames[i].object);
	}
}

static const struct report_diff_row *row_of(const struct report_diff *d, const char *name,
                                            const char *object)
{
	for (size_t i = 0; i < d->nrows; i++)
		if (!strcmp(d->rows[i].name, name) &&
		    !strcmp(d->rows[i].object ? d->rows[i].object : "", object ? object : ""))
			return &d->rows[i];
	return NULL;
}

static void assert_near(double got, double want)
{
	if (fabs(got - want) > 1e-9)
		fail_msg("%.12f, want %.12f", got, want);
}

/* 50/30/20 then 20/30/50 with three times the samples: -30, 0, +30 points. */
static void known_split(void **state)
{
	struct fake a, b;
	struct report_diff d;
	(void)state;

	fake_init(&a, "base.jfr");
	fake_sample(&a, "main;work;alpha", 500);
	fake_sample(&a, "main;work;beta", 300);
	fake_sample(&a, "main;gamma", 200);
	fake_init(&b, "new.jfr");
	/* another order: the frames get other indices in NEW */
	fake_sample(&b, "main;gamma", 1500);
	fake_sample(&b, "main;work;beta", 900);
	fake_sample(&b, "main;work;alpha", 600);
	assert_int_equal(report_diff_compute(&a.rep, &b.rep, &d), 0);
	assert_int_equal(d.nrows, 5);
	assert_int_equal(d.total[0], 1000);
	assert_int_equal(d.total[1], 3000);
	assert_false(d.cpu);
	const struct report_diff_row *al = row_of(&d, "alpha", NULL),
	                             *be = row_of(&d, "beta", NULL),
	                             *ga = row_of(&d, "gamma", NULL),
	                             *wo = row_of(&d, "work", NULL), *ma = row_of(&d, "main", NULL);
	assert_non_null(al);
	assert_non_null(be);
	assert_non_null(ga);
	assert_non_null(wo);
	assert_non_null(ma);
	assert_int_equal(al->self[0], 500);
	assert_int_equal(al->self[1], 600);
	assert_near(al->self_pct[0], 50);
	assert_near(al->self_pct[1], 20);
	assert_near(al->dself, -30);
	assert_near(be->dself, 0);
	assert_near(ga->dself, 30);
	assert_near(ga->dtotal, 30);
	/* work: total 80% then 50%, no self */
	assert_near(wo->dself, 0);
	assert_near(wo->total_pct[0], 80);
	assert_near(wo->dtotal, -30);
	assert_near(ma->total_pct[0], 100);
	assert_near(ma->dtotal, 0);
	/* by |dself|, then |dtotal|, then name */
	assert_string_equal(d.rows[0].name, "alpha");
	assert_string_equal(d.rows[1].name, "gamma");
	assert_string_equal(d.rows[2].name, "work");
	assert_string_equal(d.rows[3].name, "beta");
	assert_string_equal(d.rows[4].name, "main");
	report_diff_sort(&d, true);
	assert_string_equal(d.rows[0].name, "alpha");
	assert_string_equal(d.rows[1].name, "gamma");
	assert_string_equal(d.rows[2].name, "work");
	report_diff_free(&d);
	fake_free(&a);
	fake_free(&b);
}

/* One name in two objects is two functions; a function of one recording only is listed. */
static void objects_and_only_one_side(void **state)
{
	struct fake a, b;
	struct report_diff d;
	(void)state;

	fake_init(&a, "base.jfr");
	fake_sample(&a, "main@app;memcpy@libc.so.6", 3);
	fake_sample(&a, "main@app;old", 1);
	fake_init(&b, "new.jfr");
	fake_sample(&b, "main@app;memcpy@libfast.so", 2);
	fake_sample(&b, "main@app;memcpy@libc.so.6", 2);
	assert_int_equal(report_diff_compute(&a.rep, &b.rep, &d), 0);
	assert_int_equal(d.nrows, 4);
	const struct report_diff_row *libc = row_of(&d, "memcpy", "libc.so.6"),
	                             *fast = row_of(&d, "memcpy", "libfast.so"),
	                             *old = row_of(&d, "old", NULL), *m = row_of(&d, "main", "app");
	assert_non_null(libc);
	assert_non_null(fast);
	assert_non_null(old);
	assert_non_null(m);
	assert_near(libc->dself, 50 - 75);
	assert_int_equal(fast->total[0], 0);
	assert_near(fast->dself, 50);
	assert_int_equal(old->total[1], 0);
	assert_near(old->dtotal, -25);
	assert_near(m->dtotal, 0);
	report_diff_free(&d);
	fake_free(&a);
	fake_free(&b);
}

/* A recursive function counts once per sample in total; CPU time needs both periods. */
static void recursion_and_cpu(void **state)
{
	struct fake a, b;
	struct report_diff d;
	(void)state;

	fake_init(&a, "base.jfr");
	fake_sample(&a, "main;rec;rec;rec;leaf", 10);
	fake_sample(&a, "main;other", 10);
	fake_init(&b, "new.jfr");
	fake_sample(&b, "main;rec;rec;leaf", 30);
	fake_sample(&b, "main;other", 10);
	a.rep.period_ns = 1000000;
	assert_int_equal(report_diff_compute(&a.rep, &b.rep, &d), 0);
	assert_false(d.cpu);
	assert_near(row_of(&d, "rec", NULL)->total_pct[0], 50);
	assert_near(row_of(&d, "rec", NULL)->total_pct[1], 75);
	assert_near(row_of(&d, "leaf", NULL)->dself, 25);
	assert_near(row_of(&d, "leaf", NULL)->dself_ns, 0);
	report_diff_free(&d);

	b.rep.period_ns = 4000000;
	assert_int_equal(report_diff_compute(&a.rep, &b.rep, &d), 0);
	assert_true(d.cpu);
	/* leaf: 30 x 4 ms - 10 x 1 ms */
	assert_near(row_of(&d, "leaf", NULL)->dself_ns, 110e6);
	assert_near(row_of(&d, "other", NULL)->dself_ns, 30e6);
	report_diff_free(&d);

	b.rep.period_mixed = true; /* chunks that disagree give no period */
	assert_int_equal(report_diff_compute(&a.rep, &b.rep, &d), 0);
	assert_false(d.cpu);
	report_diff_free(&d);
	fake_free(&a);
	fake_free(&b);
}

/* Folded stacks: one line per stack of either, BASE scaled to NEW's total, then NEW. */
static void folded_two_counts(void **state)
{
	struct fake a, b;
	struct report_opts o;
	char *text = NULL;
	size_t len = 0;
	(void)state;

	report_opts_init(&o);
	fake_init(&a, "base.jfr");
	fake_sample(&a, "main;alpha", 50);
	fake_sample(&a, "main;beta", 50);
	fake_init(&b, "new.jfr");
	fake_sample(&b, "main;beta", 150);
	fake_sample(&b, "main;gamma", 50);
	FILE *m = open_memstream(&text, &len);
	assert_non_null(m);
	assert_int_equal(report_print_diff_collapsed(&a.rep, &b.rep, &o, m), 0);
	assert_int_equal(fclose(m), 0);
	assert_string_equal(text, "main;alpha 100 0\n"
	                          "main;beta 100 150\n"
	                          "main;gamma 0 50\n");
	free(text);
	fake_free(&a);
	fake_free(&b);
}

/* The text view names both files and lists the changes, largest first. */
static void text_view(void **state)
{
	struct fake a, b;
	struct report_opts o;
	char *text = NULL;
	size_t len = 0;
	(void)state;

	report_opts_init(&o);
	fake_init(&a, "base.jfr");
	fake_sample(&a, "main;alpha", 80);
	fake_sample(&a, "main;beta", 20);
	fake_init(&b, "new.jfr");
	fake_sample(&b, "main;alpha", 40);
	fake_sample(&b, "main;beta", 60);
	FILE *m = open_memstream(&text, &len);
	assert_non_null(m);
	report_print_diff_text(&a.rep, &b.rep, &o, m);
	assert_int_equal(fclose(m), 0);
	assert_non_null(strstr(text, "Base: base.jfr: 100 samples"));
	assert_non_null(strstr(text, "New:  new.jfr: 100 samples"));
	const char *al = strstr(text, " 80.00%  40.00%   -40.00"),
	           *be = strstr(text, " 20.00%  60.00%   +40.00");
	assert_non_null(al);
	assert_non_null(be);
	assert_true(al < be); /* the same |change|: by name */
	free(text);
	fake_free(&a);
	fake_free(&b);
}

/* --value: the values are no sample counts, so no CPU time is derived from the periods. */
static void text_view_values(void **state)
{
	struct fake a, b;
	struct report_opts o;
	char *text = NULL;
	size_t len = 0;
	(void)state;

	report_opts_init(&o);
	o.value_field = "duration";
	fake_init(&a, "base.jfr");
	fake_sample(&a, "main;alpha", 800);
	fake_sample(&a, "main;beta", 200);
	fake_init(&b, "new.jfr");
	fake_sample(&b, "main;alpha", 400);
	fake_sample(&b, "main;beta", 600);
	a.rep.period_ns = b.rep.period_ns = 1000000;
	FILE *m = open_memstream(&text, &len);
	assert_non_null(m);
	report_print_diff_text(&a.rep, &b.rep, &o, m);
	assert_int_equal(fclose(m), 0);
	assert_non_null(strstr(text, "Base: base.jfr: 1000 duration of"));
	assert_non_null(strstr(text, "CPU time not compared: the values are duration"));
	assert_null(strstr(text, "DELTA CPU"));
	assert_null(strstr(text, "ms  alpha"));
	assert_non_null(strstr(text, " 80.00%  40.00%   -40.00"));
	free(text);
	fake_free(&a);
	fake_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(known_split),       cmocka_unit_test(objects_and_only_one_side),
	    cmocka_unit_test(recursion_and_cpu), cmocka_unit_test(folded_two_counts),
	    cmocka_unit_test(text_view),         cmocka_unit_test(text_view_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
