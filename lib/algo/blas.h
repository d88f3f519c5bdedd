/*
 * blas.h: the level-1 BLAS that pskit uses (OpenBLAS, or the reference BLAS
 * when configure found no OpenBLAS), and its one-time set-up.
 *
 * Sums of non-negative arrays (row losses, absolute weights) go through
 * ?asum, which OpenBLAS vectorises.
 */
#ifndef PS_BLAS_H
#define PS_BLAS_H

#include <cblas.h>

/*
 * Call once from main() before any BLAS routine: pskit's processes are
 * single-threaded by design (one event loop each), so OpenBLAS must not
 * start its own thread pool.
 */
static inline void
ps_blas_init(void)
{
#ifdef HAVE_OPENBLAS
	openblas_set_num_threads(1);
#endif
}

#endif
