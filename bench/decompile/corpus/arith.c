/* Integer arithmetic: constants, division and remainder, widening, overflow-free mixes. */
#include "corpus.h"

CORPUS int32_t add3(int32_t a, int32_t b, int32_t c) { return a + b + c; }
CORPUS int64_t mul_add(int64_t a, int64_t b, int64_t c) { return a * b + c; }
CORPUS int32_t sub_abs(int32_t a, int32_t b) { return a > b ? a - b : b - a; }
CORPUS int32_t div_guard(int32_t a, int32_t b) {
  if (b == 0 || (a == INT32_MIN && b == -1)) return 0;
  return a / b;
}
CORPUS int32_t mod_guard(int32_t a, int32_t b) {
  if (b == 0 || (a == INT32_MIN && b == -1)) return -1;
  return a % b;
}
CORPUS uint32_t udiv_guard(uint32_t a, uint32_t b) { return b == 0 ? 0 : a / b; }
CORPUS uint32_t umod_guard(uint32_t a, uint32_t b) { return b == 0 ? a : a % b; }
CORPUS int32_t div_by_7(int32_t a) { return a / 7; }
CORPUS int32_t mod_by_10(int32_t a) { return a % 10; }
CORPUS uint32_t udiv_by_3(uint32_t a) { return a / 3; }
CORPUS uint64_t udiv64_by_1000(uint64_t a) { return a / 1000; }
CORPUS int64_t sdiv64_by_16(int64_t a) { return a / 16; }
CORPUS int32_t times_37(int32_t a) { return a * 37; }
CORPUS int32_t lerp_int(int32_t a, int32_t b, uint8_t t) {
  return (int32_t)(((int64_t)a * (255 - t) + (int64_t)b * t) / 255);
}
CORPUS int64_t widen_mul(int32_t a, int32_t b) { return (int64_t)a * b; }
CORPUS uint64_t uwiden_mul(uint32_t a, uint32_t b) { return (uint64_t)a * b; }
CORPUS int32_t avg_floor(int32_t a, int32_t b) { return (int32_t)(((int64_t)a + b) >> 1); }
CORPUS uint32_t avg_unsigned(uint32_t a, uint32_t b) { return (a & b) + ((a ^ b) >> 1); }
CORPUS int32_t clamp(int32_t x, int32_t lo, int32_t hi) {
  if (lo > hi) return lo;
  if (x < lo) return lo;
  if (x > hi) return hi;
  return x;
}
CORPUS int32_t sign_of(int64_t x) { return (x > 0) - (x < 0); }
CORPUS int32_t max3(int32_t a, int32_t b, int32_t c) {
  int32_t m = a;
  if (b > m) m = b;
  if (c > m) m = c;
  return m;
}
CORPUS uint32_t min_u(uint32_t a, uint32_t b) { return a < b ? a : b; }
CORPUS int32_t poly3(int32_t x) { return ((3 * x - 5) * x + 7) * x - 11; }
CORPUS int16_t add_short(int16_t a, int16_t b) { return (int16_t)(a + b); }
CORPUS uint8_t add_sat_u8(uint8_t a, uint8_t b) {
  uint32_t s = (uint32_t)a + b;
  return s > 255 ? 255 : (uint8_t)s;
}
CORPUS int32_t add_sat_i32(int32_t a, int32_t b) {
  int64_t s = (int64_t)a + b;
  if (s > INT32_MAX) return INT32_MAX;
  if (s < INT32_MIN) return INT32_MIN;
  return (int32_t)s;
}
CORPUS uint64_t gcd_u64(uint64_t a, uint64_t b) {
  while (b != 0) {
    uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}
CORPUS uint32_t isqrt(uint32_t x) {
  uint32_t r = 0, bit = 1u << 30;
  while (bit > x) bit >>= 2;
  while (bit != 0) {
    if (x >= r + bit) {
      x -= r + bit;
      r = (r >> 1) + bit;
    } else {
      r >>= 1;
    }
    bit >>= 2;
  }
  return r;
}
CORPUS uint64_t ipow_mod(uint64_t base, uint32_t e, uint32_t mod) {
  if (mod == 0) return 0;
  uint64_t r = 1 % mod;
  base %= mod;
  while (e) {
    if (e & 1) r = (r * base) % mod;
    base = (base * base) % mod;
    e >>= 1;
  }
  return r;
}
CORPUS int64_t neg_if(int64_t x, bool neg) { return neg ? -x : x; }
CORPUS uint32_t round_up_pow2(uint32_t x, uint8_t sh) {
  uint32_t a = 1u << (sh & 15);
  return (x + a - 1) & ~(a - 1);
}
CORPUS int32_t digits10(uint64_t x) {
  int32_t d = 1;
  while (x >= 10) {
    x /= 10;
    d++;
  }
  return d;
}
