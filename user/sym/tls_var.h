/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where an object file's thread-local otel_thread_ctx_v1 (OpenTelemetry's OTEP 4947) is: the
 * symbol in .dynsym (STT_TLS, defined, 8 bytes) and how a thread reaches it, from the relocations
 * that reference it (TLSDESC, general-dynamic, initial-exec) or, in an executable that none
 * references, at the fixed offset from the thread pointer local-exec code uses.
 */
#ifndef LFR_SYM_TLS_VAR_H
#define LFR_SYM_TLS_VAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LFR_TLS_CTX_SYMBOL "otel_thread_ctx_v1"

struct lfr_tls_var {
	uint32_t access;     /* enum lfr_ctx_access */
	uint64_t slot_vaddr; /* the GOT slot or TLS descriptor, an address of the object */
	int64_t
	    tp_offset;    /* LFR_CTX_ACCESS_STATIC: the variable's offset from the thread pointer */
	bool executable;  /* an executable (its definition wins over the libraries') */
	uint16_t machine; /* e_machine */
	/* the PT_LOAD segments, to place the object from one of its mappings */
	struct {
		uint64_t vaddr, offset;
	} loads[16];
	unsigned int nloads;
};

/*
 * Looks at the object open at fd.  Returns 1 when it defines the variable (*v filled), 0 when it
 * does not, -1 when it does but in a way lfr cannot read (local-dynamic access, a symbol of the
 * wrong size or type, an architecture without TLS support here), with the reason in why.
 */
int lfr_tls_var_find(int fd, struct lfr_tls_var *v, char *why, size_t whylen);

/*
 * The load bias of the object from one of its mappings: the mapping of file offset pgoff at start.
 * False when no PT_LOAD segment holds that offset.
 */
bool lfr_tls_var_bias(const struct lfr_tls_var *v, uint64_t start, uint64_t pgoff,
                      uint64_t page_size, uint64_t *bias);

#endif
