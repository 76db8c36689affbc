/* Floating point: arithmetic, conversions and comparisons on doubles and integers. */
#include "corpus.h"

CORPUS double fadd3(double a, double b, double c) { return a + b + c; }
CORPUS double fmul_sub(double a, double b, double c) { return a * b - c; }
CORPUS int32_t dtoi_clamped(double x) {
  if (!(x > -1e9)) return -1000000000;
  if (x > 1e9) return 1000000000;
  return (int32_t)x;
}
CORPUS double itod_scale(int32_t a, int32_t b) { return (double)a * 0.5 + (double)b / 4.0; }
CORPUS bool fless(double a, double b) { return a < b; }
CORPUS double fmax2(double a, double b) { return a > b ? a : b; }
CORPUS double poly_eval(const double *c, int32_t n, double x) {
  double r = 0;
  for (int32_t i = n - 1; i >= 0; i--) r = r * x + c[i];
  return r;
}
CORPUS double mean_i32(const int32_t *a, int32_t n) {
  if (n <= 0) return 0;
  int64_t s = 0;
  for (int32_t i = 0; i < n; i++) s += a[i];
  return (double)s / n;
}
CORPUS int64_t round_half_up(double x) {
  if (!(x > -1e15 && x < 1e15)) return 0;
  double f = (double)(int64_t)x;
  if (f > x) f -= 1;
  return (int64_t)f + (x - f >= 0.5);
}
CORPUS double fabs_manual(double x) { return x < 0 ? -x : x; }
