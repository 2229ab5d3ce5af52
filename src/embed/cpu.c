/*
 * Which OpenBLAS core type to name, if any. OpenBLAS reads OPENBLAS_CORETYPE when it loads
 * and otherwise detects the CPU itself. Its detection is right on most CPUs, but a build
 * older than the CPU can miss AVX-512 (Debian 12's 0.3.21 takes some AVX-512 CPUs for an
 * AVX2 core, whose kernels run the encoder's query-sized products at half speed). So a core
 * is named only when the CPU has every AVX-512 subset the SkylakeX kernels use and OpenBLAS's
 * own choice is not an AVX-512 core; any other CPU is left to OpenBLAS. Naming an AVX-512
 * core on a CPU without AVX-512 would kill every BLAS call with SIGILL.
 */
#include "embed/embed.h"

#include <stddef.h>
#include <string.h>
#include <strings.h>

/* OpenBLAS's name of the core it runs (weak: another BLAS leaves it NULL). */
extern char *openblas_get_corename(void) __attribute__((weak));

const char *embed_blas_core_for(const char *detected, bool cpu_avx512)
{
    static const char *const avx512_cores[] = {"skylakex", "cooperlake", "sapphirerapids"};
    if (!cpu_avx512 || !detected) return NULL;
    for (size_t i = 0; i < sizeof avx512_cores / sizeof *avx512_cores; i++)
        if (!strcasecmp(detected, avx512_cores[i])) return NULL;
    return "SkylakeX";
}

bool embed_cpu_has_avx512(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512vl");
#else
    return false;
#endif
}

const char *embed_blas_core_advice(void)
{
    if (!openblas_get_corename) return NULL;
    return embed_blas_core_for(openblas_get_corename(), embed_cpu_has_avx512());
}
