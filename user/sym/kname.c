// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel names asked of the lfr module (LFR_CMD_KSYM), one function at a time, in place of the
 * kallsyms file: reading /proc/kallsyms makes the kernel format a hundred thousand lines, most
 * of a short recording's naming cost, to name the few dozen functions its stacks pass through.
 * Each answer gives the function's start and size, so one question names every pc inside it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sym/internal.h"

void knames_fini(struct knames *kn)
{
	free(kn->v);
	kn->v = NULL;
	kn->n = kn->cap = 0;
}

/* The index of the first function starting after pc. */
static size_t upper(const struct knames *kn, uint64_t pc)
{
	size_t lo = 0, hi = kn->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (kn->v[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static const struct kname *known(const struct knames *kn, uint64_t pc)
{
	size_t i = upper(kn, pc);

	return i && pc < kn->v[i - 1].end ? &kn->v[i - 1] : NULL;
}

static unsigned digit(char ch)
{
	unsigned c = (unsigned char)ch, lc = c | 0x20;

	if (c >= '0' && c <= '9')
		return c - '0';
	return lc >= 'a' && lc <= 'f' ? lc - 'a' + 10 : 99;
}

/* A number as "%#lx" prints it (the kernel's "0x0", "0x1a"; C libraries' "0"), up to stop;
 * false when it is not. */
static bool number(const char *s, const char *stop, uint64_t *v)
{
	unsigned base = 10;

	*v = 0;
	if (stop - s > 2 && s[0] == '0' && s[1] == 'x') {
		base = 16;
		s += 2;
	}
	if (s >= stop || stop - s > 16)
		return false;
	for (; s < stop; s++) {
		unsigned d = digit(*s);

		if (d >= base)
			return false;
		*v = *v * base + d;
	}
	return true;
}

int kname_parse(const char *s, struct kname_text *t)
{
	const char *end = s + strlen(s), *plus, *slash;

	memset(t, 0, sizeof(*t));
	if (end > s && end[-1] == ']') {
		const char *open = memrchr(s, '[', (size_t)(end - s));

		if (!open || open == s || open[-1] != ' ' || open + 1 == end - 1)
			return -EINVAL;
		t->mod = open + 1;
		t->mod_len = (size_t)(end - 1 - t->mod);
		end = open - 1;
	}
	plus = memrchr(s, '+', (size_t)(end - s));
	slash = plus ? memchr(plus, '/', (size_t)(end - plus)) : NULL;
	if (!plus || plus == s || !slash || !number(plus + 1, slash, &t->offset) ||
	    !number(slash + 1, end, &t->size) || t->offset >= (t->size ? t->size : 1))
		return -EINVAL;
	t->name = s;
	t->name_len = (size_t)(plus - s);
	return 0;
}

/*
 * Keeps f in order.  One that overlaps a known function (a module unloaded and another loaded
 * where it was) is used but not kept.  false when memory ran out.
 */
static bool remember(struct knames *kn, const struct kname *f)
{
	size_t i = upper(kn, f->start);

	if ((i && kn->v[i - 1].end > f->start) || (i < kn->n && kn->v[i].start < f->end))
		return true;
	if (kn->n == kn->cap) {
		size_t cap = kn->cap ? kn->cap * 2 : 64;
		struct kname *v = realloc(kn->v, cap * sizeof(*v));

		if (!v)
			return false;
		kn->v = v;
		kn->cap = cap;
	}
	memmove(&kn->v[i + 1], &kn->v[i], (kn->n - i) * sizeof(*kn->v));
	kn->v[i] = *f;
	kn->n++;
	return true;
}

int knames_find(struct knames *kn, struct strpool *pool, uint64_t pc, struct kname *out)
{
	const struct kname *k = known(kn, pc);
	struct kname_text t;
	char text[KNAME_TEXT_MAX];
	int err;

	if (k) {
		*out = *k;
		return 0;
	}
	text[0] = '\0';
	err = kn->ask(kn->ctx, pc, text, sizeof(text));
	if (err)
		return err;
	kn->asked++;
	if (!text[0] || kname_parse(text, &t))
		return -ENOENT; /* no symbol holds pc (or no answer to read): left unnamed */
	out->start = pc - t.offset;
	out->end = t.size ? out->start + t.size : pc + 1;
	out->name = strpool_intern(pool, t.name, t.name_len);
	out->mod = t.mod ? strpool_internf(pool, "[%.*s]", (int)t.mod_len, t.mod)
	                 : strpool_intern(pool, "[kernel]", 8);
	if (!out->name || !out->mod)
		return -ENOMEM;
	return remember(kn, out) ? 0 : -ENOMEM;
}
