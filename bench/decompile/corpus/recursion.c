/* Recursion: direct, mutual, tree-shaped, with accumulators, and calls between corpus functions. */
#include "corpus.h"

CORPUS uint64_t fact(uint32_t depth) { return depth <= 1 ? 1 : depth * fact(depth - 1); }
CORPUS uint32_t fib_rec(uint32_t depth) {
  return depth < 2 ? depth : fib_rec(depth - 1) + fib_rec(depth - 2);
}
CORPUS uint64_t fib_acc(uint32_t depth, uint64_t a, uint64_t b) {
  return depth == 0 ? a : fib_acc(depth - 1, b, a + b);
}
CORPUS bool is_even_rec(uint32_t depth);
CORPUS bool is_odd_rec(uint32_t depth) { return depth == 0 ? false : is_even_rec(depth - 1); }
CORPUS bool is_even_rec(uint32_t depth) { return depth == 0 ? true : is_odd_rec(depth - 1); }
CORPUS int32_t ackermann_small(uint32_t m, uint32_t depth) {
  uint32_t mm = m & 1;
  uint32_t nn = depth & 7;
  if (mm == 0) return (int32_t)nn + 1;
  if (nn == 0) return ackermann_small(mm - 1, 1);
  return ackermann_small(mm - 1, (uint32_t)ackermann_small(mm, nn - 1));
}
CORPUS uint64_t gcd_rec(uint64_t a, uint64_t b) { return b == 0 ? a : gcd_rec(b, a % b); }
CORPUS int64_t sum_rec(const int32_t *a, int32_t n) {
  return n <= 0 ? 0 : a[n - 1] + sum_rec(a, n - 1);
}
CORPUS int32_t max_rec(const int32_t *a, int32_t n) {
  if (n == 1) return a[0];
  if (n <= 0) return INT32_MIN;
  int32_t h = n / 2;
  int32_t l = max_rec(a, h), r = max_rec(a + h, n - h);
  return l > r ? l : r;
}
CORPUS uint32_t binom(uint32_t depth, uint32_t k) {
  uint32_t n = depth;
  uint32_t kk = k % (n + 1);
  if (kk == 0 || kk == n) return 1;
  return binom(n - 1, kk - 1) + binom(n - 1, kk);
}
CORPUS void quicksort(int32_t *a, int32_t n) {
  if (n < 2) return;
  int32_t p = a[n / 2], i = 0, j = n - 1;
  while (i <= j) {
    while (a[i] < p) i++;
    while (a[j] > p) j--;
    if (i <= j) {
      int32_t t = a[i];
      a[i] = a[j];
      a[j] = t;
      i++;
      j--;
    }
  }
  quicksort(a, j + 1);
  quicksort(a + i, n - i);
}
CORPUS int32_t power_rec(int32_t b, uint32_t sh) {
  if (sh == 0) return 1;
  int32_t h = power_rec(b, sh / 2);
  return (sh & 1) ? h * h * b : h * h;
}
CORPUS int32_t digit_sum_rec(uint64_t x) { return x < 10 ? (int32_t)x : (int32_t)(x % 10) + digit_sum_rec(x / 10); }
CORPUS int32_t hanoi_moves(uint32_t depth, int32_t from, int32_t to) {
  if (depth == 0) return 0;
  int32_t via = 6 - (from & 3) - (to & 3);
  return hanoi_moves(depth - 1, from, via) + 1 + hanoi_moves(depth - 1, via, to);
}
CORPUS int32_t square_i(int32_t x) { return x * x; }
CORPUS int64_t sum_squares(const int32_t *a, int32_t n) {
  int64_t s = 0;
  for (int32_t i = 0; i < n; i++) s += square_i(a[i]);
  return s;
}
CORPUS uint32_t mix_step(uint32_t x) { return x * 0x9e3779b1u ^ (x >> 15); }
CORPUS uint32_t mix_twice(uint32_t x) { return mix_step(mix_step(x)) + 1; }
