// SPDX-License-Identifier: GPL-2.0
/*
 * The symbolizer's cache of ELF objects, shared by all processes: an object by its device and
 * inode, build-id or path, opened once (its symbols, debug file, unwind rules), and the vDSO
 * images, ours and those copied from other processes.
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

/*
 * A [vdso] unlike our own (another size: a 32-bit process's, or none of our own) is copied from
 * the process's memory, as a debugger reads it; a process that is gone leaves it unnamed.  Equal
 * images are loaded once.
 */
static struct elfobj *vdso_copy(struct lfr_sym *sym, const struct proc *p, const struct mapping *m)
{
	size_t len = m->end - m->start;
	struct elfobj *o = NULL;
	char path[PATH_MAX];
	char *img;
	ssize_t n = -1;
	int fd;

	if (!p->pid || len > VDSO_MAX_LEN || m->start > (uint64_t)INT64_MAX - len)
		return NULL;
	img = malloc(len);
	if (!img)
		return NULL;
	snprintf(path, sizeof(path), "%s/%" PRIu32 "/mem", sym->proc_dir, p->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = pread(fd, img, len, (off_t)m->start);
		close(fd);
	}
	if (n != (ssize_t)len)
		goto out;
	for (size_t i = 0; i < sym->n_vdso_copies; i++) {
		struct elfobj *c = &sym->vdso_copies[i];

		if (c->image_len == len && !memcmp(c->image, img, len)) {
			o = c;
			goto out;
		}
	}
	if (sym->n_vdso_copies == VDSO_COPIES)
		goto out;
	o = &sym->vdso_copies[sym->n_vdso_copies];
	memset(o, 0, sizeof(*o));
	o->path = o->name = sym->s_vdso;
	if (elfobj_load_mem(&sym->env, o, img, len)) {
		elfobj_fini(o);
		o = NULL;
		goto out;
	}
	sym->n_vdso_copies++;
out:
	free(img);
	return o;
}

/* Our own vDSO stands in for every process's of its size: same kernel, same image. */
static struct elfobj *vdso_obj(struct lfr_sym *sym, const struct proc *p, const struct mapping *m)
{
	if (!sym->vdso_tried) {
		unsigned long base = getauxval(AT_SYSINFO_EHDR);
		FILE *f = fopen("/proc/self/maps", "re");
		char line[512];

		sym->vdso_tried = true;
		while (base && f && fgets(line, sizeof(line), f)) {
			unsigned long long s, e;

			if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &s, &e) == 2 &&
			    s == base) {
				sym->vdso.path = sym->vdso.name = sym->s_vdso;
				if (!elfobj_load_mem(&sym->env, &sym->vdso, (const void *)base,
				                     e - s))
					sym->vdso_len = e - s;
				break;
			}
		}
		if (f)
			fclose(f);
	}
	if (sym->vdso.ok && m->end - m->start == sym->vdso_len)
		return &sym->vdso;
	return vdso_copy(sym, p, m);
}

static void obj_set_keys(struct elfobj *o, const struct mapping *m)
{
	uint64_t dev = m->dev;

	if (m->dev || m->ino) {
		o->key_dev[0] = 'D';
		memcpy(o->key_dev + 1, &dev, sizeof(dev));
		memcpy(o->key_dev + 1 + sizeof(dev), &m->ino, sizeof(m->ino));
	}
	if (m->build_id_len) {
		o->key_bid[0] = 'B';
		memcpy(o->key_bid + 1, m->build_id, m->build_id_len);
		o->key_bid_len = 1 + m->build_id_len;
	}
	o->key_path = m->path;
}

static struct elfobj *obj_get(struct lfr_sym *sym, const void *key, size_t len)
{
	struct hashtab_slot *s = hashtab_get_bytes(&sym->objs, key, len);

	return s ? (struct elfobj *)(uintptr_t)s->v : NULL;
}

struct obj_key {
	const void *p;
	size_t len;
};

/*
 * The keys o is entered under: its file's device and inode, its build-id, and its path only
 * when it has neither.  Looking an object up, registering and dropping it go by this list.
 */
static size_t obj_keys(const struct elfobj *o, struct obj_key keys[2])
{
	size_t n = 0;

	if (o->key_dev[0])
		keys[n++] = (struct obj_key){o->key_dev, sizeof(o->key_dev)};
	if (o->key_bid_len)
		keys[n++] = (struct obj_key){o->key_bid, o->key_bid_len};
	if (!n)
		keys[n++] = (struct obj_key){o->key_path, strlen(o->key_path)};
	return n;
}

static struct elfobj *obj_lookup(struct lfr_sym *sym, const struct elfobj *keys)
{
	struct obj_key k[2];
	size_t n = obj_keys(keys, k);
	struct elfobj *o = NULL;

	for (size_t i = 0; i < n && !o; i++)
		o = obj_get(sym, k[i].p, k[i].len);
	return o;
}

/* Enters (or replaces) key -> o; key belongs to o. */
static int obj_put(struct lfr_sym *sym, const void *key, size_t len, struct elfobj *o)
{
	bool fresh;
	struct hashtab_slot *s = hashtab_put_bytes(&sym->objs, key, len, &fresh);

	if (!s)
		return -ENOMEM;
	s->b = (uint64_t)(uintptr_t)key;
	s->v = (uint64_t)(uintptr_t)o;
	return 0;
}

static int obj_register(struct lfr_sym *sym, struct elfobj *o)
{
	struct obj_key keys[2];
	size_t n = obj_keys(o, keys);
	int err = 0;

	for (size_t i = 0; i < n && !err; i++)
		err = obj_put(sym, keys[i].p, keys[i].len, o);
	return err;
}

static void obj_reset(struct elfobj *o)
{
	elfobj_fini(o);
	o->segs = NULL;
	o->nsegs = 0;
	memset(&o->syms, 0, sizeof(o->syms));
	o->debug_path = NULL;
	o->build_id_len = 0;
	o->ok = false;
	o->file_path = NULL;
	o->cfi = NULL;
	o->image = NULL;
}

/*
 * Opens the file of a mapping: its path, the path inside the process's root (other mount
 * namespaces), then /proc/PID/map_files.  A file whose device/inode differs from the mapping's
 * (replaced since) is refused unless its build-id proves it is the same object.  Only regular
 * files are opened (lib/regular_file.h): a path may name a FIFO or a device.  A mapping of no
 * process (pid 0: an object a recording names, for lfr report) has no device/inode: its file is
 * trusted only by the build-id the recording gives, so without one it is not read at all (any
 * local file of that path could be another build, its names wrong).
 */
static bool obj_open(struct lfr_sym *sym, struct elfobj *o, const struct mapping *m, uint32_t pid)
{
	char cand[3][PATH_MAX];
	int ncand = 0, map_files = -1;

	if (!pid && !m->build_id_len) {
		static const char why[] =
		    "the recording gives no build-id for it, so no local file "
		    "can be known to be the one recorded: its frames stay "
		    "addresses";

		o->unnamed_why = strpool_intern(&sym->pool, why, sizeof(why) - 1);
		return false;
	}
	snprintf(cand[ncand++], PATH_MAX, "%s", m->path);
	if (pid && snprintf(cand[ncand], PATH_MAX, "%s/%" PRIu32 "/root%s", sym->proc_dir, pid,
	                    m->path) < PATH_MAX)
		ncand++;
	if (pid) {
		map_files = ncand;
		snprintf(cand[ncand++], PATH_MAX, "%s/%" PRIu32 "/map_files/%" PRIx64 "-%" PRIx64,
		         sym->proc_dir, pid, m->start, m->end);
	}
	for (int i = 0; i < ncand; i++) {
		struct stat st;
		int fd = lfr_open_regular(cand[i], O_RDONLY, &st);
		int err;

		if (fd < 0)
			continue;
		if ((m->dev || m->ino) && (st.st_dev != m->dev || st.st_ino != m->ino) &&
		    !m->build_id_len) {
			close(fd);
			continue;
		}
		/* Debug links are looked for next to the file's name, not the link's. */
		err = elfobj_load_fd(&sym->env, o, fd, i == map_files ? m->path : cand[i],
		                     m->build_id, m->build_id_len);
		close(fd);
		if (!err) {
			o->file_path = strpool_intern(&sym->pool, cand[i], strlen(cand[i]));
			o->file_dev = st.st_dev;
			o->file_ino = st.st_ino;
			return true;
		}
		obj_reset(o);
	}
	if (m->build_id_len && !elfobj_load_by_build_id(&sym->env, o, m->build_id, m->build_id_len))
		return true;
	obj_reset(o);
	return false;
}

struct elfobj *sym_mapping_obj(struct lfr_sym *sym, struct proc *p, struct mapping *m)
{
	struct elfobj keys = {0}, *o;

	if (m->bound)
		return m->obj;
	m->bound = true;
	if (!m->path)
		return NULL;
	if (m->path == sym->s_vdso)
		return m->obj = vdso_obj(sym, p, m);
	if (m->path[0] != '/')
		return NULL;
	obj_set_keys(&keys, m);
	o = obj_lookup(sym, &keys);
	if (o && !o->path) {
		/* preloaded (lfr_sym_preload_object()): named as its first mapping has it */
		o->path = m->path;
		o->name = m->name;
		sym->st.objects++;
	}
	if (o)
		return m->obj = o;
	o = malloc(sizeof(*o));
	if (!o)
		return NULL;
	*o = keys;
	o->path = m->path;
	o->name = m->name;
	if (obj_open(sym, o, m, p->pid)) {
		sym->st.objects++;
	} else {
		sym->st.objects_failed++;
	}
	if (obj_register(sym, o)) {
		elfobj_fini(o);
		free(o);
		return NULL;
	}
	o->next = sym->obj_list;
	sym->obj_list = o;
	sym->nobjs++;
	return m->obj = o;
}

int lfr_sym_preload_object(struct lfr_sym *sym, const char *path)
{
	struct mapping m = {0};
	struct elfobj *o;
	struct stat st;
	int fd = lfr_open_regular(path, O_RDONLY, &st), err;

	if (fd < 0)
		return fd;
	m.dev = st.st_dev;
	m.ino = st.st_ino;
	m.path = strpool_intern(&sym->pool, path, strlen(path));
	o = calloc(1, sizeof(*o));
	if (!m.path || !o) {
		free(o);
		close(fd);
		return -ENOMEM;
	}
	obj_set_keys(o, &m);
	if (obj_lookup(sym, o)) {
		free(o);
		close(fd);
		return 0;
	}
	/* Not registered when it cannot be read: a mapping tries its own ways then. */
	err = elfobj_load_fd(&sym->env, o, fd, path, NULL, 0);
	close(fd);
	if (err) {
		elfobj_fini(o);
		free(o);
		return err;
	}
	o->file_path = m.path;
	o->file_dev = st.st_dev;
	o->file_ino = st.st_ino;
	if (o->build_id_len) {
		o->key_bid[0] = 'B';
		memcpy(o->key_bid + 1, o->build_id, o->build_id_len);
		o->key_bid_len = 1 + o->build_id_len;
	}
	err = obj_register(sym, o);
	if (err) {
		elfobj_fini(o);
		free(o);
		return err;
	}
	o->next = sym->obj_list;
	sym->obj_list = o;
	sym->nobjs++;
	return 0;
}

/* Sweeps are this many forgotten processes apart at least. */
#define OBJS_SWEEP_MIN 64

static void obj_drop_key(struct lfr_sym *sym, const void *key, size_t len, const struct elfobj *o)
{
	struct hashtab_slot *s = hashtab_get_bytes(&sym->objs, key, len);

	if (s && s->v == (uint64_t)(uintptr_t)o) /* (a later object may have taken the key) */
		hashtab_del(&sym->objs, s);
}

/*
 * An object stays while a known process maps it, or when it was read before any did
 * (lfr_sym_preload_object()); the others go with their symbols and unwind rules, and a process
 * that maps the file again reads it again.  Without this, a machine that keeps running new
 * builds (a build or CI host, containers of new images) grew by every object it ever ran.
 *
 * A sweep marks what every known process maps, so it waits for half as many forgotten processes
 * as there are known ones (and 64): linear in the processes.  And it waits for an object read
 * since the last one: until then the objects are no more than it kept.  Nothing else holds an
 * object: frames hold interned strings, and the results cached for a process carry its serial,
 * which changes when a mapping goes and never comes back once it is forgotten.
 */
void sym_objects_check(struct lfr_sym *sym)
{
	struct elfobj **pp = &sym->obj_list;
	size_t kept = 0;

	if (++sym->forgotten < OBJS_SWEEP_MIN || 2 * sym->forgotten < sym->procs.n ||
	    sym->nobjs <= sym->objs_kept)
		return;
	sym->forgotten = 0;
	for (struct hashtab_slot *s = NULL; (s = hashtab_next(&sym->procs, s));) {
		const struct proc *p = (const struct proc *)(uintptr_t)s->v;

		for (size_t i = 0; i < p->n; i++)
			if (p->maps[i].obj)
				p->maps[i].obj->in_use = true;
	}
	while (*pp) {
		struct elfobj *o = *pp;
		struct obj_key keys[2];
		size_t n;

		if (o->in_use || !o->path) {
			o->in_use = false;
			pp = &o->next;
			kept++;
			continue;
		}
		*pp = o->next;
		n = obj_keys(o, keys);
		for (size_t i = 0; i < n; i++)
			obj_drop_key(sym, keys[i].p, keys[i].len, o);
		elfobj_fini(o);
		free(o);
		sym->st.objects_freed++;
	}
	hashtab_shrink_sparse(&sym->objs);
	sym->nobjs = sym->objs_kept = kept;
}
