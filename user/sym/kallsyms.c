// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel symbols from a kallsyms file ("ADDR TYPE NAME [MODULE]").  Text symbols carry names;
 * every other symbol only ends the text symbol before it, since kallsyms has no sizes.  Module
 * symbols get the class "[module]", the rest "[kernel]".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sym/internal.h"

static int module_index(struct ksyms *ks, struct strpool *pool, const char *mod, size_t len)
{
	const char *name = strpool_internf(pool, "[%.*s]", (int)len, mod);
	const char **mods;

	if (!name)
		return -ENOMEM;
	/* Interned: equal names are equal pointers.  Module symbols come grouped. */
	for (size_t i = ks->nmods; i-- > 0;)
		if (ks->mods[i] == name)
			return (int)i;
	if (ks->nmods >= UINT16_MAX)
		return 0;
	mods = realloc(ks->mods, (ks->nmods + 1) * sizeof(*mods));
	if (!mods)
		return -ENOMEM;
	ks->mods = mods;
	ks->mods[ks->nmods] = name;
	return (int)ks->nmods++;
}

static bool is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

/*
 * The address a line begins with: 1 to 16 hexadecimal digits, then *end.  By hand: strtoull's
 * general loop was a fifth of the recorder's start-up, over the hundred thousand lines of a
 * kernel's symbols.  false when there is no address.
 */
static bool parse_addr(char *p, uint64_t *addr, char **end)
{
	uint64_t v = 0;
	int n = 0;

	for (;; p++, n++) {
		unsigned int c = (unsigned char)*p, lc = c | 0x20;

		if (c >= '0' && c <= '9')
			v = v << 4 | (c - '0');
		else if (lc >= 'a' && lc <= 'f')
			v = v << 4 | (lc - 'a' + 10);
		else
			break;
	}
	*addr = v;
	*end = p;
	return n >= 1 && n <= 16;
}

static int parse_line(struct ksyms *ks, struct strpool *pool, char *line, uint64_t *nonzero)
{
	char *p = line, *end, *name, *mod;
	uint64_t addr;
	char type;
	int idx = 0;

	if (line[0] == '\n')
		return 0;
	if (!parse_addr(p, &addr, &end) || *end != ' ')
		return -EINVAL;
	p = end + 1;
	type = *p;
	if (!type || p[1] != ' ')
		return -EINVAL;
	name = p + 2;
	name[strcspn(name, "\t \n")] = '\0';
	mod = name + strlen(name) + 1;
	if (type == 'a' || type == 'A' || type == 'U' || !*name)
		return 0;
	*nonzero += addr != 0;
	mod = strchr(mod, '[');
	if (mod) {
		size_t len = strcspn(mod + 1, "]");

		idx = module_index(ks, pool, mod + 1, len);
		if (idx < 0)
			return idx;
	}
	if (!is_text(type))
		return symtab_add(&ks->syms, addr, 0, 0, "", 0, (uint16_t)idx, SYMF_BOUNDARY);
	return symtab_add(&ks->syms, addr, 0, 0, name, strlen(name), (uint16_t)idx,
	                  (type == 'T' || type == 'W') ? SYMF_GLOBAL : 0);
}

int ksyms_load(struct ksyms *ks, struct strpool *pool, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	uint64_t nonzero = 0, lineno = 0;
	int ret = 0;

	ksyms_fini(ks);
	ks->tried = true;
	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "cannot read kernel symbols from %s: %s", path,
		         strerror(-ret));
		return ret;
	}
	ks->mods = malloc(sizeof(*ks->mods));
	if (ks->mods)
		ks->mods[0] = strpool_intern(pool, "[kernel]", 8);
	if (!ks->mods || !ks->mods[0]) {
		fclose(f);
		return -ENOMEM;
	}
	ks->nmods = 1;
	while (getline(&line, &cap, f) > 0) {
		lineno++;
		ret = parse_line(ks, pool, line, &nonzero);
		if (ret == -EINVAL) {
			snprintf(err, errlen, "%s:%llu: not a kallsyms line", path,
			         (unsigned long long)lineno);
			break;
		}
		if (ret)
			break;
	}
	free(line);
	fclose(f);
	if (!ret && ks->syms.n && !nonzero) {
		ret = -EPERM;
		snprintf(err, errlen,
		         "%s hides kernel addresses (all zero): run as root, or set "
		         "'sysctl kernel.kptr_restrict=0' and kernel.perf_event_paranoid <= 1",
		         path);
	} else if (!ret && !ks->syms.n) {
		ret = -ENODATA;
		snprintf(err, errlen, "%s has no symbols", path);
	}
	if (ret) {
		symtab_fini(&ks->syms);
		return ret;
	}
	symtab_finish(&ks->syms);
	ks->loaded = true;
	return 0;
}

void ksyms_fini(struct ksyms *ks)
{
	symtab_fini(&ks->syms);
	free(ks->mods);
	ks->mods = NULL;
	ks->nmods = 0;
	ks->loaded = false;
}
