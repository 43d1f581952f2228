// SPDX-License-Identifier: GPL-2.0
/*
 * Unwind tables (unwind_table.h).  The rows come from .eh_frame and, for code it does not
 * describe, .debug_frame (a program linked with C runtime objects whose only .eh_frame is theirs).
 * libdw finds and runs the CFI; what it does not expose, the
 * list of FDEs, is read with dwarf_next_cfi over the section's bytes, and each FDE's start and
 * length are decoded with the pointer encoding of its CIE.  The rows of an FDE are then read in
 * one pass over its instructions (cfi_program.h), or, for what that does not read, visited in
 * address order with libdw, dwarf_frame_info giving each row's [start, end).
 */
#include <dwarf.h>
#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <elfutils/libdw.h>
#include <gelf.h>

#include "lib/radix.h"
#include "sym/cfi_program.h"
#include "sym/cfi_rule.h"
#include "sym/unwind_table.h"

/* A row being built: file offsets [start, end) and its rule (rule.start unused). */
struct span {
	uint64_t start, end;
	unsigned int prio; /* the section it came from: the lower wins an overlap */
	struct lfr_unwind_row rule;
};

/* A CIE: its section offset, the encoding of its FDEs' addresses, its program's start. */
struct cie {
	uint64_t off;
	uint8_t enc;
	struct cfi_program_cie prog;
};

struct builder {
	Elf *elf;
	const struct cfi_regs *regs; /* its machine's */
	Dwarf_CFI *eh_cfi;           /* .eh_frame's, ended here */
	Dwarf *dw;                   /* for .debug_frame */
	/* the section being read */
	Dwarf_CFI *cfi;
	bool eh;
	bool libdw_only; /* every FDE walked by libdw (the tests' reference) */
	struct lfr_unwind_build_info info;
	bool little;         /* a little-endian object: the one-pass reading applies */
	unsigned int prio;   /* 0 for .eh_frame: it wins where both describe the same code */
	Elf_Data *data;      /* its bytes */
	uint64_t data_vaddr; /* its address, the base of pc-relative pointers */
	const unsigned char *ident;
	GElf_Phdr loads[16]; /* the PT_LOAD segments */
	size_t nloads;
	struct cie *cies;
	size_t ncies, cies_cap;
	struct span *spans;
	size_t nspans, spans_cap;
	char *err;
	size_t errlen;
};

static int fail(struct builder *b, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct builder *b, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->err, b->errlen, fmt, ap);
	va_end(ap);
	return code;
}

/* ---- FDEs ---- */

/* Bytes of a pointer of encoding enc, 0 for formats not found in x86-64 CFI. */
static size_t enc_size(uint8_t enc)
{
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		return 8;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		return 4;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		return 2;
	default:
		return 0;
	}
}

/*
 * Decodes the pointer at *p (advanced past it); field_vaddr is its own address, for pc-relative
 * ones.  With value_only the application bits are ignored (an FDE's address range).
 */
static bool read_encoded(uint8_t enc, const uint8_t **p, const uint8_t *end, uint64_t field_vaddr,
                         bool value_only, uint64_t *out)
{
	size_t n = enc_size(enc);
	uint64_t v = 0;

	if (enc == DW_EH_PE_omit || !n || (size_t)(end - *p) < n || (enc & DW_EH_PE_indirect))
		return false;
	if (n == 8) {
		memcpy(&v, *p, 8);
		v = le64toh(v);
	} else if (n == 4) {
		uint32_t u;

		memcpy(&u, *p, 4);
		u = le32toh(u);
		v = (enc & 0x0f) == DW_EH_PE_sdata4 ? (uint64_t)(int64_t)(int32_t)u : u;
	} else {
		uint16_t u;

		memcpy(&u, *p, 2);
		u = le16toh(u);
		v = (enc & 0x0f) == DW_EH_PE_sdata2 ? (uint64_t)(int64_t)(int16_t)u : u;
	}
	*p += n;
	if (value_only || (enc & 0x70) == DW_EH_PE_absptr) {
		*out = v;
		return true;
	}
	if ((enc & 0x70) == DW_EH_PE_pcrel) {
		*out = v + field_vaddr;
		return true;
	}
	return false; /* text-, data-, function-relative, aligned: not used for FDEs on x86-64 */
}

/* The encoding of the FDE addresses of a CIE: its 'R' augmentation, else absolute. */
static uint8_t cie_fde_encoding(const Dwarf_CIE *c)
{
	const char *a = c->augmentation;
	const uint8_t *d = c->augmentation_data;
	const uint8_t *end = d ? d + c->augmentation_data_size : NULL;

	if (!a || a[0] != 'z')
		return a && a[0] ? DW_EH_PE_omit : DW_EH_PE_absptr;
	for (a++; *a; a++) {
		switch (*a) {
		case 'R':
			return d && d < end ? *d : DW_EH_PE_omit;
		case 'L':
			d++;
			break;
		case 'P': {
			uint8_t penc;

			if (!d || d >= end)
				return DW_EH_PE_omit;
			penc = *d++;
			if (!enc_size(penc) || (penc & 0x70) == DW_EH_PE_aligned)
				return DW_EH_PE_omit;
			d += enc_size(penc);
			break;
		}
		case 'S':
		case 'B':
			break;
		default:
			return DW_EH_PE_omit; /* data we cannot skip */
		}
	}
	return DW_EH_PE_absptr;
}

static int cie_cmp(const void *a, const void *b)
{
	const struct cie *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* Every CIE of the section, by offset. */
static int read_cies(struct builder *b)
{
	Dwarf_Off off = 0, next;

	while (off < b->data->d_size) {
		Dwarf_CFI_Entry ent;
		int r = dwarf_next_cfi(b->ident, b->data, b->eh, off, &next, &ent);

		if (r > 0)
			break;
		if (r == 0 && dwarf_cfi_cie_p(&ent)) {
			if (b->ncies == b->cies_cap) {
				size_t cap = b->cies_cap ? 2 * b->cies_cap : 16;
				struct cie *v = realloc(b->cies, cap * sizeof(*v));

				if (!v)
					return fail(b, -ENOMEM, "out of memory");
				b->cies = v;
				b->cies_cap = cap;
			}
			struct cie *c = &b->cies[b->ncies++];

			c->off = off;
			c->enc = cie_fde_encoding(&ent.cie);
			cfi_program_cie(&ent.cie, b->regs, &c->prog);
			if (b->libdw_only || !b->little)
				c->prog.usable = false;
		}
		if (next == (Dwarf_Off)-1 || next <= off)
			break; /* the end, or an entry that cannot be skipped */
		off = next;
	}
	if (b->ncies)
		qsort(b->cies, b->ncies, sizeof(*b->cies), cie_cmp);
	return 0;
}

static const struct cie *cie_at(const struct builder *b, uint64_t off)
{
	struct cie key = {.off = off};

	if (!b->ncies)
		return NULL;
	return bsearch(&key, b->cies, b->ncies, sizeof(*b->cies), cie_cmp);
}

/* ---- rows ---- */

/* The segment holding vaddr, executable or not, or NULL. */
static const GElf_Phdr *load_of(const struct builder *b, uint64_t vaddr)
{
	for (size_t i = 0; i < b->nloads; i++)
		if (vaddr >= b->loads[i].p_vaddr &&
		    vaddr - b->loads[i].p_vaddr < b->loads[i].p_filesz)
			return &b->loads[i];
	return NULL;
}

/* The rule of the caller's frame pointer: SAME, UNDEFINED or saved at CFA + bp_off (in row). */
static bool fp_rule(const struct cfi_row *r, struct lfr_unwind_row *row)
{
	int64_t bp_off = r->fp_off;

	switch (r->fp) {
	case CFI_RULE_SAME:
		row->bp = LFR_UNWIND_BP_SAME;
		return true;
	case CFI_RULE_UNDEFINED:
		row->bp = LFR_UNWIND_BP_UNDEFINED;
		return true;
	case CFI_RULE_AT_CFA:
		if (bp_off >= 0 || bp_off % 8 || bp_off < INT16_MIN)
			return false;
		row->bp = LFR_UNWIND_BP_AT_CFA;
		row->bp_off = (int16_t)bp_off;
		return true;
	default:
		return false; /* kept in a register, or by an expression */
	}
}

/*
 * arm64's return address (x30), into the high bits of row->bp: still in x30 (a function that has
 * not saved it), at CFA - 8, right after the saved x29 (stp x29, x30), or saved alone at
 * CFA + off (with x29 not saved: its offset takes bp_off).
 */
static bool lr_rule(const struct cfi_row *r, struct lfr_unwind_row *row)
{
	int64_t off = r->ra_off;
	unsigned int rule;

	switch (r->ra) {
	case CFI_RULE_SAME:
		rule = LFR_UNWIND_RA_LR;
		break;
	case CFI_RULE_AT_CFA:
		if (off >= 0 || off % 8)
			return false;
		if (off == -8) {
			rule = LFR_UNWIND_RA_CFA_M8;
		} else if (row->bp == LFR_UNWIND_BP_AT_CFA) {
			if (off != row->bp_off + 8)
				return false;
			rule = LFR_UNWIND_RA_PAIR;
		} else {
			if (off < INT16_MIN)
				return false;
			rule = LFR_UNWIND_RA_AT_CFA;
			row->bp_off = (int16_t)off;
		}
		break;
	default:
		return false;
	}
	row->bp |= (uint8_t)(rule << LFR_UNWIND_RA_SHIFT);
	return true;
}

/*
 * The table's rule for one CFI row; NONE for anything the kernel's walk cannot follow.  x86-64:
 * the return address at CFA - 8; arm64: as lr_rule() says, and a CFA that may be sp itself where
 * nothing is pushed yet (the return address in x30).
 */
static struct lfr_unwind_row rule_of(const struct cfi_row *r, int ra_reg, bool signal,
                                     const struct cfi_regs *regs)
{
	struct lfr_unwind_row none = {.cfa = LFR_UNWIND_CFA_NONE}, row = {0};
	int64_t cfa_off = r->cfa_off, ra_off = r->ra_off;
	int cfa_reg = r->cfa_reg;

	/* a signal frame's caller is the interrupted context: its registers are elsewhere */
	if (ra_reg != regs->ra || signal)
		return none;
	switch (r->ra) {
	case CFI_RULE_UNDEFINED:
		return (struct lfr_unwind_row){.cfa = LFR_UNWIND_OUTERMOST};
	case CFI_RULE_AT_CFA:
		if (ra_off == -8 || regs->lr)
			break;
		return none;
	case CFI_RULE_SAME:
		if (regs->lr)
			break;
		return none;
	default:
		return none;
	}
	if (!r->cfa_ok || cfa_off < 0 || cfa_off % 8 || cfa_off > INT32_MAX ||
	    (!regs->lr && !cfa_off))
		return none;
	if (cfa_reg == regs->sp)
		row.cfa = LFR_UNWIND_CFA_SP;
	else if (cfa_reg == regs->fp)
		row.cfa = LFR_UNWIND_CFA_BP;
	else
		return none;
	row.cfa_off = (int32_t)cfa_off;
	if (!fp_rule(r, &row) || (regs->lr && !lr_rule(r, &row)))
		return none;
	/* below the CFA there must be room for a saved return address, unless it is in x30 */
	if (row.cfa == LFR_UNWIND_CFA_SP && cfa_off < 8 &&
	    LFR_UNWIND_RA_RULE(row.bp) != LFR_UNWIND_RA_LR)
		return none;
	return row;
}

static bool same_rule(const struct lfr_unwind_row *a, const struct lfr_unwind_row *b)
{
	return a->cfa == b->cfa && a->bp == b->bp && a->cfa_off == b->cfa_off &&
	       a->bp_off == b->bp_off;
}

/*
 * Adds the row for vaddrs [lo, hi) of segment ph, as file offsets; a row that goes on where the
 * last one of the same rule ends extends it (rows that differ only in registers the table does
 * not keep are most of an FDE's).
 */
static int add_span(struct builder *b, const GElf_Phdr *ph, uint64_t lo, uint64_t hi,
                    const struct lfr_unwind_row *rule)
{
	uint64_t seg_end = ph->p_vaddr + ph->p_filesz, start, end;
	struct span *last = b->nspans ? &b->spans[b->nspans - 1] : NULL;

	if (lo >= seg_end)
		return 0; /* not in the file's image: nothing a pc can be in */
	if (hi > seg_end)
		hi = seg_end;
	start = lo - ph->p_vaddr + ph->p_offset;
	end = hi - ph->p_vaddr + ph->p_offset;
	if (last && last->end == start && last->prio == b->prio && same_rule(&last->rule, rule)) {
		last->end = end;
		return 0;
	}
	if (2 * (b->nspans + 1) + 1 > LFR_UNWIND_MAX_ROWS) /* the table could not hold them */
		return fail(b, -EFBIG, "more than %u rows", LFR_UNWIND_MAX_ROWS);
	if (b->nspans == b->spans_cap) {
		size_t cap = b->spans_cap ? 2 * b->spans_cap : 1024;
		struct span *v = realloc(b->spans, cap * sizeof(*v));

		if (!v)
			return fail(b, -ENOMEM, "out of memory");
		b->spans = v;
		b->spans_cap = cap;
	}
	b->spans[b->nspans++] = (struct span){start, end, b->prio, *rule};
	return 0;
}

/* One row of an FDE read in one pass (cfi_program_rows). */
struct fde_run {
	struct builder *b;
	const struct cie *c;
	const GElf_Phdr *ph; /* the segment of the FDE's start */
};

static int fast_row(void *arg, uint64_t start, uint64_t end, const struct cfi_row *r)
{
	struct fde_run *f = arg;
	struct lfr_unwind_row rule = rule_of(r, f->c->prog.ra_reg, f->c->prog.signal, f->b->regs);

	return add_span(f->b, f->ph, start, end, &rule);
}

/*
 * The rows of the FDE covering [lo, hi), in address order: in one pass over its instructions
 * [p, end) where cfi_program.h can, else from libdw a row at a time.
 */
static int walk_fde(struct builder *b, const struct cie *c, const uint8_t *p, const uint8_t *p_end,
                    uint64_t lo, uint64_t hi)
{
	const GElf_Phdr *ph = load_of(b, lo);
	struct fde_run f = {b, c, ph};
	size_t mark = b->nspans;
	int ret;

	/* FDEs of code the linker discarded keep address 0: they describe nothing loaded */
	if (!ph || !(ph->p_flags & PF_X))
		return 0;
	ret = cfi_program_rows(&c->prog, b->regs, p, p_end, lo, hi, fast_row, &f);
	if (ret != CFI_PROGRAM_LIBDW) {
		b->info.fdes_one_pass++;
		return ret;
	}
	b->info.fdes_libdw++;
	b->nspans = mark;
	for (uint64_t pc = lo; pc < hi;) {
		Dwarf_Addr start, end;
		bool signal = false;
		Dwarf_Frame *fr;
		struct lfr_unwind_row rule;
		struct cfi_row r;
		int ra;

		if (dwarf_cfi_addrframe(b->cfi, pc, &fr))
			break; /* libdw does not cover the rest: a gap */
		ra = dwarf_frame_info(fr, &start, &end, &signal);
		cfi_row_of_frame(fr, b->regs, &r);
		rule = rule_of(&r, ra, signal, b->regs);
		free(fr);
		if (end <= pc)
			break; /* no progress: malformed */
		if (end > hi)
			end = hi;
		if ((ret = add_span(b, ph, pc, end, &rule)))
			return ret;
		pc = end;
	}
	return 0;
}

static int read_fdes(struct builder *b)
{
	const uint8_t *base = b->data->d_buf;
	Dwarf_Off off = 0, next;
	int ret;

	while (off < b->data->d_size) {
		Dwarf_CFI_Entry ent;
		int r = dwarf_next_cfi(b->ident, b->data, b->eh, off, &next, &ent);

		if (r > 0)
			break;
		if (r == 0 && !dwarf_cfi_cie_p(&ent)) {
			const struct cie *c = cie_at(b, ent.fde.CIE_pointer);
			const uint8_t *p = ent.fde.start;
			uint64_t lo, len;

			if (c &&
			    read_encoded(c->enc, &p, ent.fde.end,
			                 b->data_vaddr + (uint64_t)(p - base), false, &lo) &&
			    read_encoded(c->enc, &p, ent.fde.end, 0, true, &len) && len &&
			    lo + len > lo && (ret = walk_fde(b, c, p, ent.fde.end, lo, lo + len)))
				return ret;
		}
		if (next == (Dwarf_Off)-1 || next <= off)
			break;
		off = next;
	}
	return 0;
}

/* ---- the table ---- */

static int span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->prio != y->prio)
		return x->prio < y->prio ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/*
 * The spans in span_cmp() order: by start with a radix sort (lib/radix.h), then each run of one
 * start, rare (duplicate FDEs), by the rest.  glibc's merge sort of libc's 25 000 spans (in 200
 * sorted runs: the FDEs of functions' cold parts lie elsewhere) was a seventh of lfr record's
 * start-up under bench/kprofile.
 */
static void sort_spans(struct builder *b)
{
	if (!radix_sort_u64(b->spans, b->nspans, sizeof(*b->spans), offsetof(struct span, start))) {
		qsort(b->spans, b->nspans, sizeof(*b->spans), span_cmp);
		return;
	}
	for (size_t i = 1; i < b->nspans; i++) {
		struct span s = b->spans[i];
		size_t j = i;

		for (; j > 0 && b->spans[j - 1].start == s.start &&
		       span_cmp(&b->spans[j - 1], &s) > 0;
		     j--)
			b->spans[j] = b->spans[j - 1];
		b->spans[j] = s;
	}
}

static void push(struct lfr_unwind_row *rows, uint32_t *n, uint64_t start,
                 const struct lfr_unwind_row *rule)
{
	if (*n && same_rule(&rows[*n - 1], rule))
		return;
	rows[*n] = *rule;
	rows[*n].start = (uint32_t)start;
	(*n)++;
}

/*
 * The rows in offset order: a NONE row in every gap and after the last span, equal neighbours
 * merged.  Where spans overlap (duplicate FDEs, code both sections describe), the one that starts
 * first keeps its rows, .eh_frame's when they start together.
 */
static int emit(struct builder *b, struct lfr_unwind_table *t)
{
	const struct lfr_unwind_row none = {.cfa = LFR_UNWIND_CFA_NONE};
	uint64_t cur_end = 0;
	uint32_t n = 0;

	if (!b->nspans && b->errlen && b->err[0])
		return -ENODATA; /* why libdw could not read it */
	if (!b->nspans)
		return fail(b, -ENODATA,
		            "no CFI: neither .eh_frame nor .debug_frame describes its code");
	sort_spans(b);
	if (b->spans[b->nspans - 1].end > UINT32_MAX)
		return fail(b, -EFBIG,
		            "code at file offsets beyond 4 GiB: the table cannot hold it");
	if (2 * b->nspans + 1 > LFR_UNWIND_MAX_ROWS)
		return fail(b, -EFBIG, "more than %u rows", LFR_UNWIND_MAX_ROWS);
	t->rows = malloc((2 * b->nspans + 1) * sizeof(*t->rows));
	if (!t->rows)
		return fail(b, -ENOMEM, "out of memory");
	for (size_t i = 0; i < b->nspans; i++) {
		struct span s = b->spans[i];

		if (n && s.start < cur_end) {
			if (s.end <= cur_end)
				continue;
			s.start = cur_end;
		}
		if (n && s.start > cur_end)
			push(t->rows, &n, cur_end, &none);
		push(t->rows, &n, s.start, &s.rule);
		cur_end = s.end;
	}
	push(t->rows, &n, cur_end, &none);
	t->hdr.nr_rows = n;
	return 0;
}

/*
 * Reads the rows of one CFI section, if the file has it: .eh_frame (eh) or .debug_frame.  A file
 * without the section adds nothing; one libdw cannot read adds nothing and says why in err.
 */
static int read_section(struct builder *b, bool eh)
{
	Elf_Scn *scn = cfi_elf_section(b->elf, eh ? ".eh_frame" : ".debug_frame");
	GElf_Shdr sh;
	int ret;

	if (!scn)
		return 0;
	b->eh = eh;
	b->ncies = 0;
	if (eh) {
		b->cfi = b->eh_cfi = dwarf_getcfi_elf(b->elf);
	} else {
		b->dw = dwarf_begin_elf(b->elf, DWARF_C_READ, NULL);
		b->cfi = b->dw ? dwarf_getcfi(b->dw) : NULL;
	}
	if (!b->cfi) {
		fail(b, 0, "libdw cannot read its %s: %s", eh ? ".eh_frame" : ".debug_frame",
		     dwarf_errmsg(-1));
		return 0;
	}
	/* libdw decompressed the section it read for itself; the FDE list needs it too */
	if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
		return fail(b, -ENODATA, "cannot decompress its CFI: %s", elf_errmsg(-1));
	if (!gelf_getshdr(scn, &sh) || !(b->data = elf_getdata(scn, NULL)) || !b->data->d_buf)
		return fail(b, -ENODATA, "cannot read its CFI section: %s", elf_errmsg(-1));
	b->data_vaddr = sh.sh_addr;
	if ((ret = read_cies(b)) || (ret = read_fdes(b)))
		return ret;
	b->prio++;
	return 0;
}

static int read_loads(struct builder *b)
{
	size_t n;

	if (elf_getphdrnum(b->elf, &n))
		return fail(b, -ENOEXEC, "no program headers: %s", elf_errmsg(-1));
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(b->elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    b->nloads < sizeof(b->loads) / sizeof(b->loads[0]))
			b->loads[b->nloads++] = ph;
	}
	if (!b->nloads)
		return fail(b, -ENOEXEC, "no loadable segment: not a program or a shared library");
	return 0;
}

int lfr_unwind_table_build_ex(int fd, struct lfr_unwind_table *t, bool libdw_only,
                              struct lfr_unwind_build_info *info, char *err, size_t errlen)
{
	struct builder b = {.err = err, .errlen = errlen, .libdw_only = libdw_only};
	struct stat st;
	GElf_Ehdr eh;
	int ret;

	memset(t, 0, sizeof(*t));
	if (errlen)
		err[0] = '\0';
	if (fstat(fd, &st))
		return fail(&b, -errno, "fstat: %s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return fail(&b, -ENOEXEC, "not a regular file");
	elf_version(EV_CURRENT);
	/* read, not mapped: a file cut meanwhile is an error, not SIGBUS (sym/elfobj.c) */
	b.elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!b.elf || elf_kind(b.elf) != ELF_K_ELF || !gelf_getehdr(b.elf, &eh)) {
		ret = fail(&b, -ENOEXEC, "not an ELF file");
		goto out;
	}
	b.regs = cfi_regs_of(b.elf);
	if (!b.regs) {
		ret =
		    fail(&b, -ENOEXEC,
		         "not an x86-64 or arm64 object (ELF machine %u, class %u): tables are for "
		         "those only",
		         eh.e_machine, eh.e_ident[EI_CLASS]);
		goto out;
	}
	b.ident = (const unsigned char *)elf_getident(b.elf, NULL);
	b.little = b.ident && b.ident[EI_DATA] == ELFDATA2LSB;
	if ((ret = read_loads(&b)) || (ret = read_section(&b, true)) ||
	    (ret = read_section(&b, false)) || (ret = emit(&b, t)))
		goto out;
	t->hdr.magic = LFR_UNWIND_MAGIC;
	t->hdr.version = LFR_UNWIND_VERSION;
	t->hdr.ctime_sec = st.st_ctim.tv_sec;
	t->hdr.ctime_nsec = (uint32_t)st.st_ctim.tv_nsec;
out:
	if (ret) {
		free(t->rows);
		memset(t, 0, sizeof(*t));
	}
	if (b.eh_cfi)
		dwarf_cfi_end(b.eh_cfi);
	if (b.dw)
		dwarf_end(b.dw);
	if (b.elf)
		elf_end(b.elf);
	free(b.cies);
	free(b.spans);
	if (info)
		*info = b.info;
	return ret;
}

int lfr_unwind_table_build(int fd, struct lfr_unwind_table *t, char *err, size_t errlen)
{
	return lfr_unwind_table_build_ex(fd, t, false, NULL, err, errlen);
}

void lfr_unwind_table_free(struct lfr_unwind_table *t)
{
	if (t->map)
		munmap(t->map, t->map_len);
	else
		free(t->rows);
	memset(t, 0, sizeof(*t));
}

size_t lfr_unwind_table_bytes(const struct lfr_unwind_table *t)
{
	return sizeof(t->hdr) + (size_t)t->hdr.nr_rows * sizeof(*t->rows);
}

const struct lfr_unwind_row *lfr_unwind_table_find(const struct lfr_unwind_table *t, uint64_t off)
{
	size_t lo = 0, hi = t->hdr.nr_rows;

	/* the first row whose start is > off, then the one before it */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].start <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &t->rows[lo - 1] : NULL;
}
