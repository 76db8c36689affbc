/* Bit tricks: masks, shifts, rotations, counting, byte swaps. */
#include "corpus.h"

CORPUS uint32_t popcount32(uint32_t x) {
  uint32_t c = 0;
  while (x) {
    x &= x - 1;
    c++;
  }
  return c;
}
CORPUS uint32_t popcount_swar(uint32_t x) {
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  x = (x + (x >> 4)) & 0x0f0f0f0fu;
  return (x * 0x01010101u) >> 24;
}
CORPUS uint32_t rotl32(uint32_t x, uint32_t sh) { return (x << sh) | (x >> ((32 - sh) & 31)); }
CORPUS uint64_t rotr64(uint64_t x, uint32_t sh64) {
  return (x >> sh64) | (x << ((64 - sh64) & 63));
}
CORPUS uint32_t bswap32_manual(uint32_t x) {
  return (x >> 24) | ((x >> 8) & 0xff00u) | ((x << 8) & 0xff0000u) | (x << 24);
}
CORPUS uint16_t bswap16_manual(uint16_t x) { return (uint16_t)((x >> 8) | (x << 8)); }
CORPUS uint64_t bswap64_manual(uint64_t x) {
  uint64_t r = 0;
  for (int i = 0; i < 8; i++) {
    r = (r << 8) | (x & 0xff);
    x >>= 8;
  }
  return r;
}
CORPUS int32_t ctz32_loop(uint32_t x) {
  if (x == 0) return 32;
  int32_t n = 0;
  while ((x & 1) == 0) {
    x >>= 1;
    n++;
  }
  return n;
}
CORPUS int32_t clz32_loop(uint32_t x) {
  int32_t n = 0;
  for (uint32_t m = 0x80000000u; m != 0 && (x & m) == 0; m >>= 1) n++;
  return n;
}
CORPUS bool is_pow2(uint64_t x) { return x != 0 && (x & (x - 1)) == 0; }
CORPUS uint32_t lowest_bit(uint32_t x) { return x & (0u - x); }
CORPUS uint32_t clear_lowest(uint32_t x) { return x & (x - 1); }
CORPUS uint32_t next_pow2(uint32_t x) {
  if (x == 0) return 1;
  x--;
  x |= x >> 1;
  x |= x >> 2;
  x |= x >> 4;
  x |= x >> 8;
  x |= x >> 16;
  return x + 1;
}
CORPUS uint32_t reverse_bits(uint32_t x) {
  uint32_t r = 0;
  for (int i = 0; i < 32; i++) {
    r = (r << 1) | (x & 1);
    x >>= 1;
  }
  return r;
}
CORPUS bool parity64(uint64_t x) {
  x ^= x >> 32;
  x ^= x >> 16;
  x ^= x >> 8;
  x ^= x >> 4;
  x ^= x >> 2;
  x ^= x >> 1;
  return x & 1;
}
CORPUS uint32_t set_bit(uint32_t x, uint32_t bit) { return x | (1u << bit); }
CORPUS uint32_t clear_bit(uint32_t x, uint32_t bit) { return x & ~(1u << bit); }
CORPUS bool test_bit(uint64_t x, uint32_t sh64) { return (x >> sh64) & 1; }
CORPUS uint32_t extract_field(uint32_t x, uint32_t sh, uint8_t width) {
  uint32_t w = width & 15;
  return (x >> sh) & ((1u << w) - 1);
}
CORPUS uint32_t insert_field(uint32_t x, uint32_t v, uint32_t sh) {
  uint32_t mask = 0xffu << sh;
  return (x & ~mask) | ((v << sh) & mask);
}
CORPUS int32_t sar_signed(int32_t x, uint32_t sh) { return x >> sh; }
CORPUS uint32_t shr_unsigned(uint32_t x, uint32_t sh) { return x >> sh; }
CORPUS int64_t sign_extend_bits(uint64_t x, uint32_t bit) {
  uint32_t b = bit + 1;
  uint64_t m = 1ull << (b - 1);
  x &= (b == 64) ? ~0ull : ((1ull << b) - 1);
  return (int64_t)((x ^ m) - m);
}
CORPUS uint32_t gray_encode(uint32_t x) { return x ^ (x >> 1); }
CORPUS uint32_t gray_decode(uint32_t g) {
  uint32_t x = g;
  while (g >>= 1) x ^= g;
  return x;
}
CORPUS uint64_t interleave16(uint16_t a, uint16_t b) {
  uint64_t r = 0;
  for (int i = 0; i < 16; i++) {
    r |= (uint64_t)((a >> i) & 1) << (2 * i);
    r |= (uint64_t)((b >> i) & 1) << (2 * i + 1);
  }
  return r;
}
CORPUS uint32_t xorshift32(uint32_t x) {
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return x;
}
CORPUS uint64_t fnv_mix(uint64_t h, uint8_t b) { return (h ^ b) * 0x100000001b3ull; }
CORPUS int32_t abs_branchless(int32_t x) {
  int32_t m = x >> 31;
  return (x ^ m) - m;
}
CORPUS uint32_t select_mask(uint32_t a, uint32_t b, bool c) {
  uint32_t m = 0u - (uint32_t)c;
  return (a & m) | (b & ~m);
}
