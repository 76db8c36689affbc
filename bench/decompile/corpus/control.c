/* Control flow: early returns, short-circuit conditions, nested ifs, loops with several exits. */
#include "corpus.h"

CORPUS int32_t early_ret(int32_t a, int32_t b) {
  if (a == 0) return -1;
  if (b == 0) return -2;
  if (a > b) return 1;
  if (a < b) return 2;
  return 0;
}
CORPUS bool and_chain(int32_t a, int32_t b, int32_t c) { return a > 0 && b > a && c > b; }
CORPUS bool or_chain(int32_t a, int32_t b, int32_t c) { return a == 7 || b == 11 || c < -5; }
CORPUS int32_t mixed_logic(int32_t a, int32_t b, int32_t c) {
  if ((a > 0 && b > 0) || (c < 0 && a != b)) return a + b;
  if (!(a & 1) || (b & 2)) return c;
  return a - c;
}
CORPUS int32_t nested_if(int32_t a, int32_t b) {
  int32_t r = 0;
  if (a > 0) {
    if (b > 0) r = 1;
    else if (b < 0) r = 2;
    else r = 3;
  } else {
    if (b > 100) r = 4;
    else r = 5 + (a < -100);
  }
  return r * 10 + (a == b);
}
CORPUS int32_t validate(const char *s) {
  if (!*s) return 0;
  if (*s < 'a' || *s > 'z') return -1;
  for (int32_t i = 1; s[i]; i++) {
    if (s[i] == ' ') return -2;
    if (i > 30) return -3;
  }
  return 1;
}
CORPUS int32_t loop_two_exits(const int32_t *a, int32_t n, int32_t v) {
  int32_t i = 0;
  while (i < n) {
    if (a[i] == v) return i;
    if (a[i] == -v) break;
    i++;
  }
  return -1000 - i;
}
CORPUS int32_t nested_continue(const uint8_t *a, int32_t n) {
  int32_t score = 0;
  for (int32_t i = 0; i < n; i++) {
    if (a[i] & 1) continue;
    for (int32_t j = 0; j < 8; j++) {
      if (((a[i] >> j) & 1) == 0) continue;
      if (j == 6) break;
      score += j;
    }
    score++;
  }
  return score;
}
CORPUS int32_t triple_nested(int32_t n) {
  int32_t c = 0;
  for (int32_t i = 0; i < n % 8; i++)
    for (int32_t j = 0; j <= i; j++)
      for (int32_t k = j; k <= i; k++) {
        if ((i + j + k) % 3 == 0) continue;
        c += i * j - k;
      }
  return c;
}
CORPUS int32_t labelled_exit(const uint8_t *grid, int32_t dim, uint8_t v) {
  int32_t r = -1;
  for (int32_t i = 0; i < dim; i++)
    for (int32_t j = 0; j < dim; j++)
      if (grid[i * dim + j] == v) {
        r = i * 8 + j;
        goto done;
      }
done:
  return r;
}
CORPUS int32_t retry_loop(uint32_t seed) {
  uint32_t x = seed;
  for (int32_t tries = 0; tries < 50; tries++) {
    x = x * 1103515245u + 12345u;
    if ((x >> 16) % 7 == 3) return tries;
    if ((x >> 16) % 11 == 5) continue;
    x ^= x >> 5;
  }
  return -1;
}
CORPUS int32_t cond_select(int32_t a, int32_t b, bool c) {
  int32_t x = c ? a : b;
  int32_t y = c ? b : a;
  return x * 2 - y;
}
CORPUS uint32_t min_of_three_u(uint32_t a, uint32_t b, uint32_t c) {
  return a < b ? (a < c ? a : c) : (b < c ? b : c);
}
CORPUS int32_t classify_triangle(int32_t a, int32_t b, int32_t c) {
  if (a <= 0 || b <= 0 || c <= 0) return 0;
  if ((int64_t)a + b <= c || (int64_t)a + c <= b || (int64_t)b + c <= a) return 1;
  if (a == b && b == c) return 2;
  if (a == b || b == c || a == c) return 3;
  return 4;
}
CORPUS int32_t while_true_break(uint32_t x) {
  int32_t n = 0;
  while (1) {
    if (x < 2) break;
    x = (x & 1) ? x - 1 : x >> 1;
    n++;
  }
  return n;
}
CORPUS int32_t do_while_continue(uint32_t x) {
  int32_t n = 0;
  do {
    x >>= 1;
    if (x & 4) continue;
    n += (int32_t)(x & 3);
  } while (x);
  return n;
}
CORPUS int64_t loop_with_flag(const int32_t *a, int32_t n) {
  bool neg_seen = false;
  int64_t s = 0;
  for (int32_t i = 0; i < n; i++) {
    if (a[i] < 0) neg_seen = true;
    s += neg_seen ? -(int64_t)a[i] : a[i];
  }
  return s;
}
CORPUS int32_t leap_year(int32_t y) {
  if (y % 4 != 0) return 0;
  if (y % 100 != 0) return 1;
  return y % 400 == 0;
}
CORPUS int32_t days_in_month(int32_t m, int32_t y) {
  if (m < 1 || m > 12) return 0;
  if (m == 2) return 28 + leap_year(y);
  if (m == 4 || m == 6 || m == 9 || m == 11) return 30;
  return 31;
}
CORPUS int32_t search_2d(const int16_t *m, int32_t dim, int16_t v) {
  for (int32_t i = 0; i < dim; i++) {
    if (m[i * dim] > v) break;
    for (int32_t j = 0; j < dim; j++) {
      if (m[i * dim + j] == v) return i * dim + j;
      if (m[i * dim + j] > v) break;
    }
  }
  return -1;
}
CORPUS int32_t bounded_scan(const uint8_t *a, int32_t n, uint8_t lo, uint8_t hi) {
  int32_t i = 0;
  for (; i < n; i++) {
    if (a[i] < lo) continue;
    if (a[i] > hi) break;
    if (a[i] == lo && a[i] == hi) return -i;
  }
  return i;
}
CORPUS uint32_t fsm_parse_number(const char *s) {
  uint32_t v = 0;
  int32_t state = 0;
  for (; *s; s++) {
    char c = *s;
    if (state == 0) {
      if (c == ' ') continue;
      state = 1;
    }
    if (state == 1) {
      if (c < '0' || c > '9') return v | 0x80000000u;
      v = v * 10 + (uint32_t)(c - '0');
      if (v > 100000) return v;
    }
  }
  return v;
}
