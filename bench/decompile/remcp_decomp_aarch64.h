/*
 * The typed intrinsics of remcp's AArch64 lifter, for recompiled decompilations (included by
 * remcp_decomp.h). Each follows the instruction's definition in the Arm ARM. Scalar values are
 * the registers' bits (uint32_t for an S register, uint64_t for D); a vector intrinsic's name
 * carries its arrangement (`__cnt_8b`), and its arguments and result are the register's bits
 * (8 bytes for 8b/4h/2s, unsigned __int128 for 16b/8h/4s/2d).
 */
#ifndef REMCP_DECOMP_AARCH64_H
#define REMCP_DECOMP_AARCH64_H
#include <stdint.h>
#include <string.h>

/* clz/cls/rbit at the operand's width (W: uint32_t, X: uint64_t). */
static inline uint32_t remcp_clz32(uint32_t x) { return x ? (uint32_t)__builtin_clz(x) : 32; }
static inline uint64_t remcp_clz64(uint64_t x) { return x ? (uint64_t)__builtin_clzll(x) : 64; }
static inline uint32_t remcp_cls32(uint32_t x) { return remcp_clz32(x ^ (uint32_t)((int32_t)x >> 31)) - 1; }
static inline uint64_t remcp_cls64(uint64_t x) { return remcp_clz64(x ^ (uint64_t)((int64_t)x >> 63)) - 1; }
static inline uint64_t remcp_rbit64(uint64_t x) {
  uint64_t r = 0;
  for (int i = 0; i < 64; i++) r |= ((x >> i) & 1) << (63 - i);
  return r;
}
static inline uint32_t remcp_rbit32(uint32_t x) { return (uint32_t)(remcp_rbit64(x) >> 32); }
#define __clz(x) _Generic((x), uint32_t: remcp_clz32, int32_t: remcp_clz32, default: remcp_clz64)(x)
#define __cls(x) _Generic((x), uint32_t: remcp_cls32, int32_t: remcp_cls32, default: remcp_cls64)(x)
#define __rbit(x) _Generic((x), uint32_t: remcp_rbit32, int32_t: remcp_rbit32, default: remcp_rbit64)(x)

/* Vector lanes: population count per byte, sums across lanes, immediates repeated per lane. */
static inline uint64_t __cnt_8b(uint64_t x) {
  uint64_t r = 0;
  for (int i = 0; i < 8; i++) r |= (uint64_t)__builtin_popcount((x >> (8 * i)) & 0xff) << (8 * i);
  return r;
}
static inline unsigned __int128 __cnt_16b(unsigned __int128 x) {
  return (unsigned __int128)__cnt_8b((uint64_t)x) | (unsigned __int128)__cnt_8b((uint64_t)(x >> 64)) << 64;
}
#define REMCP_ACROSS(name, T, bytes, lane)                              \
  static inline uint64_t name(T x) {                                    \
    uint64_t s = 0;                                                     \
    for (int i = 0; i < (bytes) / (lane); i++)                          \
      s += (uint64_t)(x >> (8 * (lane) * i)) & ((~0ull) >> (64 - 8 * (lane))); \
    return s;                                                           \
  }
REMCP_ACROSS(remcp_sum_8b, uint64_t, 8, 1)
REMCP_ACROSS(remcp_sum_16b, unsigned __int128, 16, 1)
REMCP_ACROSS(remcp_sum_4h, uint64_t, 8, 2)
REMCP_ACROSS(remcp_sum_8h, unsigned __int128, 16, 2)
REMCP_ACROSS(remcp_sum_4s, unsigned __int128, 16, 4)
#define __addv_8b(x) ((uint8_t)remcp_sum_8b(x))
#define __addv_16b(x) ((uint8_t)remcp_sum_16b(x))
#define __addv_4h(x) ((uint16_t)remcp_sum_4h(x))
#define __addv_8h(x) ((uint16_t)remcp_sum_8h(x))
#define __addv_4s(x) ((uint32_t)remcp_sum_4s(x))
#define __uaddlv_8b(x) ((uint16_t)remcp_sum_8b(x))
#define __uaddlv_16b(x) ((uint16_t)remcp_sum_16b(x))
static inline uint64_t remcp_repeat(uint64_t imm, int lane) {
  uint64_t m = lane == 8 ? ~0ull : (1ull << (8 * lane)) - 1, r = 0;
  for (int i = 0; i < 8 / lane; i++) r |= (imm & m) << (8 * lane * i);
  return r;
}
#define REMCP_WIDE(x) ((unsigned __int128)(x) | (unsigned __int128)(x) << 64)
#define __movi_8b(imm) remcp_repeat((imm), 1)
#define __movi_16b(imm) REMCP_WIDE(remcp_repeat((imm), 1))
#define __movi_4h(imm) remcp_repeat((imm), 2)
#define __movi_8h(imm) REMCP_WIDE(remcp_repeat((imm), 2))
#define __movi_2s(imm) remcp_repeat((imm), 4)
#define __movi_4s(imm) REMCP_WIDE(remcp_repeat((imm), 4))
#define __movi_2d(imm) REMCP_WIDE((uint64_t)(imm))
#define __movi(imm) ((uint64_t)(imm))

/* Scalar floating point on the registers' bits: S registers are float, D registers double. */
static inline float remcp_a64_f(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
static inline double remcp_a64_d(uint64_t b) { double d; memcpy(&d, &b, 8); return d; }
static inline uint32_t remcp_a64_fb(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }
static inline uint64_t remcp_a64_db(double d) { uint64_t b; memcpy(&b, &d, 8); return b; }
#define REMCP_A64_F2(name, expr)                                                            \
  static inline uint32_t remcp_##name##_s(uint32_t x, uint32_t y) {                         \
    float a = remcp_a64_f(x), b = remcp_a64_f(y); return remcp_a64_fb(expr); }              \
  static inline uint64_t remcp_##name##_d(uint64_t x, uint64_t y) {                         \
    double a = remcp_a64_d(x), b = remcp_a64_d(y); return remcp_a64_db(expr); }
#define REMCP_A64_F1(name, expr)                                                            \
  static inline uint32_t remcp_##name##_s(uint32_t x) { float a = remcp_a64_f(x); return remcp_a64_fb(expr); } \
  static inline uint64_t remcp_##name##_d(uint64_t x) { double a = remcp_a64_d(x); return remcp_a64_db(expr); }
REMCP_A64_F2(fadd, a + b)
REMCP_A64_F2(fsub, a - b)
REMCP_A64_F2(fmul, a * b)
REMCP_A64_F2(fdiv, a / b)
REMCP_A64_F2(fnmul, -(a * b))
REMCP_A64_F2(fmaxnm, fmax(a, b))
REMCP_A64_F2(fminnm, fmin(a, b))
REMCP_A64_F1(fneg, -a)
REMCP_A64_F1(fabs, fabs(a))
REMCP_A64_F1(fsqrt, sqrt(a))
REMCP_A64_F1(frintm, floor(a))
REMCP_A64_F1(frintp, ceil(a))
REMCP_A64_F1(frintz, trunc(a))
REMCP_A64_F1(frinta, round(a))
REMCP_A64_F1(frintn, nearbyint(a))
#define REMCP_A64_PICK(name, x) _Generic((x), uint32_t: remcp_##name##_s, int32_t: remcp_##name##_s, default: remcp_##name##_d)
#define __fadd(a, b) REMCP_A64_PICK(fadd, a)((a), (b))
#define __fsub(a, b) REMCP_A64_PICK(fsub, a)((a), (b))
#define __fmul(a, b) REMCP_A64_PICK(fmul, a)((a), (b))
#define __fdiv(a, b) REMCP_A64_PICK(fdiv, a)((a), (b))
#define __fnmul(a, b) REMCP_A64_PICK(fnmul, a)((a), (b))
#define __fmaxnm(a, b) REMCP_A64_PICK(fmaxnm, a)((a), (b))
#define __fminnm(a, b) REMCP_A64_PICK(fminnm, a)((a), (b))
#define __fneg(a) REMCP_A64_PICK(fneg, a)(a)
#define __fabs(a) REMCP_A64_PICK(fabs, a)(a)
#define __fsqrt(a) REMCP_A64_PICK(fsqrt, a)(a)
#define __frintm(a) REMCP_A64_PICK(frintm, a)(a)
#define __frintp(a) REMCP_A64_PICK(frintp, a)(a)
#define __frintz(a) REMCP_A64_PICK(frintz, a)(a)
#define __frinta(a) REMCP_A64_PICK(frinta, a)(a)
#define __frintn(a) REMCP_A64_PICK(frintn, a)(a)
/* fmadd d, n, m, a = a + n * m (fused); fmsub = a - n * m. */
#define __fmadd(n, m, a) _Generic((n), uint32_t: remcp_a64_fb(fmaf(remcp_a64_f(n), remcp_a64_f(m), remcp_a64_f(a))), \
  default: remcp_a64_db(fma(remcp_a64_d(n), remcp_a64_d(m), remcp_a64_d(a))))
#define __fmsub(n, m, a) _Generic((n), uint32_t: remcp_a64_fb(fmaf(-remcp_a64_f(n), remcp_a64_f(m), remcp_a64_f(a))), \
  default: remcp_a64_db(fma(-remcp_a64_d(n), remcp_a64_d(m), remcp_a64_d(a))))

/* Lane helpers for the NEON intrinsics below: a vector is its bits, lanes numbered from bit 0. */
typedef unsigned __int128 remcp_vec;
static inline uint64_t remcp_get(remcp_vec v, int bytes, int i) {
  return (uint64_t)(v >> (8 * bytes * i)) & (bytes == 8 ? ~0ull : (1ull << (8 * bytes)) - 1);
}
static inline remcp_vec remcp_put(remcp_vec v, int bytes, int i, uint64_t x) {
  remcp_vec m = (bytes == 8 ? (remcp_vec)~0ull : (remcp_vec)((1ull << (8 * bytes)) - 1)) << (8 * bytes * i);
  return (v & ~m) | (((remcp_vec)x << (8 * bytes * i)) & m);
}
static inline uint64_t remcp_ext(uint64_t x, int bytes, int sign) {
  if (!sign || bytes == 8) return x;
  int sh = 64 - 8 * bytes;
  return (uint64_t)((int64_t)(x << sh) >> sh);
}
/* dup: one value in every lane; mvni: its complement. */
#define REMCP_DUP(name, lane, total, T)                                                  \
  static inline T name(uint64_t x) {                                                     \
    remcp_vec r = 0;                                                                     \
    for (int i = 0; i < (total) / (lane); i++) r = remcp_put(r, lane, i, x);             \
    return (T)r;                                                                         \
  }
REMCP_DUP(__dup_8b, 1, 8, uint64_t)
REMCP_DUP(__dup_16b, 1, 16, remcp_vec)
REMCP_DUP(__dup_4h, 2, 8, uint64_t)
REMCP_DUP(__dup_8h, 2, 16, remcp_vec)
REMCP_DUP(__dup_2s, 4, 8, uint64_t)
REMCP_DUP(__dup_4s, 4, 16, remcp_vec)
REMCP_DUP(__dup_2d, 8, 16, remcp_vec)
#define __mvni_2s(imm) (~__dup_2s(imm))
#define __mvni_4s(imm) (~__dup_4s(imm))
#define __mvni_4h(imm) (~__dup_4h(imm))
#define __mvni_8h(imm) (~__dup_8h(imm))
/* ushll/sshll: lanes widened to twice their size, then shifted; the "2" forms take the upper
   half of the source. */
#define REMCP_XTL(name, from, sign, upper)                                               \
  static inline remcp_vec name(remcp_vec v, uint64_t sh) {                               \
    remcp_vec r = 0;                                                                     \
    for (int i = 0; i < 8 / (from); i++)                                                 \
      r = remcp_put(r, 2 * (from), i,                                                    \
        remcp_ext(remcp_get(v, from, i + (upper) * 8 / (from)), from, sign) << sh);      \
    return r;                                                                            \
  }
REMCP_XTL(__ushll_8h, 1, 0, 0)
REMCP_XTL(__ushll2_8h, 1, 0, 1)
REMCP_XTL(__sshll_8h, 1, 1, 0)
REMCP_XTL(__sshll2_8h, 1, 1, 1)
REMCP_XTL(__ushll_4s, 2, 0, 0)
REMCP_XTL(__ushll2_4s, 2, 0, 1)
REMCP_XTL(__sshll_4s, 2, 1, 0)
REMCP_XTL(__sshll2_4s, 2, 1, 1)
REMCP_XTL(__ushll_2d, 4, 0, 0)
REMCP_XTL(__ushll2_2d, 4, 0, 1)
REMCP_XTL(__sshll_2d, 4, 1, 0)
REMCP_XTL(__sshll2_2d, 4, 1, 1)
/* uaddw/saddw: wide lanes plus the narrow lanes widened ("2": the upper narrow half). */
#define REMCP_ADDW(name, to, sign, upper)                                                \
  static inline remcp_vec name(remcp_vec a, remcp_vec b) {                               \
    remcp_vec r = 0;                                                                     \
    for (int i = 0; i < 16 / (to); i++)                                                  \
      r = remcp_put(r, to, i, remcp_get(a, to, i) +                                      \
        remcp_ext(remcp_get(b, (to) / 2, i + (upper) * 8 / ((to) / 2)), (to) / 2, sign)); \
    return r;                                                                            \
  }
REMCP_ADDW(__uaddw_8h, 2, 0, 0)
REMCP_ADDW(__uaddw2_8h, 2, 0, 1)
REMCP_ADDW(__saddw_8h, 2, 1, 0)
REMCP_ADDW(__saddw2_8h, 2, 1, 1)
REMCP_ADDW(__uaddw_4s, 4, 0, 0)
REMCP_ADDW(__uaddw2_4s, 4, 0, 1)
REMCP_ADDW(__saddw_4s, 4, 1, 0)
REMCP_ADDW(__saddw2_4s, 4, 1, 1)
REMCP_ADDW(__uaddw_2d, 8, 0, 0)
REMCP_ADDW(__uaddw2_2d, 8, 0, 1)
REMCP_ADDW(__saddw_2d, 8, 1, 0)
REMCP_ADDW(__saddw2_2d, 8, 1, 1)
/* uaddlp: adjacent pairs of lanes added into one lane of twice the size. */
#define REMCP_ADDLP(name, to, total, T)                                                  \
  static inline T name(remcp_vec v) {                                                    \
    remcp_vec r = 0;                                                                     \
    for (int i = 0; i < (total) / (to); i++)                                             \
      r = remcp_put(r, to, i, remcp_get(v, (to) / 2, 2 * i) + remcp_get(v, (to) / 2, 2 * i + 1)); \
    return (T)r;                                                                         \
  }
REMCP_ADDLP(__uaddlp_4h, 2, 8, uint64_t)
REMCP_ADDLP(__uaddlp_8h, 2, 16, remcp_vec)
REMCP_ADDLP(__uaddlp_2s, 4, 8, uint64_t)
REMCP_ADDLP(__uaddlp_4s, 4, 16, remcp_vec)
/* rev64: lanes reversed inside each 64-bit half. */
#define REMCP_REV64(name, lane, total, T)                                                \
  static inline T name(remcp_vec v) {                                                    \
    remcp_vec r = 0;                                                                     \
    int n = 8 / (lane);                                                                  \
    for (int i = 0; i < (total) / (lane); i++)                                           \
      r = remcp_put(r, lane, i, remcp_get(v, lane, (i / n) * n + (n - 1 - i % n)));      \
    return (T)r;                                                                         \
  }
REMCP_REV64(__rev64_8b, 1, 8, uint64_t)
REMCP_REV64(__rev64_16b, 1, 16, remcp_vec)
REMCP_REV64(__rev64_4h, 2, 8, uint64_t)
REMCP_REV64(__rev64_8h, 2, 16, remcp_vec)
REMCP_REV64(__rev64_2s, 4, 8, uint64_t)
REMCP_REV64(__rev64_4s, 4, 16, remcp_vec)

/* Lane-wise NEON operations, one function per arrangement (`__add_4s`): a and b are lane i of
   each operand zero-extended, sa and sb the same sign-extended, n the lane's bit width. A
   compare gives all ones or zero per lane. An immediate operand (a shift count, the zero of
   `cmeq v0.4s, v1.4s, #0`) is the same in every lane. */
static inline uint64_t remcp_lane_mask(int bytes) { return bytes == 8 ? ~0ull : (1ull << (8 * bytes)) - 1; }
static inline uint64_t remcp_shl(uint64_t a, int64_t s, int n) { return s >= n || s <= -n ? 0 : s >= 0 ? a << s : a >> -s; }
static inline uint64_t remcp_sshl(int64_t a, int64_t s, int n) {
  if (s >= n) return 0;
  if (s <= -n) return (uint64_t)(a < 0 ? -1 : 0);
  return s >= 0 ? (uint64_t)a << s : (uint64_t)(a >> -s);
}
#define REMCP_VLANES(name, lane, total, T, body)                                          \
  static inline T name(remcp_vec x, remcp_vec y) {                                       \
    remcp_vec r = 0;                                                                     \
    int n = 8 * (lane);                                                                  \
    for (int i = 0; i < (total) / (lane); i++) {                                         \
      uint64_t a = remcp_get(x, lane, i), b = remcp_get(y, lane, i);                    \
      int64_t sa = (int64_t)remcp_ext(a, lane, 1), sb = (int64_t)remcp_ext(b, lane, 1);  \
      (void)sa; (void)sb; (void)n;                                                       \
      r = remcp_put(r, lane, i, (uint64_t)(body));                                       \
    }                                                                                    \
    return (T)r;                                                                         \
  }
/* The same with b one value for every lane (an immediate). */
#define REMCP_VLANES_IMM(name, lane, total, T, body)                                      \
  static inline T name(remcp_vec x, uint64_t b) {                                        \
    remcp_vec r = 0;                                                                     \
    int n = 8 * (lane);                                                                  \
    for (int i = 0; i < (total) / (lane); i++) {                                         \
      uint64_t a = remcp_get(x, lane, i);                                                \
      int64_t sa = (int64_t)remcp_ext(a, lane, 1), sb = (int64_t)remcp_ext(b, lane, 1);  \
      (void)sa; (void)sb; (void)n;                                                       \
      r = remcp_put(r, lane, i, (uint64_t)(body));                                       \
    }                                                                                    \
    return (T)r;                                                                         \
  }
#define REMCP_ALL(make, op, body)                                                        \
  make(__##op##_8b, 1, 8, uint64_t, body) make(__##op##_16b, 1, 16, remcp_vec, body)     \
  make(__##op##_4h, 2, 8, uint64_t, body) make(__##op##_8h, 2, 16, remcp_vec, body)      \
  make(__##op##_2s, 4, 8, uint64_t, body) make(__##op##_4s, 4, 16, remcp_vec, body)      \
  make(__##op##_2d, 8, 16, remcp_vec, body)
#define REMCP_ONES(c) ((c) ? ~0ull : 0)
REMCP_ALL(REMCP_VLANES, add, a + b)
REMCP_ALL(REMCP_VLANES, sub, a - b)
REMCP_ALL(REMCP_VLANES, mul, a * b)
REMCP_ALL(REMCP_VLANES, umax, a > b ? a : b)
REMCP_ALL(REMCP_VLANES, umin, a < b ? a : b)
REMCP_ALL(REMCP_VLANES, smax, sa > sb ? a : b)
REMCP_ALL(REMCP_VLANES, smin, sa < sb ? a : b)
REMCP_ALL(REMCP_VLANES, uabd, a > b ? a - b : b - a)
REMCP_ALL(REMCP_VLANES, sabd, sa > sb ? a - b : b - a)
REMCP_ALL(REMCP_VLANES, cmeq, REMCP_ONES(a == b))
REMCP_ALL(REMCP_VLANES, cmtst, REMCP_ONES((a & b) != 0))
REMCP_ALL(REMCP_VLANES, cmhs, REMCP_ONES(a >= b))
REMCP_ALL(REMCP_VLANES, cmhi, REMCP_ONES(a > b))
REMCP_ALL(REMCP_VLANES, cmge, REMCP_ONES(sa >= sb))
REMCP_ALL(REMCP_VLANES, cmgt, REMCP_ONES(sa > sb))
REMCP_ALL(REMCP_VLANES, cmle, REMCP_ONES(sa <= sb))
REMCP_ALL(REMCP_VLANES, cmlt, REMCP_ONES(sa < sb))
/* ushl/sshl shift each lane by the signed low byte of b's lane: left when positive. */
REMCP_ALL(REMCP_VLANES, ushl, remcp_shl(a, (int8_t)b, n))
REMCP_ALL(REMCP_VLANES, sshl, remcp_sshl(sa, (int8_t)b, n))
REMCP_ALL(REMCP_VLANES_IMM, ushr, b >= (uint64_t)n ? 0 : a >> b)
REMCP_ALL(REMCP_VLANES_IMM, sshr, sa >> (b >= (uint64_t)n ? n - 1 : (int)b))
REMCP_ALL(REMCP_VLANES_IMM, shl, a << b)
REMCP_ALL(REMCP_VLANES_IMM, neg, -a)
REMCP_ALL(REMCP_VLANES_IMM, abs, sa < 0 ? -a : a)
/* orr and bic with an immediate read the destination: `__orr_4s(d, imm)`. */
REMCP_ALL(REMCP_VLANES_IMM, orr, a | b)
REMCP_ALL(REMCP_VLANES_IMM, bic, a & ~b)
#define __neg_8b(x) __neg_8b((x), 0)
#define __neg_16b(x) __neg_16b((x), 0)
#define __neg_4h(x) __neg_4h((x), 0)
#define __neg_8h(x) __neg_8h((x), 0)
#define __neg_2s(x) __neg_2s((x), 0)
#define __neg_4s(x) __neg_4s((x), 0)
#define __neg_2d(x) __neg_2d((x), 0)
#define __abs_8b(x) __abs_8b((x), 0)
#define __abs_16b(x) __abs_16b((x), 0)
#define __abs_4h(x) __abs_4h((x), 0)
#define __abs_8h(x) __abs_8h((x), 0)
#define __abs_2s(x) __abs_2s((x), 0)
#define __abs_4s(x) __abs_4s((x), 0)
#define __abs_2d(x) __abs_2d((x), 0)
/* mla/mls: the destination (first) plus or minus the lane products. */
#define REMCP_MLA(name, lane, total, T, sign)                                            \
  static inline T name(remcp_vec d, remcp_vec x, remcp_vec y) {                          \
    remcp_vec r = 0;                                                                     \
    for (int i = 0; i < (total) / (lane); i++)                                           \
      r = remcp_put(r, lane, i, remcp_get(d, lane, i) sign remcp_get(x, lane, i) * remcp_get(y, lane, i)); \
    return (T)r;                                                                         \
  }
REMCP_MLA(__mla_8b, 1, 8, uint64_t, +) REMCP_MLA(__mla_16b, 1, 16, remcp_vec, +)
REMCP_MLA(__mla_4h, 2, 8, uint64_t, +) REMCP_MLA(__mla_8h, 2, 16, remcp_vec, +)
REMCP_MLA(__mla_2s, 4, 8, uint64_t, +) REMCP_MLA(__mla_4s, 4, 16, remcp_vec, +)
REMCP_MLA(__mls_8b, 1, 8, uint64_t, -) REMCP_MLA(__mls_16b, 1, 16, remcp_vec, -)
REMCP_MLA(__mls_4h, 2, 8, uint64_t, -) REMCP_MLA(__mls_8h, 2, 16, remcp_vec, -)
REMCP_MLA(__mls_2s, 4, 8, uint64_t, -) REMCP_MLA(__mls_4s, 4, 16, remcp_vec, -)
/* Across lanes: the largest or smallest lane (signed or not), as the lane's width. */
#define REMCP_REDUCE(name, lane, total, signed_, better)                                 \
  static inline uint64_t name(remcp_vec x) {                                             \
    uint64_t best = remcp_get(x, lane, 0);                                               \
    for (int i = 1; i < (total) / (lane); i++) {                                         \
      uint64_t v = remcp_get(x, lane, i);                                                \
      int64_t sv = (int64_t)remcp_ext(v, lane, 1), sbest = (int64_t)remcp_ext(best, lane, 1); \
      if (signed_ ? sv better sbest : v better best) best = v;                           \
    }                                                                                    \
    return best;                                                                         \
  }
#define REMCP_REDUCE_ALL(op, signed_, better)                                             \
  REMCP_REDUCE(__##op##_8b, 1, 8, signed_, better) REMCP_REDUCE(__##op##_16b, 1, 16, signed_, better) \
  REMCP_REDUCE(__##op##_4h, 2, 8, signed_, better) REMCP_REDUCE(__##op##_8h, 2, 16, signed_, better) \
  REMCP_REDUCE(__##op##_4s, 4, 16, signed_, better)
REMCP_REDUCE_ALL(smaxv, 1, >)
REMCP_REDUCE_ALL(sminv, 1, <)
REMCP_REDUCE_ALL(umaxv, 0, >)
REMCP_REDUCE_ALL(uminv, 0, <)
/* addp: the scalar form (`addp d0, v1.2d`) adds the two lanes; the vector form adds adjacent
   pairs of x, then of y, into the result's lanes. */
#define REMCP_ADDP(name, lane, total, T)                                                 \
  static inline T name##_v(remcp_vec x, remcp_vec y) {                                   \
    remcp_vec r = 0;                                                                     \
    int h = (total) / (lane) / 2;                                                        \
    for (int i = 0; i < h; i++) {                                                        \
      r = remcp_put(r, lane, i, remcp_get(x, lane, 2 * i) + remcp_get(x, lane, 2 * i + 1)); \
      r = remcp_put(r, lane, h + i, remcp_get(y, lane, 2 * i) + remcp_get(y, lane, 2 * i + 1)); \
    }                                                                                    \
    return (T)r;                                                                         \
  }
REMCP_ADDP(remcp_addp_8b, 1, 8, uint64_t) REMCP_ADDP(remcp_addp_16b, 1, 16, remcp_vec)
REMCP_ADDP(remcp_addp_4h, 2, 8, uint64_t) REMCP_ADDP(remcp_addp_8h, 2, 16, remcp_vec)
REMCP_ADDP(remcp_addp_2s, 4, 8, uint64_t) REMCP_ADDP(remcp_addp_4s, 4, 16, remcp_vec)
REMCP_ADDP(remcp_addp_2d, 8, 16, remcp_vec)
static inline uint64_t remcp_addp_2d_s(remcp_vec x) { return (uint64_t)x + (uint64_t)(x >> 64); }
#define REMCP_ARG3(_1, _2, n, ...) n
#define __addp_8b(x, y) remcp_addp_8b_v((x), (y))
#define __addp_16b(x, y) remcp_addp_16b_v((x), (y))
#define __addp_4h(x, y) remcp_addp_4h_v((x), (y))
#define __addp_8h(x, y) remcp_addp_8h_v((x), (y))
#define __addp_2s(x, y) remcp_addp_2s_v((x), (y))
#define __addp_4s(x, y) remcp_addp_4s_v((x), (y))
#define __addp_2d(...) REMCP_ARG3(__VA_ARGS__, remcp_addp_2d_v, remcp_addp_2d_s, 0)(__VA_ARGS__)
/* uaddlp into 64-bit lanes (the other sizes are above). */
REMCP_ADDLP(__uaddlp_2d, 8, 16, remcp_vec)
/* xtn: each lane narrowed to half its width, into the low 8 bytes; xtn2 fills the upper 8 bytes
   of the destination (first) and keeps its lower ones. */
#define REMCP_XTN(name, to)                                                              \
  static inline uint64_t name(remcp_vec x) {                                             \
    uint64_t r = 0;                                                                      \
    for (int i = 0; i < 8 / (to); i++) r = (uint64_t)remcp_put(r, to, i, remcp_get(x, 2 * (to), i)); \
    return r;                                                                            \
  }                                                                                      \
  static inline remcp_vec name##2(remcp_vec d, remcp_vec x) {                            \
    return (remcp_vec)(uint64_t)d | (remcp_vec)name(x) << 64;                            \
  }
REMCP_XTN(__xtn_8b, 1)
REMCP_XTN(__xtn_4h, 2)
REMCP_XTN(__xtn_2s, 4)
#define __xtn2_16b(d, x) __xtn_8b2((d), (x))
#define __xtn2_8h(d, x) __xtn_4h2((d), (x))
#define __xtn2_4s(d, x) __xtn_2s2((d), (x))
/* ext: bytes from index k of the pair (y:x), as many as the register holds. */
static inline uint64_t __ext_8b(uint64_t x, uint64_t y, uint64_t k) {
  return k == 0 ? x : (x >> (8 * k)) | (y << (8 * (8 - k)));
}
static inline remcp_vec __ext_16b(remcp_vec x, remcp_vec y, uint64_t k) {
  return k == 0 ? x : (x >> (8 * k)) | (y << (8 * (16 - k)));
}
/* Floating-point lanes: float (2s, 4s) or double (2d) arithmetic and compares. */
#define REMCP_FLANES(name, lane, total, T, F, body, ones)                                \
  static inline T name(remcp_vec x, remcp_vec y) {                                       \
    remcp_vec r = 0;                                                                     \
    for (int i = 0; i < (total) / (lane); i++) {                                         \
      F a, b;                                                                            \
      uint64_t p = remcp_get(x, lane, i), q = remcp_get(y, lane, i);                     \
      memcpy(&a, &p, sizeof a); memcpy(&b, &q, sizeof b);                                \
      F v = (F)(body);                                                                   \
      uint64_t bits = 0;                                                                 \
      memcpy(&bits, &v, sizeof v);                                                       \
      r = remcp_put(r, lane, i, (ones) ? (v != 0 ? ~0ull : 0) : bits);                    \
    }                                                                                    \
    return (T)r;                                                                         \
  }
#define REMCP_FALL(op, body, ones)                                                       \
  REMCP_FLANES(__##op##_2s, 4, 8, uint64_t, float, body, ones)                           \
  REMCP_FLANES(__##op##_4s, 4, 16, remcp_vec, float, body, ones)                         \
  REMCP_FLANES(__##op##_2d, 8, 16, remcp_vec, double, body, ones)
REMCP_FALL(fadd, a + b, 0)
REMCP_FALL(fsub, a - b, 0)
REMCP_FALL(fmul, a * b, 0)
REMCP_FALL(fdiv, a / b, 0)
REMCP_FALL(fcmeq, a == b, 1)
REMCP_FALL(fcmge, a >= b, 1)
REMCP_FALL(fcmgt, a > b, 1)

/* uzp1/uzp2: the even (odd) lanes of x then of y; zip1/zip2: the low (high) halves of x and y,
   lanes interleaved. */
#define REMCP_PERMUTE(name, lane, total, T, pick)                                        \
  static inline T name(remcp_vec x, remcp_vec y) {                                       \
    remcp_vec r = 0;                                                                     \
    int n = (total) / (lane);                                                            \
    for (int i = 0; i < n; i++) r = remcp_put(r, lane, i, pick);                         \
    return (T)r;                                                                         \
  }
#define REMCP_UZP1(lane) (i < n / 2 ? remcp_get(x, lane, 2 * i) : remcp_get(y, lane, 2 * (i - n / 2)))
#define REMCP_UZP2(lane) (i < n / 2 ? remcp_get(x, lane, 2 * i + 1) : remcp_get(y, lane, 2 * (i - n / 2) + 1))
#define REMCP_ZIP1(lane) (i % 2 == 0 ? remcp_get(x, lane, i / 2) : remcp_get(y, lane, i / 2))
#define REMCP_ZIP2(lane) (i % 2 == 0 ? remcp_get(x, lane, n / 2 + i / 2) : remcp_get(y, lane, n / 2 + i / 2))
#define REMCP_PERMUTE_ALL(op, pick)                                                      \
  REMCP_PERMUTE(__##op##_8b, 1, 8, uint64_t, pick(1)) REMCP_PERMUTE(__##op##_16b, 1, 16, remcp_vec, pick(1)) \
  REMCP_PERMUTE(__##op##_4h, 2, 8, uint64_t, pick(2)) REMCP_PERMUTE(__##op##_8h, 2, 16, remcp_vec, pick(2)) \
  REMCP_PERMUTE(__##op##_2s, 4, 8, uint64_t, pick(4)) REMCP_PERMUTE(__##op##_4s, 4, 16, remcp_vec, pick(4)) \
  REMCP_PERMUTE(__##op##_2d, 8, 16, remcp_vec, pick(8))
REMCP_PERMUTE_ALL(uzp1, REMCP_UZP1)
REMCP_PERMUTE_ALL(uzp2, REMCP_UZP2)
REMCP_PERMUTE_ALL(zip1, REMCP_ZIP1)
REMCP_PERMUTE_ALL(zip2, REMCP_ZIP2)

/* Long operations: lanes of the low half ("2": the upper half) of each source, widened to twice
   their size (signed or not), then combined; smlal/umlal add into the destination (first). */
#define REMCP_LONG(name, to, sign, upper, body)                                          \
  static inline remcp_vec name(remcp_vec x, remcp_vec y) {                               \
    remcp_vec r = 0;                                                                     \
    for (int i = 0; i < 16 / (to); i++) {                                                \
      uint64_t a = remcp_ext(remcp_get(x, (to) / 2, i + (upper) * 8 / ((to) / 2)), (to) / 2, sign); \
      uint64_t b = remcp_ext(remcp_get(y, (to) / 2, i + (upper) * 8 / ((to) / 2)), (to) / 2, sign); \
      r = remcp_put(r, to, i, body);                                                     \
    }                                                                                    \
    return r;                                                                            \
  }
#define REMCP_LONG_ALL(op, sign, body)                                                   \
  REMCP_LONG(__##op##_8h, 2, sign, 0, body) REMCP_LONG(__##op##2_8h, 2, sign, 1, body)   \
  REMCP_LONG(__##op##_4s, 4, sign, 0, body) REMCP_LONG(__##op##2_4s, 4, sign, 1, body)   \
  REMCP_LONG(__##op##_2d, 8, sign, 0, body) REMCP_LONG(__##op##2_2d, 8, sign, 1, body)
REMCP_LONG_ALL(smull, 1, a * b)
REMCP_LONG_ALL(umull, 0, a * b)
REMCP_LONG_ALL(saddl, 1, a + b)
REMCP_LONG_ALL(uaddl, 0, a + b)
REMCP_LONG_ALL(ssubl, 1, a - b)
REMCP_LONG_ALL(usubl, 0, a - b)
#define REMCP_MLAL(op, mul, arr) \
  static inline remcp_vec __##op##_##arr(remcp_vec d, remcp_vec x, remcp_vec y) { return __add_##arr(d, __##mul##_##arr(x, y)); }
REMCP_MLAL(smlal, smull, 8h) REMCP_MLAL(smlal, smull, 4s) REMCP_MLAL(smlal, smull, 2d)
REMCP_MLAL(umlal, umull, 8h) REMCP_MLAL(umlal, umull, 4s) REMCP_MLAL(umlal, umull, 2d)
REMCP_MLAL(smlal2, smull2, 8h) REMCP_MLAL(smlal2, smull2, 4s) REMCP_MLAL(smlal2, smull2, 2d)
REMCP_MLAL(umlal2, umull2, 8h) REMCP_MLAL(umlal2, umull2, 4s) REMCP_MLAL(umlal2, umull2, 2d)

/* ld3/ld4 and st3/st4, one register (one stored vector) at a time: __ld3_ARR(j, m0, m1, m2) is
   register j of ld3 from the vectors m0..m2 at consecutive addresses (elements j, j+3, j+6, …
   of their concatenation), __st3_ARR(j, r0, r1, r2) the j-th vector st3 stores (elements of
   r0, r1, r2 interleaved). */
static inline remcp_vec remcp_ldn(const remcp_vec *m, int regs, int j, int lane, int total) {
  int k = total / lane;
  remcp_vec r = 0;
  for (int i = 0; i < k; i++) r = remcp_put(r, lane, i, remcp_get(m[(regs * i + j) / k], lane, (regs * i + j) % k));
  return r;
}
static inline remcp_vec remcp_stn(const remcp_vec *v, int regs, int j, int lane, int total) {
  int k = total / lane;
  remcp_vec r = 0;
  for (int i = 0; i < k; i++) r = remcp_put(r, lane, i, remcp_get(v[(j * k + i) % regs], lane, (j * k + i) / regs));
  return r;
}
#define REMCP_LANE_8b 1
#define REMCP_LANE_16b 1
#define REMCP_LANE_4h 2
#define REMCP_LANE_8h 2
#define REMCP_LANE_2s 4
#define REMCP_LANE_4s 4
#define REMCP_LANE_2d 8
#define REMCP_TOTAL_8b 8
#define REMCP_TOTAL_16b 16
#define REMCP_TOTAL_4h 8
#define REMCP_TOTAL_8h 16
#define REMCP_TOTAL_2s 8
#define REMCP_TOTAL_4s 16
#define REMCP_TOTAL_2d 16
#define REMCP_XN(kind, arr, regs, j, ...) \
  remcp_##kind((const remcp_vec[]){__VA_ARGS__}, regs, (int)(j), REMCP_LANE_##arr, REMCP_TOTAL_##arr)
#define REMCP_XN_ALL(arr) \
  static inline remcp_vec __ld3_##arr(int j, remcp_vec a, remcp_vec b, remcp_vec c) { return REMCP_XN(ldn, arr, 3, j, a, b, c); } \
  static inline remcp_vec __ld4_##arr(int j, remcp_vec a, remcp_vec b, remcp_vec c, remcp_vec d) { return REMCP_XN(ldn, arr, 4, j, a, b, c, d); } \
  static inline remcp_vec __st3_##arr(int j, remcp_vec a, remcp_vec b, remcp_vec c) { return REMCP_XN(stn, arr, 3, j, a, b, c); } \
  static inline remcp_vec __st4_##arr(int j, remcp_vec a, remcp_vec b, remcp_vec c, remcp_vec d) { return REMCP_XN(stn, arr, 4, j, a, b, c, d); }
REMCP_XN_ALL(8b) REMCP_XN_ALL(16b) REMCP_XN_ALL(4h) REMCP_XN_ALL(8h)
REMCP_XN_ALL(2s) REMCP_XN_ALL(4s) REMCP_XN_ALL(2d)

#endif
