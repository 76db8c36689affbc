/* Signed/unsigned mixes: comparisons, extensions, truncations, conversions. */
#include "corpus.h"

CORPUS bool lt_signed(int32_t a, int32_t b) { return a < b; }
CORPUS bool lt_unsigned(uint32_t a, uint32_t b) { return a < b; }
CORPUS bool le_mixed(int32_t a, uint32_t b) { return (int64_t)a <= (int64_t)b; }
CORPUS bool ge_u64(uint64_t a, uint64_t b) { return a >= b; }
CORPUS bool gt_i64(int64_t a, int64_t b) { return a > b; }
CORPUS int32_t cmp3_u8(uint8_t a, uint8_t b) { return (a > b) - (a < b); }
CORPUS int64_t sext_8_64(int8_t x) { return x; }
CORPUS uint64_t zext_8_64(uint8_t x) { return x; }
CORPUS int64_t sext_16_64(int16_t x) { return (int64_t)x * 3; }
CORPUS int32_t sext_32_from_u16(uint16_t x) { return (int16_t)x; }
CORPUS uint32_t trunc_64_32(uint64_t x) { return (uint32_t)x ^ (uint32_t)(x >> 32); }
CORPUS int8_t trunc_to_i8(int32_t x) { return (int8_t)(x + 3); }
CORPUS uint16_t trunc_to_u16(int64_t x) { return (uint16_t)(x * 5); }
CORPUS int32_t mixed_div(int32_t a, uint16_t b) { return b == 0 ? 0 : a / (int32_t)b; }
CORPUS uint32_t mixed_shift(int32_t a, uint32_t sh) { return (uint32_t)a >> sh; }
CORPUS int32_t signed_shift(int32_t a, uint32_t sh) { return a >> sh; }
CORPUS int32_t in_range_u(int32_t x, int32_t lo, int32_t n) {
  return (uint32_t)(x - lo) < (uint32_t)n;
}
CORPUS int64_t abs_diff_u(uint32_t a, uint32_t b) { return a > b ? (int64_t)(a - b) : -(int64_t)(b - a); }
CORPUS uint8_t byte_of(uint64_t x, uint32_t k) { return (uint8_t)(x >> ((k & 7) * 8)); }
CORPUS int32_t count_negative(const int8_t *a, int32_t n) {
  int32_t c = 0;
  for (int32_t i = 0; i < n; i++) c += a[i] < 0;
  return c;
}
CORPUS int32_t sum_as_signed(const uint8_t *a, int32_t n) {
  int32_t s = 0;
  for (int32_t i = 0; i < n; i++) s += (int8_t)a[i];
  return s;
}
CORPUS uint32_t sum_as_unsigned(const int16_t *a, int32_t n) {
  uint32_t s = 0;
  for (int32_t i = 0; i < n; i++) s += (uint16_t)a[i];
  return s;
}
/* x86-32 has no __int128: the high half from 32-bit halves there (the same values). */
CORPUS int64_t mul_hi_signed(int64_t a, int64_t b) {
#ifdef __SIZEOF_INT128__
  return (int64_t)(((__int128)a * b) >> 64);
#else
  uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
  uint64_t ll = (ua & 0xffffffffu) * (ub & 0xffffffffu), lh = (ua & 0xffffffffu) * (ub >> 32);
  uint64_t hl = (ua >> 32) * (ub & 0xffffffffu), hh = (ua >> 32) * (ub >> 32);
  uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
  uint64_t hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
  return (int64_t)(hi - (a < 0 ? ub : 0) - (b < 0 ? ua : 0));
#endif
}
CORPUS uint64_t mul_hi_unsigned(uint64_t a, uint64_t b) {
#ifdef __SIZEOF_INT128__
  return (uint64_t)(((unsigned __int128)a * b) >> 64);
#else
  uint64_t ll = (a & 0xffffffffu) * (b & 0xffffffffu), lh = (a & 0xffffffffu) * (b >> 32);
  uint64_t hl = (a >> 32) * (b & 0xffffffffu), hh = (a >> 32) * (b >> 32);
  uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
  return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
#endif
}
CORPUS bool add_overflows(int32_t a, int32_t b) {
  int64_t s = (int64_t)a + b;
  return s != (int32_t)s;
}
CORPUS bool uadd_carry(uint64_t a, uint64_t b) { return a + b < a; }
CORPUS int32_t bool_arith(int32_t a, int32_t b, int32_t c) {
  return (a < b) + 2 * (b < c) + 4 * (a == c) + 8 * (a != 0 && b != 0);
}
CORPUS int32_t ternary_chain(int32_t x) {
  return x < -1000 ? -3 : x < 0 ? -1 : x == 0 ? 0 : x < 1000 ? 1 : 3;
}
CORPUS int64_t sdiv_round(int64_t a, int32_t b) {
  if (b <= 0) return 0;
  int64_t q = a / b, r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) q--;
  return q;
}
CORPUS uint32_t u8_mul_wrap(uint8_t a, uint8_t b) {
  uint8_t p = (uint8_t)(a * b);
  return p + (uint32_t)(a > b);
}
CORPUS int32_t bool_not_logic(bool a, bool b) { return !a || (b && !a) ? 7 : 9; }
CORPUS uint64_t neg_unsigned(uint64_t x) { return 0 - x; }
