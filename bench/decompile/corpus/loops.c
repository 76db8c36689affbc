/* Loops over caller buffers: for, while, do-while, nested, with break and continue. */
#include "corpus.h"

CORPUS int64_t sum_i32(const int32_t *a, int32_t n) {
  int64_t s = 0;
  for (int32_t i = 0; i < n; i++) s += a[i];
  return s;
}
CORPUS uint32_t sum_u8(const uint8_t *a, uint32_t n) {
  uint32_t s = 0;
  while (n--) s += *a++;
  return s;
}
CORPUS int32_t max_i32(const int32_t *a, int32_t n) {
  if (n <= 0) return INT32_MIN;
  int32_t m = a[0];
  for (int32_t i = 1; i < n; i++)
    if (a[i] > m) m = a[i];
  return m;
}
CORPUS int32_t argmin_i16(const int16_t *a, int32_t n) {
  int32_t best = -1;
  for (int32_t i = 0; i < n; i++)
    if (best < 0 || a[i] < a[best]) best = i;
  return best;
}
CORPUS int32_t count_eq(const uint8_t *a, int32_t n, uint8_t v) {
  int32_t c = 0;
  for (int32_t i = 0; i < n; i++) c += a[i] == v;
  return c;
}
CORPUS int32_t find_first(const int32_t *a, int32_t n, int32_t v) {
  for (int32_t i = 0; i < n; i++)
    if (a[i] == v) return i;
  return -1;
}
CORPUS int32_t find_last_u8(const uint8_t *a, int32_t n, uint8_t v) {
  int32_t i = n;
  while (i > 0) {
    i--;
    if (a[i] == v) return i;
  }
  return -1;
}
CORPUS void reverse_i32(int32_t *a, int32_t n) {
  for (int32_t i = 0, j = n - 1; i < j; i++, j--) {
    int32_t t = a[i];
    a[i] = a[j];
    a[j] = t;
  }
}
CORPUS void prefix_sum(int64_t *a, int32_t n) {
  for (int32_t i = 1; i < n; i++) a[i] += a[i - 1];
}
CORPUS void bubble_sort(int32_t *a, int32_t n) {
  for (int32_t i = 0; i < n; i++) {
    bool swapped = false;
    for (int32_t j = 0; j + 1 < n - i; j++) {
      if (a[j] > a[j + 1]) {
        int32_t t = a[j];
        a[j] = a[j + 1];
        a[j + 1] = t;
        swapped = true;
      }
    }
    if (!swapped) break;
  }
}
CORPUS void insertion_sort_u16(uint16_t *a, int32_t n) {
  for (int32_t i = 1; i < n; i++) {
    uint16_t v = a[i];
    int32_t j = i - 1;
    while (j >= 0 && a[j] > v) {
      a[j + 1] = a[j];
      j--;
    }
    a[j + 1] = v;
  }
}
CORPUS int32_t binary_search(const int32_t *a, int32_t n, int32_t v) {
  /* Sorts a copy first so that the search has a sorted input. */
  int32_t lo = 0, hi = n - 1;
  int32_t tmp[64];
  for (int32_t i = 0; i < n; i++) tmp[i] = a[i];
  for (int32_t i = 1; i < n; i++) {
    int32_t x = tmp[i], j = i - 1;
    while (j >= 0 && tmp[j] > x) {
      tmp[j + 1] = tmp[j];
      j--;
    }
    tmp[j + 1] = x;
  }
  while (lo <= hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (tmp[mid] == v) return mid;
    if (tmp[mid] < v) lo = mid + 1;
    else hi = mid - 1;
  }
  return -(lo + 1);
}
CORPUS int32_t count_pairs_sum(const int8_t *a, int32_t n, int32_t target) {
  int32_t c = 0;
  for (int32_t i = 0; i < n; i++)
    for (int32_t j = i + 1; j < n; j++)
      if (a[i] + a[j] == target) c++;
  return c;
}
CORPUS int32_t first_dup(const uint8_t *a, int32_t n) {
  for (int32_t i = 0; i < n; i++) {
    for (int32_t j = 0; j < i; j++) {
      if (a[j] == a[i]) return i;
    }
  }
  return -1;
}
CORPUS int64_t sum_skip_neg(const int32_t *a, int32_t n) {
  int64_t s = 0;
  for (int32_t i = 0; i < n; i++) {
    if (a[i] < 0) continue;
    if (a[i] > 1000000000) break;
    s += a[i];
  }
  return s;
}
CORPUS int32_t matrix_trace(const int32_t *m, int32_t dim) {
  int32_t t = 0;
  for (int32_t i = 0; i < dim; i++) t += m[i * dim + i];
  return t;
}
CORPUS void matrix_transpose(int32_t *m, int32_t dim) {
  for (int32_t i = 0; i < dim; i++)
    for (int32_t j = i + 1; j < dim; j++) {
      int32_t t = m[i * dim + j];
      m[i * dim + j] = m[j * dim + i];
      m[j * dim + i] = t;
    }
}
CORPUS int64_t matrix_mul_trace(const int16_t *a, const int16_t *b, int32_t dim) {
  int64_t t = 0;
  for (int32_t i = 0; i < dim; i++)
    for (int32_t k = 0; k < dim; k++) t += (int64_t)a[i * dim + k] * b[k * dim + i];
  return t;
}
CORPUS int32_t do_while_digits(uint32_t x, uint8_t *out) {
  int32_t n = 0;
  do {
    out[n++] = (uint8_t)('0' + x % 10);
    x /= 10;
  } while (x != 0);
  return n;
}
CORPUS int32_t collatz_steps(uint32_t x) {
  uint64_t v = x == 0 ? 1 : x;
  int32_t steps = 0;
  while (v != 1 && steps < 1000) {
    v = (v & 1) ? 3 * v + 1 : v / 2;
    steps++;
  }
  return steps;
}
CORPUS int32_t longest_run(const uint8_t *a, int32_t n) {
  int32_t best = 0, cur = 0;
  for (int32_t i = 0; i < n; i++) {
    if (i > 0 && (a[i] & 3) == (a[i - 1] & 3)) cur++;
    else cur = 1;
    if (cur > best) best = cur;
  }
  return best;
}
CORPUS int32_t nested_break(const uint8_t *a, int32_t n, uint8_t v) {
  int32_t found = -1;
  for (int32_t i = 0; i < n && found < 0; i++) {
    for (int32_t j = i; j < n; j++) {
      if ((uint8_t)(a[i] ^ a[j]) == v) {
        found = i * 64 + j;
        break;
      }
      if (a[j] == 0) break;
    }
  }
  return found;
}
CORPUS uint32_t checksum_adler(const uint8_t *a, int32_t n) {
  uint32_t s1 = 1, s2 = 0;
  for (int32_t i = 0; i < n; i++) {
    s1 = (s1 + a[i]) % 65521;
    s2 = (s2 + s1) % 65521;
  }
  return (s2 << 16) | s1;
}
CORPUS uint32_t crc32_bitwise(const uint8_t *a, int32_t n) {
  uint32_t c = 0xffffffffu;
  for (int32_t i = 0; i < n; i++) {
    c ^= a[i];
    for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
  }
  return ~c;
}
CORPUS int32_t count_down_by(int32_t n, int32_t step) {
  int32_t s = step <= 0 ? 1 : (step & 7) + 1;
  int32_t c = 0;
  for (int32_t i = n; i > 0; i -= s) c += i;
  return c;
}
