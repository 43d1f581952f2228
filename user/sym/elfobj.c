// SPDX-License-Identifier: GPL-2.0
/*
 * ELF objects: PT_LOAD segments (to turn file offsets into ELF virtual addresses) and function
 * symbols from .symtab, else from a separate debug file (by build-id, then by .gnu_debuglink),
 * else from .dynsym.  Everything needed later is copied out, so no file stays open.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <gelf.h>
#include <libelf.h>
#include <zlib.h>

#include "lib/regular_file.h"
#include "sym/internal.h"
#include "sym/sym_cache.h"

struct sec {
	uint64_t addr, size;
	bool exec;
};

static int read_segments(struct elfobj *o, Elf *e)
{
	size_t n;

	if (elf_getphdrnum(e, &n))
		return -EINVAL;
	free(o->segs);
	o->segs = calloc(n ? n : 1, sizeof(*o->segs));
	o->nsegs = 0;
	o->eh_frame_hdr = false;
	if (!o->segs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph))
			continue;
		o->eh_frame_hdr |= ph.p_type == PT_GNU_EH_FRAME;
		if (ph.p_type != PT_LOAD)
			continue;
		o->segs[o->nsegs++] = (struct elf_seg){
		    .vaddr = ph.p_vaddr,
		    .offset = ph.p_offset,
		    .filesz = ph.p_filesz,
		    .exec = ph.p_flags & PF_X,
		};
	}
	return 0;
}

static struct sec *read_sections(Elf *e, size_t *nsec)
{
	struct sec *secs;
	size_t n;

	if (elf_getshdrnum(e, &n) || !n)
		return NULL;
	secs = calloc(n, sizeof(*secs));
	if (!secs)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		Elf_Scn *scn = elf_getscn(e, i);
		GElf_Shdr sh;

		if (!scn || !gelf_getshdr(scn, &sh))
			continue;
		secs[i] = (struct sec){sh.sh_addr, sh.sh_size, (sh.sh_flags & SHF_EXECINSTR) != 0};
	}
	*nsec = n;
	return secs;
}

/*
 * Adds the code symbols of the first section of the given type (SHT_SYMTAB or SHT_DYNSYM).
 * Returns the number added, or a negative errno; 0 when there is no such section.
 */
static long read_symbols(struct elfobj *o, Elf *e, Elf64_Word type)
{
	struct sec *secs;
	size_t nsec = 0;
	Elf_Scn *scn = NULL;
	long added = 0;

	secs = read_sections(e, &nsec);
	if (!secs)
		return 0;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		size_t count;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			break;
		count = sh.sh_size / sh.sh_entsize;
		for (size_t i = 1; i < count; i++) {
			GElf_Sym s;
			const char *name, *at;
			int st_type;
			uint8_t flags;
			int err;

			if (!gelf_getsym(data, (int)i, &s))
				continue;
			st_type = GELF_ST_TYPE(s.st_info);
			if (s.st_shndx == SHN_UNDEF || s.st_shndx >= nsec || !s.st_value)
				continue;
			if (!secs[s.st_shndx].exec)
				continue;
			if (st_type != STT_FUNC && st_type != STT_GNU_IFUNC &&
			    st_type != STT_NOTYPE)
				continue;
			name = elf_strptr(e, sh.sh_link, s.st_name);
			if (!name || !*name || name[0] == '$' || !strncmp(name, ".L", 2))
				continue;
			/*
			 * "name@@VERSION" (the default version) and "name@VERSION" (an old one,
			 * named only if nothing else is) both show as name.
			 */
			at = strchr(name + 1, '@');
			flags = GELF_ST_BIND(s.st_info) != STB_LOCAL ? SYMF_GLOBAL : 0;
			err = symtab_add(&o->syms, s.st_value, s.st_size,
			                 secs[s.st_shndx].addr + secs[s.st_shndx].size, name,
			                 at ? (size_t)(at - name) : strlen(name), 0,
			                 at && at[1] != '@' ? flags | SYMF_VERSIONED : flags);
			if (err) {
				free(secs);
				return err;
			}
			added++;
		}
		break;
	}
	free(secs);
	return added;
}

static bool has_section(Elf *e, Elf64_Word type)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			return true;
	}
	return false;
}

static size_t get_build_id(Elf *e, uint8_t *buf, size_t cap)
{
	const void *p;
	ssize_t n = dwelf_elf_gnu_build_id(e, &p);

	if (n <= 0 || (size_t)n > cap)
		return 0;
	memcpy(buf, p, n);
	return n;
}

/* A debug file is usable when it is an ELF file with a .symtab and the expected identity. */
struct debug_file {
	int fd;
	Elf *elf;
	char path[PATH_MAX];
};

static void debug_close(struct debug_file *d)
{
	if (d->elf)
		elf_end(d->elf);
	if (d->fd >= 0)
		close(d->fd);
	d->elf = NULL;
	d->fd = -1;
}

static uint32_t file_crc32(int fd)
{
	unsigned char buf[65536];
	uLong crc = crc32(0, Z_NULL, 0);
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		crc = crc32(crc, buf, (uInt)n);
	return (uint32_t)crc;
}

/*
 * Opens a candidate debug file.  It must differ from the object itself (same_as) and match the
 * build-id when one is known (bid_len), else the debuglink CRC (check_crc).
 */
static bool debug_try(struct debug_file *d, const struct stat *same_as, const uint8_t *bid,
                      size_t bid_len, bool check_crc, uint32_t crc)
{
	struct stat st;
	uint8_t got[64];
	size_t got_len;

	/* the name comes from the object's .gnu_debuglink or its path: a regular file only */
	d->fd = lfr_open_regular(d->path, O_RDONLY, &st);
	if (d->fd < 0) {
		d->fd = -1;
		return false;
	}
	if (same_as && st.st_dev == same_as->st_dev && st.st_ino == same_as->st_ino)
		goto fail;
	d->elf = elf_begin(d->fd, ELF_C_READ, NULL); /* read, not mapped: see elfobj_load_fd() */
	if (!d->elf || elf_kind(d->elf) != ELF_K_ELF || !has_section(d->elf, SHT_SYMTAB))
		goto fail;
	got_len = get_build_id(d->elf, got, sizeof(got));
	if (bid_len && got_len) {
		if (got_len == bid_len && !memcmp(got, bid, bid_len))
			return true;
		goto fail;
	}
	if (bid_len && !check_crc)
		goto fail;
	if (check_crc && file_crc32(d->fd) != crc)
		goto fail;
	return true;
fail:
	debug_close(d);
	return false;
}

/* Iterates the ':'-separated debug roots; returns false at the end. */
static bool next_dir(const char **cursor, char *out, size_t cap)
{
	const char *s = *cursor, *colon;
	size_t len;

	while (*s == ':')
		s++;
	if (!*s)
		return false;
	colon = strchr(s, ':');
	len = colon ? (size_t)(colon - s) : strlen(s);
	*cursor = s + len;
	if (len >= cap)
		len = cap - 1;
	memcpy(out, s, len);
	out[len] = '\0';
	return true;
}

static bool find_by_build_id(const struct elfobj_env *env, struct debug_file *d,
                             const struct stat *same_as, const uint8_t *bid, size_t len)
{
	const char *cursor = env->debug_dirs;
	char dir[PATH_MAX], hex[2 * 64 + 1];

	if (len < 2)
		return false;
	for (size_t i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", bid[i]);
	while (next_dir(&cursor, dir, sizeof(dir))) {
		if (snprintf(d->path, sizeof(d->path), "%s/.build-id/%.2s/%s.debug", dir, hex,
		             hex + 2) >= (int)sizeof(d->path))
			continue;
		if (debug_try(d, same_as, bid, len, false, 0))
			return true;
	}
	return false;
}

/* GDB's order: next to the object, in .debug/ beside it, then under each debug root. */
static bool find_by_debuglink(const struct elfobj_env *env, struct debug_file *d,
                              const struct stat *same_as, Elf *e, const char *open_path,
                              const uint8_t *bid, size_t bid_len)
{
	GElf_Word crc = 0;
	const char *link = dwelf_elf_gnu_debuglink(e, &crc);
	const char *cursor = env->debug_dirs;
	const char *slash = strrchr(open_path, '/');
	char root[PATH_MAX];
	int dlen;

	if (!link || !*link || strchr(link, '/') || !slash)
		return false;
	dlen = (int)(slash - open_path);
	if (snprintf(d->path, sizeof(d->path), "%.*s/%s", dlen, open_path, link) <
	        (int)sizeof(d->path) &&
	    debug_try(d, same_as, bid, bid_len, true, crc))
		return true;
	if (snprintf(d->path, sizeof(d->path), "%.*s/.debug/%s", dlen, open_path, link) <
	        (int)sizeof(d->path) &&
	    debug_try(d, same_as, bid, bid_len, true, crc))
		return true;
	while (next_dir(&cursor, root, sizeof(root))) {
		if (snprintf(d->path, sizeof(d->path), "%s%.*s/%s", root, dlen, open_path, link) <
		        (int)sizeof(d->path) &&
		    debug_try(d, same_as, bid, bid_len, true, crc))
			return true;
	}
	return false;
}

/*
 * Last: the debuginfod servers, when the symbolizer was asked to use them.  Sets *why when no
 * usable debug file came back.
 */
static bool find_by_debuginfod(const struct elfobj_env *env, struct debug_file *d,
                               const struct stat *same_as, const uint8_t *bid, size_t len,
                               const char **why)
{
	struct sym_debuginfod **dbgi = env->dbgi;

	if (!dbgi) {
		*why =
		    "no .symtab and no debug file (by build-id or .gnu_debuglink); debuginfod not "
		    "asked";
		return false;
	}
	if (sym_debuginfod_fetch(dbgi, bid, len, d->path, sizeof(d->path))) {
		*why = sym_debuginfod_why(*dbgi);
		return false;
	}
	if (debug_try(d, same_as, bid, len, false, 0))
		return true;
	*why = "the debuginfod servers' debug file has no .symtab or another build-id";
	return false;
}

static Elf_Scn *section_named(Elf *e, size_t shstrndx, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(e, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/*
 * Names the PLT stubs of x86 objects "function@plt", as binutils and perf do: entry k of .plt.sec
 * (or entry k + 1 of .plt, after the resolver stub) jumps through the GOT slot of relocation k
 * of .rela.plt (.rel.plt on i386), whose symbol names the function.  Returns the number added.
 */
static long read_plt(struct elfobj *o, Elf *e)
{
	GElf_Shdr rsh, psh, dsh;
	Elf_Scn *rscn, *pscn, *dscn;
	Elf_Data *rdata, *ddata;
	GElf_Ehdr eh;
	size_t shstrndx, nrel, first = 0, entsize = 16;
	long added = 0;
	bool rela;

	if (!gelf_getehdr(e, &eh) || (eh.e_machine != EM_X86_64 && eh.e_machine != EM_386) ||
	    elf_getshdrstrndx(e, &shstrndx))
		return 0;
	rela = eh.e_machine == EM_X86_64;
	rscn = section_named(e, shstrndx, rela ? ".rela.plt" : ".rel.plt", &rsh);
	pscn = section_named(e, shstrndx, ".plt.sec", &psh);
	if (!pscn) {
		pscn = section_named(e, shstrndx, ".plt", &psh);
		first = 1;
	}
	if (!rscn || !pscn || rsh.sh_type != (rela ? SHT_RELA : SHT_REL) || !rsh.sh_entsize ||
	    psh.sh_type == SHT_NOBITS)
		return 0;
	dscn = elf_getscn(e, rsh.sh_link);
	if (!dscn || !gelf_getshdr(dscn, &dsh) || dsh.sh_type == SHT_NOBITS)
		return 0;
	rdata = elf_getdata(rscn, NULL);
	ddata = elf_getdata(dscn, NULL);
	if (!rdata || !ddata || !rdata->d_buf || !ddata->d_buf)
		return 0;
	if (psh.sh_entsize >= 8)
		entsize = psh.sh_entsize;
	nrel = rsh.sh_size / rsh.sh_entsize;
	for (size_t k = 0; k < nrel && (first + k + 1) * entsize <= psh.sh_size; k++) {
		char name[512];
		const char *fn;
		GElf_Rela r;
		GElf_Rel rl;
		GElf_Sym s;
		uint64_t info;
		int err;

		if (rela ? !gelf_getrela(rdata, (int)k, &r) : !gelf_getrel(rdata, (int)k, &rl))
			continue;
		info = rela ? r.r_info : rl.r_info;
		/* IRELATIVE slots have no symbol: their stub stays unnamed. */
		if (!GELF_R_SYM(info) || !gelf_getsym(ddata, (int)GELF_R_SYM(info), &s))
			continue;
		fn = elf_strptr(e, dsh.sh_link, s.st_name);
		if (!fn || !*fn)
			continue;
		snprintf(name, sizeof(name), "%s@plt", fn);
		err = symtab_add(&o->syms, psh.sh_addr + (first + k) * entsize, entsize, 0, name,
		                 strlen(name), 0, 0);
		if (err)
			return err;
		added++;
	}
	return added;
}

/* A problem with the cache's file, counted and the first one kept. */
static void cache_problem(const struct elfobj_env *env, const char *why)
{
	if (why[0] && !env->cache_st->problems++)
		snprintf(env->cache_st->first_problem, sizeof(env->cache_st->first_problem), "%s",
		         why);
}

static int load_symbols(const struct elfobj_env *env, struct elfobj *o, Elf *e,
                        const struct stat *st, const char *open_path)
{
	struct debug_file d = {.fd = -1};
	const char *why = NULL;
	bool own = has_section(e, SHT_SYMTAB), dbg = false;
	/* kept by build-id, for recording: not with debuginfod (whose answer may come later) */
	bool cached = env->cache && st && o->build_id_len && !env->dbgi;
	struct stat dst;
	char cwhy[256];
	long n = 0;

	if (!own)
		dbg = (o->build_id_len &&
		       find_by_build_id(env, &d, st, o->build_id, o->build_id_len)) ||
		      (open_path && find_by_debuglink(env, &d, st, e, open_path, o->build_id,
		                                      o->build_id_len)) ||
		      find_by_debuginfod(env, &d, st, o->build_id, o->build_id_len, &why);
	if (dbg && fstat(d.fd, &dst))
		cached = false;
	if (cached && sym_cache_load(env->cache, o, (uint64_t)st->st_size, dbg ? &dst : NULL, cwhy,
	                             sizeof(cwhy))) {
		env->cache_st->read++;
		if (dbg) {
			o->debug_path = strpool_intern(env->pool, d.path, strlen(d.path));
			(*env->debug_files)++;
		}
		debug_close(&d);
		return 0;
	}
	if (cached)
		cache_problem(env, cwhy);
	if (own) {
		n = read_symbols(o, e, SHT_SYMTAB);
	} else if (dbg) {
		n = read_symbols(o, d.elf, SHT_SYMTAB);
		if (n >= 0) {
			o->debug_path = strpool_intern(env->pool, d.path, strlen(d.path));
			(*env->debug_files)++;
		}
	}
	debug_close(&d);
	if (why)
		o->unnamed_why = strpool_intern(env->pool, why, strlen(why));
	/* Exported names still help when the debug symbols are missing or empty. */
	if (n == 0)
		n = read_symbols(o, e, SHT_DYNSYM);
	if (n >= 0)
		n = read_plt(o, e);
	if (n < 0)
		return (int)n;
	symtab_finish(&o->syms);
	if (cached && o->syms.n) {
		if (sym_cache_store(env->cache, o, (uint64_t)st->st_size, dbg ? &dst : NULL, cwhy,
		                    sizeof(cwhy)))
			cache_problem(env, cwhy);
		else
			env->cache_st->stored++;
	}
	return 0;
}

static int load_elf(const struct elfobj_env *env, struct elfobj *o, Elf *e, const struct stat *st,
                    const char *open_path, const uint8_t *want, size_t want_len)
{
	GElf_Ehdr eh;
	int err;

	if (elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh))
		return -ENOEXEC;
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
		return -ENOEXEC;
	o->build_id_len = get_build_id(e, o->build_id, sizeof(o->build_id));
	if (want_len && (o->build_id_len != want_len || memcmp(o->build_id, want, want_len)))
		return -ESTALE;
	err = read_segments(o, e);
	if (err)
		return err;
	return load_symbols(env, o, e, st, open_path);
}

int elfobj_load_fd(const struct elfobj_env *env, struct elfobj *o, int fd, const char *open_path,
                   const uint8_t *want, size_t want_len)
{
	struct stat st;
	Elf *e;
	int err;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -ENOEXEC;
	/*
	 * Read with pread, not mapped: a file cut while it is read (a library an upgrade truncates,
	 * a debug file rewritten) is then an error, not SIGBUS on the first page past its new end.
	 */
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e)
		return -ENOEXEC;
	err = load_elf(env, o, e, &st, open_path, want, want_len);
	elf_end(e);
	if (!err) {
		o->ok = true;
		o->file_size = (uint64_t)st.st_size;
		o->cache = env->cache;
		o->cache_st = env->cache_st;
	}
	return err;
}

int elfobj_load_by_build_id(const struct elfobj_env *env, struct elfobj *o, const uint8_t *bid,
                            size_t len)
{
	struct debug_file d = {.fd = -1};
	const char *why = NULL;
	long n;

	if (len > sizeof(o->build_id))
		return -ENOENT;
	if (!find_by_build_id(env, &d, NULL, bid, len) &&
	    !find_by_debuginfod(env, &d, NULL, bid, len, &why)) {
		o->unnamed_why = strpool_intern(env->pool, why, strlen(why));
		return -ENOENT;
	}
	memcpy(o->build_id, bid, len);
	o->build_id_len = len;
	n = read_segments(o, d.elf);
	if (!n)
		n = read_symbols(o, d.elf, SHT_SYMTAB);
	debug_close(&d);
	if (n < 0)
		return (int)n;
	symtab_finish(&o->syms);
	/* Debug files keep the program headers but not the file offsets: see elfobj_vaddr. */
	o->debug_only = true;
	o->debug_path = strpool_intern(env->pool, d.path, strlen(d.path));
	(*env->debug_files)++;
	o->ok = true;
	return 0;
}

int elfobj_load_mem(const struct elfobj_env *env, struct elfobj *o, const void *image, size_t size)
{
	char *copy = malloc(size);
	Elf *e;
	int err = -ENOEXEC;

	if (!copy)
		return -ENOMEM;
	memcpy(copy, image, size);
	e = elf_memory(copy, size);
	if (e) {
		err = load_elf(env, o, e, NULL, NULL, NULL, 0);
		elf_end(e);
	}
	if (err) {
		free(copy);
		return err;
	}
	/* Kept: its CFI is read from it when a sample's pc lies in it. */
	o->image = copy;
	o->image_len = size;
	o->ok = true;
	return 0;
}

bool elfobj_vaddr(const struct elfobj *o, uint64_t rel, uint64_t pgoff, uint64_t *vaddr)
{
	const struct elf_seg *best = NULL;
	uint64_t off = rel + pgoff;

	if (o->debug_only) {
		/*
		 * A debug file's program headers keep p_vaddr but not p_offset.  The kernel maps
		 * a segment from the page holding p_vaddr, so with a single executable segment the
		 * mapping starts at that page; otherwise assume the usual vaddr == offset layout.
		 */
		const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

		for (size_t i = 0; i < o->nsegs; i++) {
			if (!o->segs[i].exec)
				continue;
			if (best) {
				*vaddr = off;
				return true;
			}
			best = &o->segs[i];
		}
		*vaddr = best ? rel + (best->vaddr & ~(page - 1)) : off;
		return true;
	}
	for (size_t i = 0; i < o->nsegs; i++) {
		const struct elf_seg *s = &o->segs[i];

		if (off < s->offset || off - s->offset >= s->filesz)
			continue;
		if (!best || (s->exec && !best->exec))
			best = s;
	}
	if (!best)
		return false;
	*vaddr = off - best->offset + best->vaddr;
	return true;
}

void elfobj_fini(struct elfobj *o)
{
	free(o->segs);
	symtab_fini(&o->syms);
	cfi_free(o->cfi);
	cfi_memo_free(o->cfi_memo);
	leaf_table_free(o);
	free(o->image);
}
