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

/* Scalar SSE at float and double: arithmetic, compares (ordered and unordered), conversions,
   the sign-mask idioms and loops over arrays of floating-point values. */
CORPUS double clamp_d(double x, double lo, double hi) {
  if (x < lo) return lo;
  if (x > hi) return hi;
  return x;
}
CORPUS double lerp_d(double a, double b, double t) { return a + (b - a) * t; }
CORPUS float poly3_f(float x) { return ((2.5f * x - 1.0f) * x + 0.25f) * x - 3.0f; }
CORPUS float add3_f(float a, float b, float c) { return a + b * c; }
CORPUS double mean_d(const double *a, int32_t n) {
  if (n <= 0) return 0.0;
  double s = 0.0;
  for (int32_t i = 0; i < n; i++) s += a[i];
  return s / n;
}
CORPUS double variance_d(const double *a, int32_t n) {
  if (n <= 1) return 0.0;
  double m = 0.0, s = 0.0;
  for (int32_t i = 0; i < n; i++) m += a[i];
  m /= n;
  for (int32_t i = 0; i < n; i++) s += (a[i] - m) * (a[i] - m);
  return s / (n - 1);
}
CORPUS double dot_d(const double *a, const double *b, int32_t n) {
  double s = 0.0;
  for (int32_t i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}
CORPUS double max_abs_d(const double *a, int32_t n) {
  double m = 0.0;
  for (int32_t i = 0; i < n; i++) {
    double v = a[i] < 0 ? -a[i] : a[i];
    if (v > m) m = v;
  }
  return m;
}
CORPUS int32_t count_above_d(const double *a, int32_t n, double t) {
  int32_t c = 0;
  for (int32_t i = 0; i < n; i++) c += a[i] > t;
  return c;
}
CORPUS double f2d(float x) { return (double)x * 2.0; }
CORPUS float d2f(double x) { return (float)(x * 0.5); }
CORPUS double u32_to_d(uint32_t a) { return (double)a + 0.5; }
CORPUS float i64_to_f(int64_t a) { return (float)a; }
CORPUS uint8_t d_to_u8_sat(double x) {
  if (!(x > 0.0)) return 0;
  if (x >= 255.0) return 255;
  return (uint8_t)x;
}
CORPUS int32_t sign_d(double x) { return (x > 0.0) - (x < 0.0); }
CORPUS double neg_mul_d(double a, double b) { return -(a * b); }
CORPUS double hypot_sq_d(double x, double y) { return x * x + y * y; }
CORPUS double sqrt_pos_d(double x) { return x > 0.0 ? __builtin_sqrt(x) : 0.0; }
CORPUS bool eq_d(double a, double b) { return a == b; }
CORPUS bool ne_d(double a, double b) { return a != b; }
CORPUS bool ge_f(float a, float b) { return a >= b; }
CORPUS bool unordered_d(double a, double b) { return a != a || b != b; }
CORPUS int32_t round_i32_d(double x) {
  if (!(x > -1e9 && x < 1e9)) return 0;
  return (int32_t)(x < 0 ? x - 0.5 : x + 0.5);
}
CORPUS double min3_d(double a, double b, double c) {
  double m = a < b ? a : b;
  return m < c ? m : c;
}
CORPUS double scale_sum_d(double *out, const double *a, int32_t n, double k) {
  double s = 0.0;
  for (int32_t i = 0; i < n; i++) {
    out[i] = a[i] * k;
    s += out[i];
  }
  return s;
}
CORPUS float sum_f(const float *a, int32_t n) {
  float s = 0.0f;
  for (int32_t i = 0; i < n; i++) s += a[i];
  return s;
}
CORPUS int64_t trunc_i64_d(double x) {
  if (!(x > -9e18 && x < 9e18)) return -1;
  return (int64_t)x;
}
CORPUS double mix_args_d(int32_t a, double x, int64_t b, double y) { return a * x + b * y; }
CORPUS double piecewise_d(double x) {
  if (x < -1.0) return -1.0;
  if (x < 0.0) return x * x * -1.0;
  if (x < 1.0) return x * x;
  return 1.0 + (x - 1.0) * 0.5;
}
