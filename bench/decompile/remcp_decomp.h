/*
 * Included before every recompiled decompilation (bench/decompile.ts, tests/decompile_diff_test.ts):
 * the types the decompiler's C uses, the C library it calls by name, and C definitions of the
 * intrinsics that stand for instructions it does not lift to C yet. An intrinsic missing here
 * makes that function fail to link, which the harness reports as "does not recompile".
 */
#ifndef REMCP_DECOMP_H
#define REMCP_DECOMP_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Instructions with no effect on the C-visible state. */
#define __asm_nop(...) ((void)0)
#define __asm_endbr64(...) ((void)0)
#define __asm_endbr32(...) ((void)0)
#define __asm_pause(...) ((void)0)
#define __asm_lfence(...) ((void)0)
#define __asm_mfence(...) ((void)0)
#define __asm_sfence(...) ((void)0)
#define __asm_prefetcht0(...) ((void)0)
#define __asm_prefetcht1(...) ((void)0)
#define __asm_prefetcht2(...) ((void)0)
#define __asm_prefetchnta(...) ((void)0)

#endif
