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

#endif
