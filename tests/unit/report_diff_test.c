// SPDX-License-Identifier: GPL-2.0
/*
 * lfr report --diff's computation (report/diff.c) on reports built in memory: shares of all
 * samples in each recording, the change in points, the order, functions matched by name and
 * object whatever their index, recursion counted once, CPU time only with both periods (and never
 * for values of a field), the objects (--sort dso), the two-count folded stacks and the pprof
 * profile of the change.
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
#include <zlib.h>

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

/* --sort dso: the objects' shares, self by the leaf's object, total once per stack. */
static void objects_view(void **state)
{
	struct fake a, b;
	struct report_diff d;
	struct report_opts o;
	char *text = NULL;
	size_t len = 0;
	(void)state;

	fake_init(&a, "base.jfr");
	fake_sample(&a, "main@app;work@app;alpha@libx.so", 500);
	fake_sample(&a, "main@app;beta@liby.so;run@app", 300);
	fake_sample(&a, "main@app;Jit.run", 200);
	fake_init(&b, "new.jfr");
	fake_sample(&b, "main@app;Jit.run", 100);
	fake_sample(&b, "main@app;work@app;alpha@libx.so", 200);
	fake_sample(&b, "main@app;beta@liby.so;run@app", 200);
	fake_sample(&b, "main@app;gamma@libz.so", 500);
	assert_int_equal(report_diff_compute_objects(&a.rep, &b.rep, &d), 0);
	assert_int_equal(d.nrows, 5);
	const struct report_diff_row *x = row_of(&d, "libx.so", NULL),
	                             *y = row_of(&d, "liby.so", NULL),
	                             *z = row_of(&d, "libz.so", NULL),
	                             *ap = row_of(&d, "app", NULL),
	                             *j = row_of(&d, "[no object: Java code]", NULL);
	assert_non_null(x);
	assert_non_null(y);
	assert_non_null(z);
	assert_non_null(ap);
	assert_non_null(j);
	assert_near(x->dself, -30);
	assert_near(y->dself, 0);
	assert_near(y->dtotal, -10); /* 30 -> 20: beta is no leaf, run is app's */
	assert_near(z->dself, 50);
	assert_int_equal(z->total[0], 0);
	assert_near(ap->self_pct[0], 30);
	assert_near(ap->self_pct[1], 20);
	assert_near(ap->total_pct[0], 100); /* counted once per stack */
	assert_near(ap->dtotal, 0);
	assert_near(j->dself, -10);
	assert_string_equal(d.rows[0].name, "libz.so"); /* the largest change first */
	report_diff_free(&d);

	report_opts_init(&o);
	o.sort_objects = true;
	FILE *m = open_memstream(&text, &len);
	assert_non_null(m);
	report_print_diff_text(&a.rep, &b.rep, &o, m);
	assert_int_equal(fclose(m), 0);
	assert_non_null(strstr(text, "Objects: 5, 0 only in BASE, 1 only in NEW"));
	assert_non_null(strstr(text, "  OBJECT\n"));
	assert_non_null(
	    strstr(text, " 50.00%  20.00%   -30.00   50.00%  20.00%   -30.00  libx.so\n"));
	assert_non_null(strstr(text, "+50.00  libz.so  [only in NEW]\n"));
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
	assert_non_null(strstr(text, "time not compared: the values are duration"));
	assert_null(strstr(text, "DELTA CPU"));
	assert_null(strstr(text, "ms  alpha"));
	assert_non_null(strstr(text, " 80.00%  40.00%   -40.00"));
	free(text);
	fake_free(&a);
	fake_free(&b);
}

/* A minimal reader of the gzipped profile.proto: what the pprof tests below look at. */
struct pb_sample {
	uint64_t leaf_loc;
	int64_t v[2];
	size_t nv;
	bool base; /* labelled pprof::base */
};

struct pb_profile {
	struct pb_sample samples[64];
	size_t nsamples;
	uint64_t loc_fn[64][2]; /* location id, function id */
	size_t nlocs;
	uint64_t fn_name[64][2]; /* function id, string index */
	size_t nfns;
	char *strings[256];
	size_t nstrings;
	size_t ntypes, ncomments;
};

static uint64_t varint(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;
	for (int shift = 0; *p < end && shift < 64; shift += 7) {
		uint8_t b = *(*p)++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	fail_msg("bad varint");
	return 0;
}

/* Calls fn for each field: its number, its varint value or its bytes. */
static void fields(const uint8_t *p, const uint8_t *end, void *ctx,
                   void (*fn)(void *ctx, unsigned field, uint64_t v, const uint8_t *b, size_t n))
{
	while (p < end) {
		uint64_t key = varint(&p, end);
		if ((key & 7) == 0) {
			fn(ctx, (unsigned)(key >> 3), varint(&p, end), NULL, 0);
		} else {
			assert_int_equal(key & 7, 2);
			uint64_t n = varint(&p, end);
			assert_true(n <= (uint64_t)(end - p));
			fn(ctx, (unsigned)(key >> 3), 0, p, n);
			p += n;
		}
	}
}

static void label_field(void *ctx, unsigned field, uint64_t v, const uint8_t *b, size_t n)
{
	uint64_t *kv = ctx;
	(void)b, (void)n;
	if (field == 1 || field == 2)
		kv[field - 1] = v;
}

struct sample_ctx {
	struct pb_profile *pr;
	struct pb_sample *s;
};

static void sample_field(void *ctx, unsigned field, uint64_t v, const uint8_t *b, size_t n)
{
	struct sample_ctx *c = ctx;
	const uint8_t *end = b + n;
	(void)v; /* lfr packs the repeated fields */
	if (field == 1 && b && !c->s->leaf_loc) {
		c->s->leaf_loc = varint(&b, end); /* leaf first */
	} else if (field == 2 && b) {
		while (b < end && c->s->nv < 2)
			c->s->v[c->s->nv++] = (int64_t)varint(&b, end);
	} else if (field == 3 && b) {
		uint64_t kv[2] = {0, 0};
		fields(b, end, kv, label_field);
		c->s->base = kv[0] < c->pr->nstrings && kv[1] < c->pr->nstrings &&
		             !strcmp(c->pr->strings[kv[0]], "pprof::base") &&
		             !strcmp(c->pr->strings[kv[1]], "true");
	}
}

static void id_field(void *ctx, unsigned field, uint64_t v, const uint8_t *b, size_t n)
{
	uint64_t *pair = ctx;
	if (field == 1)
		pair[0] = v;
	else if (field == 2 && !b) /* Function.name */
		pair[1] = v;
	else if (field == 4 && b) /* Location.line: its function id */
		fields(b, b + n, pair + 1, label_field);
}

/* strings come last in lfr's profiles, but the samples' labels need them: two passes */
static void profile_strings(void *ctx, unsigned field, uint64_t v, const uint8_t *b, size_t n)
{
	struct pb_profile *pr = ctx;
	(void)v;
	if (field == 6 && pr->nstrings < 256)
		pr->strings[pr->nstrings++] = strndup((const char *)b, n);
}

static void profile_field(void *ctx, unsigned field, uint64_t v, const uint8_t *b, size_t n)
{
	struct pb_profile *pr = ctx;
	(void)v;
	if (field == 1) {
		pr->ntypes++;
	} else if (field == 13) {
		pr->ncomments++;
	} else if (field == 2 && pr->nsamples < 64) {
		struct sample_ctx c = {pr, &pr->samples[pr->nsamples++]};
		fields(b, b + n, &c, sample_field);
	} else if (field == 4 && pr->nlocs < 64) {
		uint64_t pair[3] = {0, 0, 0};
		fields(b, b + n, pair, id_field);
		pr->loc_fn[pr->nlocs][0] = pair[0];
		pr->loc_fn[pr->nlocs++][1] = pair[1];
	} else if (field == 5 && pr->nfns < 64) {
		uint64_t pair[3] = {0, 0, 0};
		fields(b, b + n, pair, id_field);
		pr->fn_name[pr->nfns][0] = pair[0];
		pr->fn_name[pr->nfns++][1] = pair[1];
	}
}

static void read_profile(const char *gz, size_t len, struct pb_profile *pr)
{
	static uint8_t raw[1 << 16];
	z_stream zs = {0};

	memset(pr, 0, sizeof(*pr));
	assert_int_equal(inflateInit2(&zs, 15 + 16), Z_OK);
	zs.next_in = (Bytef *)gz;
	zs.avail_in = (uInt)len;
	zs.next_out = raw;
	zs.avail_out = sizeof(raw);
	assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
	size_t n = sizeof(raw) - zs.avail_out;
	inflateEnd(&zs);
	fields(raw, raw + n, pr, profile_strings);
	fields(raw, raw + n, pr, profile_field);
}

static void free_profile(struct pb_profile *pr)
{
	for (size_t i = 0; i < pr->nstrings; i++)
		free(pr->strings[i]);
}

/* The name of a sample's leaf function. */
static const char *leaf_name(const struct pb_profile *pr, const struct pb_sample *s)
{
	for (size_t i = 0; i < pr->nlocs; i++)
		if (pr->loc_fn[i][0] == s->leaf_loc)
			for (size_t j = 0; j < pr->nfns; j++)
				if (pr->fn_name[j][0] == pr->loc_fn[i][1])
					return pr->strings[pr->fn_name[j][1]];
	fail_msg("location %llu has no function", (unsigned long long)s->leaf_loc);
	return NULL;
}

/* The sum of value k of the samples whose leaf is name, of BASE (base) or NEW. */
static int64_t leaf_sum(const struct pb_profile *pr, const char *name, int base, size_t k)
{
	int64_t sum = 0;
	for (size_t i = 0; i < pr->nsamples; i++)
		if (pr->samples[i].base == base && !strcmp(leaf_name(pr, &pr->samples[i]), name))
			sum += pr->samples[i].v[k];
	return sum;
}

static void write_pprof_diff(struct fake *a, struct fake *b, struct pb_profile *pr)
{
	struct report_opts o;
	char *gz = NULL;
	size_t len = 0;

	report_opts_init(&o);
	FILE *m = open_memstream(&gz, &len);
	assert_non_null(m);
	assert_int_equal(report_print_pprof_diff(&a->rep, &b->rep, &o, m), 0);
	assert_int_equal(fclose(m), 0);
	read_profile(gz, len, pr);
	free(gz);
}

/*
 * pprof: NEW's samples as they are, BASE's negated, labelled pprof::base and scaled to NEW's
 * total, so that each leaf's values add up to its change of share times NEW's total.
 */
static void pprof_known_split(void **state)
{
	struct fake a, b;
	struct pb_profile pr;
	(void)state;

	fake_init(&a, "base.jfr");
	fake_sample(&a, "main;work;alpha", 500);
	fake_sample(&a, "main;work;beta", 300);
	fake_sample(&a, "main;gamma", 200);
	fake_init(&b, "new.jfr");
	fake_sample(&b, "main;gamma", 1500);
	fake_sample(&b, "main;work;beta", 900);
	fake_sample(&b, "main;work;alpha", 600);
	write_pprof_diff(&a, &b, &pr);
	assert_int_equal(pr.ntypes, 1); /* no period: counts only */
	assert_int_equal(pr.nsamples, 6);
	assert_int_equal(pr.ncomments, 3);
	size_t nbase = 0;
	for (size_t i = 0; i < pr.nsamples; i++)
		nbase += pr.samples[i].base;
	assert_int_equal(nbase, 3);
	/* -30, 0, +30 points of 3000 */
	assert_int_equal(leaf_sum(&pr, "alpha", 0, 0) + leaf_sum(&pr, "alpha", 1, 0), -900);
	assert_int_equal(leaf_sum(&pr, "beta", 0, 0) + leaf_sum(&pr, "beta", 1, 0), 0);
	assert_int_equal(leaf_sum(&pr, "gamma", 0, 0) + leaf_sum(&pr, "gamma", 1, 0), 900);
	assert_int_equal(leaf_sum(&pr, "alpha", 1, 0), -1500);
	free_profile(&pr);
	fake_free(&a);
	fake_free(&b);
}

/*
 * BASE's scaled counts add up to NEW's total exactly, each within one of its scaled value; with
 * both periods the CPU time is a second value, BASE's not scaled.
 */
static void pprof_rounding_and_cpu(void **state)
{
	struct fake a, b;
	struct pb_profile pr;
	(void)state;

	fake_init(&a, "base.jfr");
	fake_sample(&a, "main;alpha", 1);
	fake_sample(&a, "main;beta", 1);
	fake_sample(&a, "main;gamma", 1);
	fake_init(&b, "new.jfr");
	fake_sample(&b, "main;alpha", 2);
	a.rep.period_ns = 1000;
	b.rep.period_ns = 4000;
	write_pprof_diff(&a, &b, &pr);
	assert_int_equal(pr.ntypes, 2);
	int64_t sum = 0;
	for (size_t i = 0; i < pr.nsamples; i++) {
		const struct pb_sample *s = &pr.samples[i];
		assert_int_equal(s->nv, 2);
		if (s->base) {
			sum += s->v[0];
			assert_true(s->v[0] <= 0 && s->v[0] >= -1); /* 2/3 rounded */
			assert_int_equal(s->v[1], -1000);
		} else {
			assert_int_equal(s->v[0], 2);
			assert_int_equal(s->v[1], 8000);
		}
	}
	assert_int_equal(sum, -2);
	free_profile(&pr);

	b.rep.period_mixed = true; /* one period unknown: counts only */
	b.rep.period_ns = 0;
	write_pprof_diff(&a, &b, &pr);
	assert_int_equal(pr.ntypes, 1);
	free_profile(&pr);
	fake_free(&a);
	fake_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(known_split),
	    cmocka_unit_test(objects_and_only_one_side),
	    cmocka_unit_test(recursion_and_cpu),
	    cmocka_unit_test(folded_two_counts),
	    cmocka_unit_test(text_view),
	    cmocka_unit_test(text_view_values),
	    cmocka_unit_test(objects_view),
	    cmocka_unit_test(pprof_known_split),
	    cmocka_unit_test(pprof_rounding_and_cpu),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
