/* Memory routines on caller buffers of 64 elements. */
#include "corpus.h"

CORPUS void my_memcpy(uint8_t *dst, const uint8_t *src, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) dst[i] = src[i];
}
CORPUS void my_memset(uint8_t *dst, int32_t ch, uint64_t n) {
  while (n--) *dst++ = (uint8_t)ch;
}
CORPUS int32_t my_memcmp(const uint8_t *a, const uint8_t *b, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}
CORPUS void memmove_within(uint8_t *buf, uint32_t i, uint32_t j, uint32_t len) {
  /* Moves len bytes from buf+i to buf+j inside one 64-byte buffer, overlapping allowed. */
  if (len > 64 - (i > j ? i : j)) len = 64 - (i > j ? i : j);
  if (j < i) {
    for (uint32_t k = 0; k < len; k++) buf[j + k] = buf[i + k];
  } else {
    for (uint32_t k = len; k > 0; k--) buf[j + k - 1] = buf[i + k - 1];
  }
}
CORPUS uint8_t *my_memchr(uint8_t *p, uint8_t v, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (p[i] == v) return p + i;
  return 0;
}
CORPUS void copy_u32_stride(uint32_t *dst, const uint32_t *src, int32_t n) {
  for (int32_t i = 0; i < n / 2; i++) dst[i] = src[2 * i] + src[2 * i + 1];
}
CORPUS void zero_i64(int64_t *a, int32_t n) {
  for (int32_t i = 0; i < n; i++) a[i] = 0;
}
CORPUS void fill_iota(int16_t *a, int32_t n, int16_t start) {
  for (int32_t i = 0; i < n; i++) a[i] = (int16_t)(start + i);
}
CORPUS void swap_bufs(uint32_t *a, uint32_t *b, int32_t n) {
  for (int32_t i = 0; i < n; i++) {
    uint32_t t = a[i];
    a[i] = b[i];
    b[i] = t;
  }
}
CORPUS void xor_buf(uint8_t *dst, const uint8_t *key, int32_t n, int32_t len) {
  int32_t kl = (len & 7) + 1;
  for (int32_t i = 0; i < n; i++) dst[i] ^= key[i % kl];
}
CORPUS uint32_t load_le32(const uint8_t *p, uint32_t pos) {
  const uint8_t *q = p + (pos & 31);
  return q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
}
CORPUS uint64_t load_be64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v = (v << 8) | p[i];
  return v;
}
CORPUS void store_le16(uint8_t *p, uint32_t pos, uint16_t v) {
  p[pos] = (uint8_t)v;
  p[pos + 1] = (uint8_t)(v >> 8);
}
CORPUS void store_be32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}
CORPUS int32_t compact_nonzero(int32_t *a, int32_t n) {
  int32_t w = 0;
  for (int32_t r = 0; r < n; r++)
    if (a[r] != 0) a[w++] = a[r];
  return w;
}
CORPUS void rotate_left_buf(uint8_t *a, int32_t n, int32_t k) {
  if (n <= 0) return;
  int32_t s = k % n;
  for (int32_t r = 0; r < s; r++) {
    uint8_t first = a[0];
    for (int32_t i = 0; i + 1 < n; i++) a[i] = a[i + 1];
    a[n - 1] = first;
  }
}
CORPUS void histogram(const uint8_t *a, int32_t n, uint32_t *hist) {
  for (int32_t i = 0; i < 16; i++) hist[i] = 0;
  for (int32_t i = 0; i < n; i++) hist[a[i] & 15]++;
}
CORPUS uint64_t dot_u16(const uint16_t *a, const uint16_t *b, int32_t n) {
  uint64_t s = 0;
  for (int32_t i = 0; i < n; i++) s += (uint32_t)a[i] * b[i];
  return s;
}
CORPUS void widen_i8_i32(int32_t *dst, const int8_t *src, int32_t n) {
  for (int32_t i = 0; i < n; i++) dst[i] = src[i] * 3;
}
CORPUS void narrow_sat(uint8_t *dst, const int32_t *src, int32_t n) {
  for (int32_t i = 0; i < n; i++) {
    int32_t v = src[i] >> 20;
    dst[i] = v < 0 ? 0 : v > 255 ? 255 : (uint8_t)v;
  }
}
CORPUS int32_t count_bits_buf(const uint64_t *a, int32_t n) {
  int32_t c = 0;
  for (int32_t i = 0; i < n; i++) {
    uint64_t x = a[i];
    while (x) {
      c++;
      x &= x - 1;
    }
  }
  return c;
}
CORPUS bool all_equal(const int16_t *a, int32_t n) {
  for (int32_t i = 1; i < n; i++)
    if (a[i] != a[0]) return false;
  return true;
}
