// SPDX-License-Identifier: GPL-2.0
/* Finding otel_thread_ctx_v1 in an object file (tls_var.h), with libelf. */
#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <gelf.h>
#include <linux/lfr.h>

#include "sym/tls_var.h"

#ifndef DF_1_PIE
#define DF_1_PIE 0x08000000
#endif

/* The access kind of a relocation type of machine m that names the symbol; 0: none of them. */
static uint32_t access_of(uint16_t m, uint32_t type)
{
	if (m == EM_X86_64) {
		switch (type) {
		case R_X86_64_TLSDESC:
			return LFR_CTX_ACCESS_TLSDESC;
		case R_X86_64_DTPMOD64:
			return LFR_CTX_ACCESS_DTV_SLOT;
		case R_X86_64_TPOFF64:
			return LFR_CTX_ACCESS_TPOFF_SLOT;
		}
	} else if (m == EM_AARCH64) {
		switch (type) {
		case R_AARCH64_TLSDESC:
			return LFR_CTX_ACCESS_TLSDESC;
		case R_AARCH64_TLS_DTPMOD:
			return LFR_CTX_ACCESS_DTV_SLOT;
		case R_AARCH64_TLS_TPREL:
			return LFR_CTX_ACCESS_TPOFF_SLOT;
		}
	}
	return 0;
}

/* Whether the model is one a reader must prefer: the one the object's code itself uses. */
static int rank(uint32_t access)
{
	return access == LFR_CTX_ACCESS_TLSDESC      ? 3
	       : access == LFR_CTX_ACCESS_DTV_SLOT   ? 2
	       : access == LFR_CTX_ACCESS_TPOFF_SLOT ? 1
	                                             : 0;
}

/* The dynamic symbol's index and value, or 0 when the object does not define it. */
static size_t find_symbol(Elf *e, Elf_Scn **dynsym, GElf_Sym *out)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e, scn))) {
		Elf_Data *d;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 1; d && i < n; i++) {
			GElf_Sym s;
			const char *name;

			if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF)
				continue;
			name = elf_strptr(e, sh.sh_link, s.st_name);
			if (name && !strcmp(name, LFR_TLS_CTX_SYMBOL)) {
				*dynsym = scn;
				*out = s;
				return i;
			}
		}
	}
	return 0;
}

/* The best relocation that names symbol index sym in the relocation sections of dynsym. */
static void find_reloc(Elf *e, uint16_t m, Elf_Scn *dynsym, size_t sym, struct lfr_tls_var *v)
{
	size_t dynsym_idx = elf_ndxscn(dynsym);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e, scn))) {
		Elf_Data *d;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || sh.sh_link != dynsym_idx ||
		    !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; d && i < n; i++) {
			GElf_Rela r;
			uint32_t a;

			if (!gelf_getrela(d, (int)i, &r) || GELF_R_SYM(r.r_info) != sym)
				continue;
			a = access_of(m, (uint32_t)GELF_R_TYPE(r.r_info));
			if (a && rank(a) > rank(v->access)) {
				v->access = a;
				v->slot_vaddr = r.r_offset;
			}
		}
	}
}

/* ET_EXEC, or a PIE (DF_1_PIE, or an interpreter for the old toolchains that set no flag). */
static bool is_executable(Elf *e, const GElf_Ehdr *eh, bool interp)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (eh->e_type == ET_EXEC)
		return true;
	while ((scn = elf_nextscn(e, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;

			if (gelf_getdyn(d, (int)i, &dyn) && dyn.d_tag == DT_FLAGS_1)
				return (dyn.d_un.d_val & DF_1_PIE) != 0;
		}
	}
	return interp;
}

static uint64_t round_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

/*
 * The local-exec offset the linker gave the executable's own code: x86-64 (TLS variant II) puts
 * the executable's block right below the thread pointer, its size rounded up to its alignment;
 * arm64 (variant I) right above the 16-byte thread control block, rounded up likewise.
 */
static int static_offset(uint16_t m, const GElf_Phdr *tls, uint64_t value, int64_t *off)
{
	uint64_t align = tls->p_align ? tls->p_align : 1;

	if (m == EM_X86_64)
		*off = (int64_t)(value - round_up(tls->p_memsz, align));
	else if (m == EM_AARCH64)
		*off = (int64_t)(round_up(16, align) + value);
	else
		return -1;
	return 0;
}

/*
 * Whether the 64-bit object at fd may have a PT_TLS segment, from its program headers read
 * directly: false only when it surely has none, as most objects (a thread-local variable needs
 * one).  Those are not opened with libelf, whose mapping and unmapping of the whole file take the
 * process's mmap lock for writing against the recorder's other threads.
 */
static bool may_have_tls(int fd)
{
	Elf64_Phdr ph[64];
	Elf64_Ehdr eh;
	size_t n;

	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] !=
	        (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB) ||
	    eh.e_phentsize != sizeof(ph[0]) || eh.e_phnum > sizeof(ph) / sizeof(ph[0]))
		return true; /* libelf tells what it is */
	n = eh.e_phnum;
	if (pread(fd, ph, n * sizeof(ph[0]), (off_t)eh.e_phoff) != (ssize_t)(n * sizeof(ph[0])))
		return true;
	for (size_t i = 0; i < n; i++)
		if (ph[i].p_type == PT_TLS)
			return true;
	return false;
}

static int fail(char *why, size_t n, const char *msg)
{
	snprintf(why, n, "%s", msg);
	return -1;
}

int lfr_tls_var_find(int fd, struct lfr_tls_var *v, char *why, size_t whylen)
{
	GElf_Phdr tls = {0};
	bool has_tls = false, interp = false;
	Elf_Scn *dynsym = NULL;
	GElf_Ehdr eh;
	GElf_Sym sym;
	size_t nph = 0, idx;
	Elf *e;
	int ret = 0;

	memset(v, 0, sizeof(*v));
	if (!may_have_tls(fd))
		return 0;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e)
		return fail(why, whylen, elf_errmsg(-1));
	if (!gelf_getehdr(e, &eh) || elf_getphdrnum(e, &nph)) {
		ret = fail(why, whylen, "not an ELF object");
		goto out;
	}
	v->machine = eh.e_machine;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph))
			continue;
		if (ph.p_type == PT_TLS) {
			tls = ph;
			has_tls = true;
		} else if (ph.p_type == PT_INTERP) {
			interp = true;
		} else if (ph.p_type == PT_LOAD &&
		           v->nloads < sizeof(v->loads) / sizeof(v->loads[0])) {
			v->loads[v->nloads].vaddr = ph.p_vaddr;
			v->loads[v->nloads].offset = ph.p_offset;
			v->nloads++;
		}
	}
	idx = has_tls ? find_symbol(e, &dynsym, &sym) : 0;
	if (!idx)
		goto out; /* no TLS, or not this variable */
	if (GELF_ST_TYPE(sym.st_info) != STT_TLS || sym.st_size != 8) {
		ret = fail(why, whylen,
		           LFR_TLS_CTX_SYMBOL " is not an 8-byte thread-local variable (STT_TLS)");
		goto out;
	}
	if (eh.e_machine != EM_X86_64 && eh.e_machine != EM_AARCH64) {
		ret = fail(why, whylen, "thread contexts are read on x86-64 and arm64 only");
		goto out;
	}
	v->executable = is_executable(e, &eh, interp);
	find_reloc(e, eh.e_machine, dynsym, idx, v);
	if (!v->access) {
		if (!v->executable) {
			/* local-dynamic, which OTEP 4947 leaves out: no slot names the symbol */
			ret =
			    fail(why, whylen,
			         "a library whose code reaches " LFR_TLS_CTX_SYMBOL
			         " by local-dynamic TLS, which readers do not support (OTEP 4947)");
			goto out;
		}
		v->access = LFR_CTX_ACCESS_STATIC;
		if (static_offset(eh.e_machine, &tls, sym.st_value, &v->tp_offset)) {
			ret = fail(why, whylen, "no static TLS layout for this architecture");
			goto out;
		}
	}
	ret = 1;
out:
	elf_end(e);
	return ret;
}

bool lfr_tls_var_bias(const struct lfr_tls_var *v, uint64_t start, uint64_t pgoff,
                      uint64_t page_size, uint64_t *bias)
{
	for (unsigned int i = 0; i < v->nloads; i++) {
		uint64_t off = v->loads[i].offset & ~(page_size - 1);

		if (off == pgoff) {
			*bias = start - (v->loads[i].vaddr - (v->loads[i].offset - off));
			return true;
		}
	}
	return false;
}
