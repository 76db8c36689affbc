/*
 * Included before every recompiled decompilation (bench/decompile.ts, tests/decompile_diff_test.ts):
 * the types the decompiler's C uses, the C library it calls by name, and C definitions of the
 * typed intrinsics its lifter uses for SSE and x87-free floating point, for the flags of a
 * floating-point compare and for a few integer instructions. Each follows the instruction's
 * definition in the Intel SDM, with the lifter's argument order: the old destination first when
 * the instruction reads it, then the sources. `__asm_*` (an instruction not lifted at all) is
 * deliberately not defined: code that keeps one does not recompile, and the harness says so.
 */
#ifndef REMCP_DECOMP_H
#define REMCP_DECOMP_H
#include <math.h>
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

#ifdef __SIZEOF_INT128__
typedef unsigned __int128 remcp_u128;
#else
/* x86-32 (-m32) has no 128-bit integer: the 128-bit SSE and AArch64 vector intrinsics are left
   out (code that keeps one does not recompile, and the harness says so); the scalar SSE ones
   below take and give the register's low 8 bytes. */
typedef uint64_t remcp_u128;
#define REMCP_NO_INT128 1
#endif
#ifndef REMCP_NO_INT128
typedef int8_t remcp_v16i8 __attribute__((vector_size(16)));
typedef uint8_t remcp_v16u8 __attribute__((vector_size(16)));
typedef int16_t remcp_v8i16 __attribute__((vector_size(16)));
typedef uint16_t remcp_v8u16 __attribute__((vector_size(16)));
typedef int32_t remcp_v4i32 __attribute__((vector_size(16)));
typedef uint32_t remcp_v4u32 __attribute__((vector_size(16)));
typedef uint64_t remcp_v2u64 __attribute__((vector_size(16)));

#define REMCP_AS(T, x) ({ T remcp_t_; remcp_u128 remcp_x_ = (x); memcpy(&remcp_t_, &remcp_x_, 16); remcp_t_; })
#define REMCP_BITS(v) ({ remcp_u128 remcp_r_; __typeof__(v) remcp_v_ = (v); memcpy(&remcp_r_, &remcp_v_, 16); remcp_r_; })

/* Lane-wise integer arithmetic and logic. */
#define REMCP_LANES(name, T, expr)                                       \
  static inline remcp_u128 name(remcp_u128 a_, remcp_u128 b_) {          \
    T a = REMCP_AS(T, a_), b = REMCP_AS(T, b_);                          \
    return REMCP_BITS((T)(expr));                                        \
  }
REMCP_LANES(__paddb, remcp_v16u8, a + b)
REMCP_LANES(__paddw, remcp_v8u16, a + b)
REMCP_LANES(__paddd, remcp_v4u32, a + b)
REMCP_LANES(__paddq, remcp_v2u64, a + b)
REMCP_LANES(__psubb, remcp_v16u8, a - b)
REMCP_LANES(__psubw, remcp_v8u16, a - b)
REMCP_LANES(__psubd, remcp_v4u32, a - b)
REMCP_LANES(__psubq, remcp_v2u64, a - b)
REMCP_LANES(__pmullw, remcp_v8u16, a * b)
REMCP_LANES(__pmulld, remcp_v4u32, a * b)
REMCP_LANES(__pcmpeqb, remcp_v16i8, a == b)
REMCP_LANES(__pcmpeqw, remcp_v8i16, a == b)
REMCP_LANES(__pcmpeqd, remcp_v4i32, a == b)
REMCP_LANES(__pcmpgtb, remcp_v16i8, a > b)
REMCP_LANES(__pcmpgtw, remcp_v8i16, a > b)
REMCP_LANES(__pcmpgtd, remcp_v4i32, a > b)
static inline remcp_u128 __pand(remcp_u128 a, remcp_u128 b) { return a & b; }
static inline remcp_u128 __pandn(remcp_u128 a, remcp_u128 b) { return ~a & b; }
static inline remcp_u128 __por(remcp_u128 a, remcp_u128 b) { return a | b; }
static inline remcp_u128 __pxor(remcp_u128 a, remcp_u128 b) { return a ^ b; }
#define __andps __pand
#define __andpd __pand
#define __andnps __pandn
#define __andnpd __pandn
#define __orps __por
#define __orpd __por
#define __xorps __pxor
#define __xorpd __pxor

/* Shifts by an immediate or by the low 64 bits of a register. */
#define REMCP_SHIFT(name, T, bits, expr, over)                           \
  static inline remcp_u128 name(remcp_u128 a_, remcp_u128 n_) {          \
    T a = REMCP_AS(T, a_);                                               \
    uint64_t n = (uint64_t)n_;                                           \
    if (n >= bits) return over;                                          \
    return REMCP_BITS((T)(expr));                                        \
  }
REMCP_SHIFT(__psllw, remcp_v8u16, 16, a << (uint16_t)n, 0)
REMCP_SHIFT(__pslld, remcp_v4u32, 32, a << (uint32_t)n, 0)
REMCP_SHIFT(__psllq, remcp_v2u64, 64, a << n, 0)
REMCP_SHIFT(__psrlw, remcp_v8u16, 16, a >> (uint16_t)n, 0)
REMCP_SHIFT(__psrld, remcp_v4u32, 32, a >> (uint32_t)n, 0)
REMCP_SHIFT(__psrlq, remcp_v2u64, 64, a >> n, 0)
REMCP_SHIFT(__psraw, remcp_v8i16, 16, a >> (int16_t)n, REMCP_BITS((remcp_v8i16)(a >> 15)))
REMCP_SHIFT(__psrad, remcp_v4i32, 32, a >> (int32_t)n, REMCP_BITS((remcp_v4i32)(a >> 31)))
static inline remcp_u128 __pslldq(remcp_u128 a, remcp_u128 n) {
  return n >= 16 ? 0 : a << (8 * (unsigned)n);
}
static inline remcp_u128 __psrldq(remcp_u128 a, remcp_u128 n) {
  return n >= 16 ? 0 : a >> (8 * (unsigned)n);
}

/* Shuffles and interleaves. */
static inline remcp_u128 __pshufd(remcp_u128 a_, remcp_u128 imm) {
  remcp_v4u32 a = REMCP_AS(remcp_v4u32, a_), r;
  for (int i = 0; i < 4; i++) r[i] = a[((unsigned)imm >> (2 * i)) & 3];
  return REMCP_BITS(r);
}
static inline remcp_u128 __pshuflw(remcp_u128 a_, remcp_u128 imm) {
  remcp_v8u16 a = REMCP_AS(remcp_v8u16, a_), r = a;
  for (int i = 0; i < 4; i++) r[i] = a[((unsigned)imm >> (2 * i)) & 3];
  return REMCP_BITS(r);
}
static inline remcp_u128 __pshufhw(remcp_u128 a_, remcp_u128 imm) {
  remcp_v8u16 a = REMCP_AS(remcp_v8u16, a_), r = a;
  for (int i = 0; i < 4; i++) r[4 + i] = a[4 + (((unsigned)imm >> (2 * i)) & 3)];
  return REMCP_BITS(r);
}
static inline remcp_u128 __shufps(remcp_u128 a_, remcp_u128 b_, remcp_u128 imm) {
  remcp_v4u32 a = REMCP_AS(remcp_v4u32, a_), b = REMCP_AS(remcp_v4u32, b_), r;
  unsigned m = (unsigned)imm;
  r[0] = a[m & 3];
  r[1] = a[(m >> 2) & 3];
  r[2] = b[(m >> 4) & 3];
  r[3] = b[(m >> 6) & 3];
  return REMCP_BITS(r);
}
#define REMCP_UNPACK(name, T, n, base)                                   \
  static inline remcp_u128 name(remcp_u128 a_, remcp_u128 b_) {          \
    T a = REMCP_AS(T, a_), b = REMCP_AS(T, b_), r;                       \
    for (int i = 0; i < n / 2; i++) {                                    \
      r[2 * i] = a[base + i];                                            \
      r[2 * i + 1] = b[base + i];                                        \
    }                                                                    \
    return REMCP_BITS(r);                                                \
  }
REMCP_UNPACK(__punpcklbw, remcp_v16u8, 16, 0)
REMCP_UNPACK(__punpckhbw, remcp_v16u8, 16, 8)
REMCP_UNPACK(__punpcklwd, remcp_v8u16, 8, 0)
REMCP_UNPACK(__punpckhwd, remcp_v8u16, 8, 4)
REMCP_UNPACK(__punpckldq, remcp_v4u32, 4, 0)
REMCP_UNPACK(__punpckhdq, remcp_v4u32, 4, 2)
REMCP_UNPACK(__punpcklqdq, remcp_v2u64, 2, 0)
REMCP_UNPACK(__punpckhqdq, remcp_v2u64, 2, 1)
#define __unpcklps __punpckldq
#define __unpcklpd __punpcklqdq

/* Saturating packs and widening multiplies. */
static inline int16_t remcp_sat16(int32_t v) { return v > 32767 ? 32767 : v < -32768 ? -32768 : v; }
static inline int8_t remcp_sat8(int16_t v) { return v > 127 ? 127 : v < -128 ? -128 : v; }
static inline uint8_t remcp_satu8(int16_t v) { return v > 255 ? 255 : v < 0 ? 0 : v; }
#define REMCP_PACK(name, From, To, n, sat)                              \
  static inline remcp_u128 name(remcp_u128 a_, remcp_u128 b_) {          \
    From a = REMCP_AS(From, a_), b = REMCP_AS(From, b_);                 \
    To r;                                                                \
    for (int i = 0; i < n; i++) {                                        \
      r[i] = sat(a[i]);                                                  \
      r[n + i] = sat(b[i]);                                              \
    }                                                                    \
    return REMCP_BITS(r);                                                \
  }
REMCP_PACK(__packssdw, remcp_v4i32, remcp_v8i16, 4, remcp_sat16)
REMCP_PACK(__packsswb, remcp_v8i16, remcp_v16i8, 8, remcp_sat8)
REMCP_PACK(__packuswb, remcp_v8i16, remcp_v16u8, 8, remcp_satu8)
static inline remcp_u128 __pmuludq(remcp_u128 a_, remcp_u128 b_) {
  remcp_v4u32 a = REMCP_AS(remcp_v4u32, a_), b = REMCP_AS(remcp_v4u32, b_);
  remcp_v2u64 r = {(uint64_t)a[0] * b[0], (uint64_t)a[2] * b[2]};
  return REMCP_BITS(r);
}
static inline remcp_u128 __pmaddwd(remcp_u128 a_, remcp_u128 b_) {
  remcp_v8i16 a = REMCP_AS(remcp_v8i16, a_), b = REMCP_AS(remcp_v8i16, b_);
  remcp_v4u32 r;
  for (int i = 0; i < 4; i++) {
    r[i] = (uint32_t)((int32_t)a[2 * i] * b[2 * i] + (int32_t)a[2 * i + 1] * b[2 * i + 1]);
  }
  return REMCP_BITS(r);
}
static inline uint32_t __pmovmskb(remcp_u128 a_) {
  remcp_v16u8 a = REMCP_AS(remcp_v16u8, a_);
  uint32_t m = 0;
  for (int i = 0; i < 16; i++) m |= (uint32_t)(a[i] >> 7) << i;
  return m;
}

#endif /* REMCP_NO_INT128 */

/* Scalar double and float: the low lane computes, the destination's upper lanes stay. */
static inline double remcp_d(remcp_u128 x) {
  uint64_t b = (uint64_t)x;
  double d;
  memcpy(&d, &b, 8);
  return d;
}
static inline float remcp_f(remcp_u128 x) {
  uint32_t b = (uint32_t)x;
  float f;
  memcpy(&f, &b, 4);
  return f;
}
static inline remcp_u128 remcp_with_d(remcp_u128 dst, double d) {
  uint64_t b;
  memcpy(&b, &d, 8);
  return (dst & ~(remcp_u128)UINT64_MAX) | b;
}
static inline remcp_u128 remcp_with_f(remcp_u128 dst, float f) {
  uint32_t b;
  memcpy(&b, &f, 4);
  return (dst & ~(remcp_u128)UINT32_MAX) | b;
}
#define REMCP_SCALAR(sd, ss, op)                                              \
  static inline remcp_u128 sd(remcp_u128 a, remcp_u128 b) {                   \
    return remcp_with_d(a, remcp_d(a) op remcp_d(b));                         \
  }                                                                           \
  static inline remcp_u128 ss(remcp_u128 a, remcp_u128 b) {                   \
    return remcp_with_f(a, remcp_f(a) op remcp_f(b));                         \
  }
REMCP_SCALAR(__addsd, __addss, +)
REMCP_SCALAR(__subsd, __subss, -)
REMCP_SCALAR(__mulsd, __mulss, *)
REMCP_SCALAR(__divsd, __divss, /)
static inline remcp_u128 __sqrtsd(remcp_u128 a, remcp_u128 b) { return remcp_with_d(a, sqrt(remcp_d(b))); }
static inline remcp_u128 __minsd(remcp_u128 a, remcp_u128 b) {
  return remcp_with_d(a, remcp_d(a) < remcp_d(b) ? remcp_d(a) : remcp_d(b));
}
static inline remcp_u128 __maxsd(remcp_u128 a, remcp_u128 b) {
  return remcp_with_d(a, remcp_d(a) > remcp_d(b) ? remcp_d(a) : remcp_d(b));
}
static inline remcp_u128 remcp_cmpltsd(remcp_u128 a, remcp_u128 b) {
  return (a & ~(remcp_u128)UINT64_MAX) | (remcp_d(a) < remcp_d(b) ? UINT64_MAX : 0);
}
static inline remcp_u128 remcp_cmplesd(remcp_u128 a, remcp_u128 b) {
  return (a & ~(remcp_u128)UINT64_MAX) | (remcp_d(a) <= remcp_d(b) ? UINT64_MAX : 0);
}
static inline remcp_u128 remcp_cmpeqsd(remcp_u128 a, remcp_u128 b) {
  return (a & ~(remcp_u128)UINT64_MAX) | (remcp_d(a) == remcp_d(b) ? UINT64_MAX : 0);
}
/* The lifter may pass cmpsd's predicate immediate after the operands: the name already says it. */
#define __cmpltsd(a, b, ...) remcp_cmpltsd((a), (b))
#define __cmplesd(a, b, ...) remcp_cmplesd((a), (b))
#define __cmpeqsd(a, b, ...) remcp_cmpeqsd((a), (b))
static inline remcp_u128 __cvtss2sd(remcp_u128 a, remcp_u128 b) { return remcp_with_d(a, remcp_f(b)); }
static inline remcp_u128 __cvtsd2ss(remcp_u128 a, remcp_u128 b) { return remcp_with_f(a, (float)remcp_d(b)); }

/* Integer <-> floating conversions: the source width decides (cvtsi2sd r32 reads 32 bits). */
#define REMCP_INT_SRC(x) _Generic((x), int32_t: (int64_t)(int32_t)(x), uint32_t: (int64_t)(int32_t)(x), \
  int16_t: (int64_t)(x), uint16_t: (int64_t)(x), int8_t: (int64_t)(x), uint8_t: (int64_t)(x), default: (int64_t)(x))
#define __cvtsi2sd(dst, src) remcp_with_d((dst), (double)REMCP_INT_SRC(src))
#define __cvtsi2ss(dst, src) remcp_with_f((dst), (float)REMCP_INT_SRC(src))
static inline int64_t remcp_trunc_d(double d) {
  return (d != d || d >= 9223372036854775808.0 || d < -9223372036854775808.0) ? INT64_MIN : (int64_t)d;
}
#define __cvttsd2si(x) remcp_trunc_d(remcp_d(x))
#define __cvttss2si(x) remcp_trunc_d((double)remcp_f(x))
#define __cvtsd2si(x) remcp_trunc_d(nearbyint(remcp_d(x)))

/* Flags of ucomisd/ucomiss a, b as the conditions read them: CF (below) and ZF (equal) are also
   set when unordered, PF only then. The operand width tells float from double. */
#define REMCP_FCMP(name, expr)                                                          \
  static inline bool name##_d(double a, double b) { return expr; }                      \
  static inline bool name##_f(float a, float b) { return expr; }
REMCP_FCMP(remcp_flt, !(a >= b))
REMCP_FCMP(remcp_fle, !(a > b))
REMCP_FCMP(remcp_feq, !(a < b || a > b))
REMCP_FCMP(remcp_funordered, a != a || b != b)
#define REMCP_FCMP_CALL(name, a, b) \
  _Generic((a), uint32_t: name##_f(remcp_f(a), remcp_f(b)), default: name##_d(remcp_d(a), remcp_d(b)))
#define __flt(a, b) REMCP_FCMP_CALL(remcp_flt, a, b)
#define __fle(a, b) REMCP_FCMP_CALL(remcp_fle, a, b)
#define __feq(a, b) REMCP_FCMP_CALL(remcp_feq, a, b)
#define __funordered(a, b) REMCP_FCMP_CALL(remcp_funordered, a, b)

/* IEEE 754-2019 minimum and maximum (C23's fminimum/fmaximum, AArch64's fmin/fmax): a NaN
   operand gives NaN, -0.0 is below +0.0. Defined here: not every C library declares them. */
#define REMCP_MINMAX(name, T, lt)                                                        \
  static inline T name(T a, T b) {                                                       \
    if (a != a) return a + a;                                                            \
    if (b != b) return b + b;                                                            \
    if (a == b) return (signbit(a) != 0) == (lt) ? a : b;                                \
    return (a < b) == (lt) ? a : b;                                                      \
  }
REMCP_MINMAX(remcp_fminimum, double, 1)
REMCP_MINMAX(remcp_fminimumf, float, 1)
REMCP_MINMAX(remcp_fmaximum, double, 0)
REMCP_MINMAX(remcp_fmaximumf, float, 0)
#define fminimum remcp_fminimum
#define fminimumf remcp_fminimumf
#define fmaximum remcp_fmaximum
#define fmaximumf remcp_fmaximumf

/* Bit casts between floating point and integers of the same size (the decompiler's C uses them
   where a value's bits are read as the other kind). */
static inline double __as_double(uint64_t b) { double d; memcpy(&d, &b, 8); return d; }
static inline float __as_float(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
static inline uint64_t __double_bits(double d) { uint64_t b; memcpy(&b, &d, 8); return b; }
static inline uint32_t __float_bits(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }

/* Integer instructions kept as intrinsics. */
#define __bswap(x) _Generic((x), uint16_t: __builtin_bswap16(x), int16_t: __builtin_bswap16(x), \
  uint32_t: __builtin_bswap32(x), int32_t: __builtin_bswap32(x), default: __builtin_bswap64(x))
#define __parity(x) (!__builtin_parity((unsigned)(uint8_t)(x)))
#define __popcnt(x) __builtin_popcountll((uint64_t)(x))

/* The AArch64 lifter's intrinsics. */
#ifndef REMCP_NO_INT128
#include "remcp_decomp_aarch64.h"
#endif

#endif
