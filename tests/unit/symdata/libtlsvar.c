/* Libraries with thread-local storage, for sym_tls_var_test: OTEP 4947's thread context variable
 * or (OTHER_TLS) another variable. */
#ifndef OTHER_TLS
__attribute__((visibility("default"))) __thread void *otel_thread_ctx_v1;
#define VAR otel_thread_ctx_v1
#else
__attribute__((visibility("default"))) __thread void *tls_other;
#define VAR tls_other
#endif

void *tlsvar_get(void)
{
	return VAR;
}
