/* The OpenBLAS core type (src/embed/cpu.c): an AVX-512 core only on a CPU with AVX-512, and
 * only when OpenBLAS's own detection missed it. */
#include "testutil.h"

#include "embed/embed.h"

#include <string.h>

static void test_core_for(void **state)
{
    (void)state;
    /* no AVX-512: OpenBLAS's choice stands, whatever it is */
    assert_null(embed_blas_core_for("Haswell", false));
    assert_null(embed_blas_core_for("Zen", false));
    assert_null(embed_blas_core_for("Prescott", false));
    assert_null(embed_blas_core_for("SkylakeX", false));
    /* AVX-512 that OpenBLAS saw: its choice stands */
    assert_null(embed_blas_core_for("SkylakeX", true));
    assert_null(embed_blas_core_for("Cooperlake", true));
    assert_null(embed_blas_core_for("SAPPHIRERAPIDS", true));
    /* AVX-512 that OpenBLAS missed (an older build on a newer CPU) */
    assert_string_equal(embed_blas_core_for("Zen", true), "SkylakeX");
    assert_string_equal(embed_blas_core_for("Haswell", true), "SkylakeX");
    assert_null(embed_blas_core_for(NULL, true));
}

/* On the CPU this runs on: advice only where the CPU has AVX-512 (the QEMU run of
   test_cpu_portable.sh executes this with an AVX2-only CPU model). */
static void test_advice_matches_cpu(void **state)
{
    (void)state;
    const char *core = embed_blas_core_advice();
    if (core) {
        assert_true(embed_cpu_has_avx512());
        assert_string_equal(core, "SkylakeX");
    }
}

/* Under QEMU (CTest's qemu_haswell_* runs and the arm64 cross build set
   APIDEX_TEST_EMULATED_CPU) the emulated CPU is the one the kernels were chosen for: an
   emulator that passed the host's AVX-512 through would make those runs prove nothing. */
static void test_emulated_cpu(void **state)
{
    (void)state;
    const char *cpu = tu_emulated_cpu();
    if (!cpu) skip();
    print_message("emulated %s: scan kernel %s\n", cpu, embed_simd_name());
    assert_false(embed_cpu_has_avx512());
    assert_null(embed_blas_core_advice());
#if defined(__x86_64__)
    assert_string_equal(embed_simd_name(), "avx2");
#elif defined(__aarch64__)
    assert_string_equal(embed_simd_name(), "neon");
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_core_for),
        cmocka_unit_test(test_advice_matches_cpu),
        cmocka_unit_test(test_emulated_cpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
