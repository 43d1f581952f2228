// SPDX-License-Identifier: GPL-2.0
/*
 * The symbolizer proper: processes (pid -> sorted executable mappings), the cache of ELF objects
 * shared by all processes, kernel symbols, and the (pid, pc) result cache.
 *
 * Lookup order for a user pc: the mapping that holds it -> its ELF object (symbols of the file,
 * its debug file, or its .dynsym) -> the process's perf map -> the address itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libelf.h>

#include "lib/clock.h"
#include "lib/regular_file.h"
#include "sym/sym_internal.h"

const char *lfr_frame_type_name(enum lfr_frame_type type)
{
	switch (type) {
	case LFR_FRAME_CPP:
		return "C++";
	case LFR_FRAME_KERNEL:
		return "Kernel";
	case LFR_FRAME_JIT:
		return "JIT compiled";
	case LFR_FRAME_INTERPRETED:
		return "Interpreted";
	case LFR_FRAME_NATIVE:
		break;
	}
	return "Native";
}

const char *lfr_sym_last_error(const struct lfr_sym *sym)
{
	return sym->err;
}

void lfr_sym_foreach_object(const struct lfr_sym *sym,
                            void (*fn)(const struct lfr_sym_object *obj, void *arg), void *arg)
{
	for (const struct elfobj *o = sym->obj_list; o; o = o->next) {
		if (!o->path)
			continue; /* preloaded, never mapped */
		struct lfr_sym_object info = {
		    .path = o->path,
		    .debug_path = o->debug_path,
		    .build_id = o->build_id,
		    .build_id_len = o->build_id_len,
		    .symbols = o->syms.n,
		    .unnamed_why = o->unnamed_why,
		    .ok = o->ok,
		};

		fn(&info, arg);
	}
}

void lfr_sym_get_stats(const struct lfr_sym *sym, struct lfr_sym_stats *st)
{
	*st = sym->st;
	st->procs = sym->procs.n;
	st->objects_held = sym->nobjs;
	st->kernel_symbols = sym->ks.syms.n;
}

static char *dup_or(const char *s, const char *def)
{
	return strdup(s && *s ? s : def);
}

/*
 * The result cache, zeroed: lookups read it before anything is written there.  Its own mapping,
 * without transparent huge pages: a read of untouched memory where they are allowed maps the huge
 * zero page, which the kernel allocates and clears (2 MiB) when no process holds it, and the
 * first write there then splits it; a recording paid that while its first samples came in.  Here
 * a lookup that misses reads the shared 4 KiB zero page.  NULL without memory.
 */
static struct cache_ent *cache_map(size_t entries, bool populate, size_t *bytes)
{
	size_t len = entries * sizeof(struct cache_ent);
	/*
	 * populated now: its slots are spread over every page, each touched by a pc named later;
	 * not with LFR_SYM_CACHE_FILELESS, where few pcs are written (a recording of a machine
	 * without JIT code writes none: 1.4 MiB of pages cleared for nothing at its start)
	 */
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS | (populate ? MAP_POPULATE : 0), -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	madvise(p, len, MADV_NOHUGEPAGE);
	*bytes = len;
	return p;
}

int lfr_sym_new(struct lfr_sym **out, const struct lfr_sym_opts *opts)
{
	static const struct lfr_sym_opts none;
	struct lfr_sym *sym;
	size_t entries = 1;

	*out = NULL;
	if (!opts)
		opts = &none;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOSYS;
	sym = calloc(1, sizeof(*sym));
	if (!sym)
		return -ENOMEM;
	strpool_init(&sym->pool);
	hashtab_init_bytes(&sym->objs);
	hashtab_init_trusted(&sym->procs, false); /* pids */
	sym->flags = opts->flags;
	sym->debug_dirs = dup_or(opts->debug_dirs, "/usr/lib/debug");
	sym->proc_dir = dup_or(opts->proc_dir, "/proc");
	/* NULL: each target's own /tmp, as seen through PROC/PID/root */
	sym->perf_map_dir = opts->perf_map_dir ? strdup(opts->perf_map_dir) : NULL;
	sym->kallsyms = dup_or(opts->kallsyms, "/proc/kallsyms");
	while (entries < (opts->cache_entries ? opts->cache_entries : 65536u) &&
	       entries < (1u << 24))
		entries <<= 1;
	sym->cache = cache_map(entries, !(opts->flags & LFR_SYM_CACHE_FILELESS), &sym->cache_bytes);
	sym->cache_mask = entries - 1;
	sym->s_unknown = strpool_intern(&sym->pool, "[unknown]", 9);
	sym->s_kernel = strpool_intern(&sym->pool, "[kernel]", 8);
	sym->s_anon = strpool_intern(&sym->pool, "[anon]", 6);
	sym->s_jit = strpool_intern(&sym->pool, "[jit]", 5);
	sym->s_vdso = strpool_intern(&sym->pool, "[vdso]", 6);
	if (!sym->debug_dirs || !sym->proc_dir || (opts->perf_map_dir && !sym->perf_map_dir) ||
	    !sym->kallsyms || !sym->cache || !sym->s_unknown || !sym->s_kernel || !sym->s_anon ||
	    !sym->s_jit || !sym->s_vdso) {
		lfr_sym_free(sym);
		return -ENOMEM;
	}
	sym->env = (struct elfobj_env){
	    .pool = &sym->pool,
	    .debug_dirs = sym->debug_dirs,
	    .dbgi = (sym->flags & LFR_SYM_DEBUGINFOD) ? &sym->dbgi : NULL,
	    .debug_files = &sym->st.debug_files,
	    .cache_st = &sym->cache_st,
	};
	/* Serial 0 marks empty cache entries. */
	sym->next_serial = 1;
	*out = sym;
	return 0;
}

static void proc_free(struct proc *p)
{
	free(p->maps);
	perfmap_fini(&p->pm);
	free(p);
}

void lfr_sym_free(struct lfr_sym *sym)
{
	if (!sym)
		return;
	for (struct hashtab_slot *s = NULL; (s = hashtab_next(&sym->procs, s));)
		proc_free((struct proc *)(uintptr_t)s->v);
	hashtab_free(&sym->procs);
	hashtab_free(&sym->objs);
	sym_debuginfod_free(sym->dbgi);
	while (sym->obj_list) {
		struct elfobj *o = sym->obj_list;

		sym->obj_list = o->next;
		elfobj_fini(o);
		free(o);
	}
	elfobj_fini(&sym->vdso);
	for (size_t i = 0; i < sym->n_vdso_copies; i++)
		elfobj_fini(&sym->vdso_copies[i]);
	ksyms_fini(&sym->ks);
	knames_fini(&sym->kn);
	strpool_fini(&sym->pool);
	if (sym->cache)
		munmap(sym->cache, sym->cache_bytes);
	free(sym->debug_dirs);
	free(sym->proc_dir);
	free(sym->perf_map_dir);
	free(sym->kallsyms);
	free(sym);
}

static struct proc *find_proc(struct lfr_sym *sym, uint32_t pid)
{
	struct proc *p;

	if (sym->last_proc && sym->last_proc->pid == pid)
		return sym->last_proc;
	struct hashtab_slot *s = hashtab_get(&sym->procs, pid, 0);

	if (!s)
		return NULL;
	p = (struct proc *)(uintptr_t)s->v;
	sym->last_proc = p;
	return p;
}

static struct proc *get_proc(struct lfr_sym *sym, uint32_t pid)
{
	struct proc *p = find_proc(sym, pid);

	if (p)
		return p;
	bool fresh;
	struct hashtab_slot *s = hashtab_put(&sym->procs, pid, 0, &fresh);

	p = s ? calloc(1, sizeof(*p)) : NULL;
	if (!p) {
		if (s)
			hashtab_del(&sym->procs, s);
		return NULL;
	}
	p->pid = pid;
	p->serial = sym->next_serial++;
	s->v = (uint64_t)(uintptr_t)p;
	sym->last_proc = p;
	return p;
}

void lfr_sym_forget_pid(struct lfr_sym *sym, uint32_t pid)
{
	struct proc *p = find_proc(sym, pid);

	if (!p)
		return;
	hashtab_del(&sym->procs, hashtab_get(&sym->procs, pid, 0));
	if (sym->last_proc == p)
		sym->last_proc = NULL;
	sym->st.mappings -= p->n;
	/* Cached results carry p's serial, which no process will have again. */
	proc_free(p);
	sym_objects_check(sym);
}

static const char *base_name(struct lfr_sym *sym, const char *path)
{
	const char *slash;

	if (!path)
		return sym->s_anon;
	/* Files go by their base name, special mappings ("[vdso]", "[anon:jit]") as they are. */
	slash = path[0] == '/' ? strrchr(path, '/') : NULL;
	if (slash && slash[1])
		path = slash + 1;
	return strpool_intern(&sym->pool, path, strlen(path));
}

static int cmp_map(const void *a, const void *b)
{
	const struct mapping *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static bool same_mapping(const struct mapping *m, const struct mapping *n)
{
	return m->start == n->start && m->end == n->end && m->pgoff == n->pgoff &&
	       m->path == n->path && m->dev == n->dev && m->ino == n->ino &&
	       m->build_id_len == n->build_id_len &&
	       !memcmp(m->build_id, n->build_id, n->build_id_len);
}

static int reserve(struct proc *p, size_t need)
{
	struct mapping *maps;
	size_t cap = p->cap ? p->cap : 16;

	if (need <= p->cap)
		return 0;
	while (cap < need)
		cap *= 2;
	maps = realloc(p->maps, cap * sizeof(*maps));
	if (!maps)
		return -ENOMEM;
	p->maps = maps;
	p->cap = cap;
	return 0;
}

static struct mapping *find_mapping(struct proc *p, uint64_t pc)
{
	size_t lo =
	    sym_upper_bound(p->maps, p->n, sizeof(*p->maps), offsetof(struct mapping, start), pc);

	if (lo && pc < p->maps[lo - 1].end)
		return &p->maps[lo - 1];
	return NULL;
}

/* Cuts [start, end) out of the process's mappings, like mmap over an existing range. */
static int punch(struct proc *p, uint64_t start, uint64_t end)
{
	size_t n = p->n;

	/* At most one mapping is split in two. */
	if (reserve(p, n + 1))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct mapping *m = &p->maps[i];

		if (m->end <= start || m->start >= end)
			continue;
		if (m->start < start && m->end > end) {
			struct mapping right = *m;

			right.pgoff += end - m->start;
			right.start = end;
			m->end = start;
			p->maps[p->n++] = right;
		} else if (m->start < start) {
			m->end = start;
		} else if (m->end > end) {
			m->pgoff += end - m->start;
			m->start = end;
		} else {
			m->start = m->end = 0; /* removed below */
		}
	}
	n = 0;
	for (size_t i = 0; i < p->n; i++)
		if (p->maps[i].end)
			p->maps[n++] = p->maps[i];
	p->n = n;
	return 0;
}

int lfr_sym_add_mapping(struct lfr_sym *sym, const struct lfr_sym_mapping *m)
{
	struct mapping nm = {0}, *old;
	struct proc *p;
	size_t before;

	if (m->start >= m->end || m->build_id_len > sizeof(nm.build_id) ||
	    (m->build_id_len && !m->build_id) || m->pid == KERNEL_PID) {
		snprintf(sym->err, sizeof(sym->err),
		         "invalid mapping for pid %" PRIu32 ": [0x%" PRIx64 ", 0x%" PRIx64
		         "), build-id of %zu bytes",
		         m->pid, m->start, m->end, m->build_id_len);
		return -EINVAL;
	}
	p = get_proc(sym, m->pid);
	if (!p)
		goto nomem;
	nm.start = m->start;
	nm.end = m->end;
	nm.pgoff = m->pgoff;
	nm.dev = m->dev;
	nm.ino = m->ino;
	if (m->path && *m->path) {
		size_t len = strlen(m->path);

		/* The kernel's name for a file unlinked since: the inode check decides later. */
		if (len > 10 && !strcmp(m->path + len - 10, " (deleted)"))
			len -= 10;
		nm.path = strpool_intern(&sym->pool, m->path, len);
		if (!nm.path)
			goto nomem;
	}
	nm.name = base_name(sym, nm.path);
	if (!nm.name)
		goto nomem;
	if (m->build_id_len)
		memcpy(nm.build_id, m->build_id, m->build_id_len);
	nm.build_id_len = m->build_id_len;
	old = find_mapping(p, nm.start);
	if (old && same_mapping(old, &nm))
		return 0;
	before = p->n;
	if (punch(p, nm.start, nm.end) || reserve(p, p->n + 1))
		goto nomem;
	p->maps[p->n++] = nm;
	/* Records mostly come in address order: then the array is still sorted. */
	if (p->n != before + 1 || (p->n > 1 && p->maps[p->n - 2].start > nm.start))
		qsort(p->maps, p->n, sizeof(*p->maps), cmp_map);
	sym->st.mappings -= before;
	sym->st.mappings += p->n;
	p->serial = sym->next_serial++;
	return 0;
nomem:
	snprintf(sym->err, sizeof(sym->err), "out of memory adding a mapping of pid %" PRIu32,
	         m->pid);
	return -ENOMEM;
}

/* procmaps_load()'s: a mapping of /proc/PID/maps added to sym. */
static int add_mapping(void *sym, const struct lfr_sym_mapping *m)
{
	return lfr_sym_add_mapping(sym, m);
}

int lfr_sym_load_proc_maps(struct lfr_sym *sym, uint32_t pid)
{
	struct proc *p = get_proc(sym, pid);

	if (!p)
		return -ENOMEM;
	p->procmaps_ns = lfr_mono_ns();
	return procmaps_load(sym->proc_dir, pid, add_mapping, sym, sym->err, sizeof(sym->err));
}

int lfr_sym_load_kallsyms(struct lfr_sym *sym, const char *path)
{
	int err = ksyms_load(&sym->ks, &sym->pool, path ? path : sym->kallsyms, sym->err,
	                     sizeof(sym->err));

	sym->ks_serial = sym->next_serial++;
	return err;
}

/* The name to show for entry i of t: interned, demangled when asked and possible. */
static const char *out_name(struct lfr_sym *sym, struct symtab *t, size_t i, bool demangle)
{
	const char *raw = symtab_name(t, i);
	char *dm;

	if (!t->out) {
		t->out = calloc(t->n, sizeof(*t->out));
		if (!t->out)
			return strpool_intern(&sym->pool, raw, strlen(raw));
	}
	if (t->out[i])
		return t->out[i];
	dm = demangle ? sym_demangle(raw) : NULL;
	if (dm) {
		t->out[i] = strpool_intern(&sym->pool, dm, strlen(dm));
		if (t->out[i])
			t->v[i].flags |= SYMF_CXX;
		free(dm);
	}
	if (!t->out[i])
		t->out[i] = strpool_intern(&sym->pool, raw, strlen(raw));
	return t->out[i];
}

static bool from_symbol(struct lfr_sym *sym, struct symtab *t, long i, uint64_t addr,
                        enum lfr_frame_type type, struct lfr_frame *f)
{
	const char *name = out_name(sym, t, (size_t)i, type == LFR_FRAME_NATIVE);

	if (!name)
		return false;
	f->method = name;
	f->addr = addr;
	f->offset = addr - t->v[i].addr;
	f->type = (t->v[i].flags & SYMF_CXX) ? LFR_FRAME_CPP : type;
	f->resolved = true;
	return true;
}

/* The name of a pc that no file holds: the pc itself, up to LFR_SYM_PC_NAMES of them (sym.h). */
static const char *pc_name(struct lfr_sym *sym, uint64_t pc)
{
	char buf[24];
	int n = snprintf(buf, sizeof(buf), "0x%" PRIx64, pc);
	const char *s = strpool_find(&sym->pool, buf, (size_t)n);

	if (s)
		return s;
	if (sym->st.pc_names >= LFR_SYM_PC_NAMES) {
		sym->st.pc_names_capped++;
		return sym->s_unknown;
	}
	s = strpool_intern(&sym->pool, buf, (size_t)n);
	sym->st.pc_names += s != NULL;
	return s;
}

/*
 * A frame left unnamed: by ADDR, an offset in its file or the kernel's address, the same
 * wherever it is met; or, when PC, an address in one process's memory (pc_name()).
 */
static void unknown(struct lfr_sym *sym, const char *class_name, uint64_t addr, bool pc,
                    enum lfr_frame_type type, struct lfr_frame *f)
{
	const char *m = pc ? pc_name(sym, addr) : strpool_internf(&sym->pool, "0x%" PRIx64, addr);

	f->class_name = class_name ? class_name : sym->s_unknown;
	f->method = m ? m : sym->s_unknown;
	f->addr = addr;
	f->offset = 0;
	f->type = type;
	f->resolved = false;
}

/* The pid the process has in its own pid namespace (the last NSpid field), pid when unknown. */
static uint32_t ns_pid(const struct lfr_sym *sym, uint32_t pid)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0;
	uint32_t nspid = pid;
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/%" PRIu32 "/status", sym->proc_dir, pid) >=
	        (int)sizeof(path) ||
	    !(f = fopen(path, "re")))
		return pid;
	while (getline(&line, &cap, f) > 0) {
		if (strncmp(line, "NSpid:", 6))
			continue;
		char *p = line + 6, *end;
		for (;;) {
			unsigned long v = strtoul(p, &end, 10);
			if (end == p)
				break;
			nspid = (uint32_t)v;
			p = end;
		}
		break;
	}
	free(line);
	fclose(f);
	return nspid;
}

/*
 * Where p's JIT writes its map: /tmp/perf-NSPID.map as p sees /tmp (PROC/PID/root/tmp, so that
 * processes in containers are covered), or DIR/perf-PID.map with a perf_map_dir option.  The
 * owner a map must have: p's user (as last seen when p is gone, else the recorder's) or root.
 */
static bool perf_map_path(const struct lfr_sym *sym, struct proc *p, char *path, size_t size,
                          uid_t *owner)
{
	uint32_t pid = p->pid;
	char dir[PATH_MAX];
	struct stat st;
	int n;

	if (snprintf(dir, sizeof(dir), "%s/%" PRIu32, sym->proc_dir, pid) < (int)sizeof(dir) &&
	    !stat(dir, &st)) {
		p->owner = st.st_uid;
		p->owner_known = true;
	}
	*owner = p->owner_known ? p->owner : geteuid();
	if (sym->perf_map_dir)
		n = snprintf(path, size, "%s/perf-%" PRIu32 ".map", sym->perf_map_dir, pid);
	else if (snprintf(path, size, "%s/root/", dir) < (int)size && stat(path, &st))
		/* gone (or a zombie, whose root cannot be reached): a map it wrote at exit is
		 * in our /tmp when it shared it, the case of a command recorded from its start */
		n = snprintf(path, size, "/tmp/perf-%" PRIu32 ".map", pid);
	else
		n = snprintf(path, size, "%s/root/tmp/perf-%" PRIu32 ".map", dir, ns_pid(sym, pid));
	return n > 0 && (size_t)n < size;
}

/*
 * HotSpot names compiled methods "RET PKG.CLASS.METHOD(ARGS)" in its perf map ("long
 * Main.hot(long)"): the frame gets the class and the method apart, as the JVM's own recordings
 * name them; its interpreter ("Interpreter") is an interpreted frame of no known method.
 */
static void java_name(struct lfr_sym *sym, struct lfr_frame *f)
{
	const char *name = f->method, *paren = strchr(name, '('), *space, *dot;
	const char *cls, *m;

	if (!strcmp(name, "Interpreter")) {
		f->type = LFR_FRAME_INTERPRETED;
		return;
	}
	if (!paren || paren[strlen(paren) - 1] != ')')
		return;
	for (space = paren; space > name && space[-1] != ' '; space--)
		;
	for (dot = paren; dot > space && dot[-1] != '.'; dot--)
		;
	if (space == name || dot == space || dot == paren ||
	    memchr(name, '(', (size_t)(space - name)))
		return;
	cls = strpool_intern(&sym->pool, space, (size_t)(dot - 1 - space));
	m = strpool_intern(&sym->pool, dot, (size_t)(paren - dot));
	if (cls && m) {
		f->class_name = cls;
		f->method = m;
	}
}

static bool from_perf_map(struct lfr_sym *sym, struct proc *p, uint64_t pc, struct lfr_frame *f)
{
	char path[PATH_MAX];
	uid_t owner;
	long i = -1;

	if (p->pm.tried) {
		i = symtab_find(&p->pm.syms, pc);
		if (i >= 0 || lfr_mono_ns() - p->pm.checked_ns < PERF_MAP_INTERVAL_NS)
			goto found;
	}
	if (!perf_map_path(sym, p, path, sizeof(path), &owner))
		return false;
	if (perfmap_refresh(&p->pm, path, owner))
		p->serial = sym->next_serial++;
	i = symtab_find(&p->pm.syms, pc);
found:
	if (i < 0)
		return false;
	f->class_name = sym->s_jit;
	f->path = NULL;
	if (!from_symbol(sym, &p->pm.syms, i, pc, LFR_FRAME_JIT, f))
		return false;
	java_name(sym, f);
	return true;
}

uint64_t lfr_sym_perf_map_check(struct lfr_sym *sym, uint32_t pid, bool force)
{
	struct proc *p = pid == KERNEL_PID ? NULL : find_proc(sym, pid);
	char path[PATH_MAX];
	uid_t owner;

	if (!p)
		return 0;
	if ((force || !p->pm.tried || lfr_mono_ns() - p->pm.checked_ns >= PERF_MAP_INTERVAL_NS) &&
	    perf_map_path(sym, p, path, sizeof(path), &owner) &&
	    perfmap_refresh(&p->pm, path, owner))
		p->serial = sym->next_serial++;
	return p->serial;
}

bool lfr_sym_in_file(struct lfr_sym *sym, uint32_t pid, uint64_t pc)
{
	struct proc *p = pid == KERNEL_PID ? NULL : find_proc(sym, pid);
	const struct mapping *m = p ? find_mapping(p, pc) : NULL;

	return m && m->path;
}

uint64_t lfr_sym_serial(struct lfr_sym *sym, uint32_t pid, bool kernel)
{
	const struct proc *p;

	if (kernel)
		return sym->ks_serial;
	p = pid == KERNEL_PID ? NULL : find_proc(sym, pid);
	return p ? p->serial : 0;
}

/* The build-id of an object whose pc stayed unnamed: read from it, else the mapping's. */
static void obj_build_id(const struct elfobj *o, struct lfr_frame *f)
{
	if (o && o->build_id_len) {
		f->build_id = o->build_id;
		f->build_id_len = o->build_id_len;
	} else if (o && o->key_bid_len > 1) {
		f->build_id = o->key_bid + 1;
		f->build_id_len = o->key_bid_len - 1;
	}
}

/*
 * Resolves pc in p.  *cacheable is false for results that may change without a change of the
 * process's serial: pcs outside any readable object left unknown after a look at a perf map
 * that may grow, or at /proc.
 */
static bool resolve_in(struct lfr_sym *sym, struct proc *p, uint64_t pc, struct lfr_frame *f,
                       bool *cacheable)
{
	struct mapping *m = find_mapping(p, pc);
	struct elfobj *o;
	uint64_t off, addr;

	if (!m && (sym->flags & LFR_SYM_PROC_MAPS_FALLBACK) &&
	    (!p->procmaps_ns || lfr_mono_ns() - p->procmaps_ns >= PROC_MAPS_INTERVAL_NS)) {
		lfr_sym_load_proc_maps(sym, p->pid);
		m = find_mapping(p, pc);
	}
	memset(f, 0, sizeof(*f));
	*cacheable = true;
	if (!m) {
		if (from_perf_map(sym, p, pc, f))
			return true;
		*cacheable = false;
		unknown(sym, NULL, pc, true, LFR_FRAME_NATIVE, f);
		return false;
	}
	o = sym_mapping_obj(sym, p, m);
	off = pc - m->start + m->pgoff;
	addr = off;
	if (o && o->ok && elfobj_vaddr(o, pc - m->start, m->pgoff, &addr)) {
		long i = symtab_find(&o->syms, addr);

		f->class_name = m->name;
		f->path = m->path;
		if (i >= 0 && from_symbol(sym, &o->syms, i, addr, LFR_FRAME_NATIVE, f))
			return true;
	}
	if (from_perf_map(sym, p, pc, f))
		return true;
	/*
	 * A pc in a file stays unknown (a perf map naming it would be read again, with a new
	 * serial, on the next miss); JIT code not yet in the map is looked up again.
	 */
	*cacheable = o && o->ok;
	/*
	 * Memory without a file to look into keeps the pc itself; but a vDSO whose image is gone
	 * keeps its offset, the same in every process of this kernel (its frames add up across
	 * processes, as named ones would).
	 */
	if (!m->path || (m->path[0] != '/' && !(o && o->ok))) {
		if (m->path == sym->s_vdso)
			unknown(sym, m->name, addr, false, LFR_FRAME_NATIVE, f);
		else
			unknown(sym, m->name, pc, true, LFR_FRAME_NATIVE, f);
		return false;
	}
	unknown(sym, m->name, addr, false, LFR_FRAME_NATIVE, f);
	f->path = m->path;
	obj_build_id(o, f);
	return false;
}

bool lfr_sym_resolve_object(struct lfr_sym *sym, const char *path, const uint8_t *build_id,
                            size_t build_id_len, uint64_t addr, struct lfr_frame *out)
{
	struct proc p = {.pid = 0};
	struct mapping m = {0};
	struct elfobj *o;

	memset(out, 0, sizeof(*out));
	if (!path || path[0] != '/' || build_id_len > sizeof(m.build_id) ||
	    !(m.path = strpool_intern(&sym->pool, path, strlen(path))) ||
	    !(m.name = base_name(sym, m.path))) {
		unknown(sym, NULL, addr, false, LFR_FRAME_NATIVE, out);
		return false;
	}
	if (build_id_len)
		memcpy(m.build_id, build_id, build_id_len);
	m.build_id_len = build_id_len;
	o = sym_mapping_obj(sym, &p, &m);
	out->path = m.path;
	if (o && o->ok) {
		long i = symtab_find(&o->syms, addr);

		if (i >= 0 && from_symbol(sym, &o->syms, i, addr, LFR_FRAME_NATIVE, out)) {
			out->class_name = m.name;
			out->path = m.path;
			return true;
		}
	}
	unknown(sym, m.name, addr, false, LFR_FRAME_NATIVE, out);
	out->path = m.path;
	return false;
}

static struct cache_ent *cache_slot(struct lfr_sym *sym, uint32_t pid, uint64_t pc)
{
	uint64_t h = (pc ^ ((uint64_t)pid << 40) ^ (pc >> 29)) * 0x9e3779b97f4a7c15ull;

	return &sym->cache[(h >> 32) & sym->cache_mask];
}

static bool finish(struct lfr_sym *sym, struct cache_ent *e, uint32_t pid, uint64_t pc,
                   uint64_t serial, bool ok, const struct lfr_frame *f)
{
	if (e && (!(sym->flags & LFR_SYM_CACHE_FILELESS) || (pid != KERNEL_PID && !f->path))) {
		e->pid = pid;
		e->pc = pc;
		e->serial = serial;
		e->f = *f;
	}
	if (ok)
		sym->st.resolved++;
	else
		sym->st.unknown++;
	return ok;
}

bool lfr_sym_resolve_user(struct lfr_sym *sym, uint32_t pid, uint64_t pc, struct lfr_frame *out)
{
	struct proc *p = pid == KERNEL_PID ? NULL : get_proc(sym, pid);
	struct cache_ent *e;
	bool ok, cacheable;

	sym->st.lookups++;
	if (!p) {
		memset(out, 0, sizeof(*out));
		out->class_name = out->method = sym->s_unknown;
		out->addr = pc;
		sym->st.unknown++;
		return false;
	}
	if (!p->n && !p->procmaps_ns && (sym->flags & LFR_SYM_PROC_MAPS_FALLBACK))
		lfr_sym_load_proc_maps(sym, pid);
	e = cache_slot(sym, pid, pc);
	if (e->serial == p->serial && e->pc == pc && e->pid == pid) {
		sym->st.cache_hits++;
		*out = e->f;
		return out->resolved;
	}
	ok = resolve_in(sym, p, pc, out, &cacheable);
	return finish(sym, cacheable ? e : NULL, pid, pc, p->serial, ok, out);
}

void lfr_sym_set_cache(struct lfr_sym *sym, struct lfr_blob_cache *c)
{
	sym->env.cache = c;
}

void lfr_sym_get_cache_stats(const struct lfr_sym *sym, struct lfr_sym_cache_stats *st)
{
	*st = sym->cache_st;
}

void lfr_sym_set_kernel_ask(struct lfr_sym *sym,
                            int (*ask)(void *ctx, uint64_t pc, char *text, size_t len), void *ctx)
{
	sym->kn.ask = ask;
	sym->kn.ctx = ctx;
	sym->kn.off = false;
}

/* Names kernel pc by asking the module: false when the question failed (the file names then). */
static bool ask_kernel(struct lfr_sym *sym, struct cache_ent *e, uint64_t pc, struct lfr_frame *out)
{
	struct kname k;
	int err = knames_find(&sym->kn, &sym->pool, pc, &k);

	if (err && err != -ENOENT) {
		sym->kn.off = true;
		return false;
	}
	memset(out, 0, sizeof(*out));
	if (err) {
		unknown(sym, sym->s_kernel, pc, false, LFR_FRAME_KERNEL, out);
	} else {
		out->class_name = k.mod;
		out->method = k.name;
		out->addr = pc;
		out->offset = pc - k.start;
		out->type = LFR_FRAME_KERNEL;
		out->resolved = true;
	}
	finish(sym, e, KERNEL_PID, pc, sym->ks_serial, !err, out);
	return true;
}

bool lfr_sym_resolve_kernel(struct lfr_sym *sym, uint64_t pc, struct lfr_frame *out)
{
	struct cache_ent *e;
	long i;

	sym->st.lookups++;
	e = cache_slot(sym, KERNEL_PID, pc);
	if (e->serial == sym->ks_serial && e->pc == pc && e->pid == KERNEL_PID) {
		sym->st.cache_hits++;
		*out = e->f;
		return out->resolved;
	}
	if (sym->kn.ask && !sym->kn.off && ask_kernel(sym, e, pc, out))
		return out->resolved;
	if (!sym->ks.tried) /* on first use; a load changes ks_serial, so the slot above misses */
		lfr_sym_load_kallsyms(sym, NULL);
	memset(out, 0, sizeof(*out));
	i = sym->ks.loaded ? symtab_find(&sym->ks.syms, pc) : -1;
	if (i >= 0) {
		out->class_name = sym->ks.mods[sym->ks.syms.v[i].aux];
		if (from_symbol(sym, &sym->ks.syms, i, pc, LFR_FRAME_KERNEL, out))
			return finish(sym, e, KERNEL_PID, pc, sym->ks_serial, true, out);
	}
	unknown(sym, sym->s_kernel, pc, false, LFR_FRAME_KERNEL, out);
	return finish(sym, e, KERNEL_PID, pc, sym->ks_serial, false, out);
}

struct elfobj *sym_user_obj(struct lfr_sym *sym, uint32_t pid, uint64_t pc, uint64_t *vaddr)
{
	struct proc *p = pid == KERNEL_PID ? NULL : find_proc(sym, pid);
	struct mapping *m = p ? find_mapping(p, pc) : NULL;
	struct elfobj *o = m ? sym_mapping_obj(sym, p, m) : NULL;

	if (!o || !o->ok || !elfobj_vaddr(o, pc - m->start, m->pgoff, vaddr))
		return NULL;
	return o;
}
