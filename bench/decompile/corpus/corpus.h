/*
 * The differential-testing corpus: small C functions that bench/decompile.ts compiles, decompiles
 * from the stripped binary, recompiles and runs against the original on random inputs.
 *
 * Every function is defined on one line as `CORPUS RET name(PARAMS) {`, with RET and each
 * parameter type one of int8_t … uint64_t, bool, double, float, void (return only), or a pointer to one
 * of them or to char. The driver generates inputs from the parameter's type and name:
 *
 *   pointer            a buffer of 64 elements (+16 slack) of random bytes; `char *` gets a
 *                      NUL-terminated random string of at most 40 characters. Compared after
 *                      the call, so outputs may be written there.
 *   n, len, count, m   0 .. 64        (an element count that fits every buffer)
 *   dim                0 .. 8         (square matrices: dim * dim <= 64)
 *   i, j, k, idx, pos  0 .. 63
 *   sh, bit            0 .. 31        sh64: 0 .. 63
 *   depth              0 .. 18        (recursion depth)
 *   ch                 0 .. 127
 *   anything else      the whole range of its type, with edge values (0, ±1, min, max) often
 *
 * Functions never read or write outside those domains, keep no mutable global state, and are
 * free of undefined behaviour on them (the corpus is built with -fwrapv for signed overflow).
 */
#ifndef CORPUS_H
#define CORPUS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Keep every function a separate, ABI-conforming function: no inlining, and on gcc no
   interprocedural shortcuts (clones, custom register use) that no caller outside could rely on. */
#if defined(__has_attribute)
#if __has_attribute(noipa)
#define CORPUS __attribute__((noinline, noipa))
#endif
#endif
#ifndef CORPUS
#define CORPUS __attribute__((noinline))
#endif

#endif
