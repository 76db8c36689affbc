/* Pointer walks: index-linked lists in buffers, two-pointer scans, pointer arithmetic, out-params. */
#include "corpus.h"

CORPUS int32_t list_length(const uint8_t *next, int32_t start) {
  /* next[i] & 63 is the successor of node i; 0xff ends the list. Bounded against cycles. */
  int32_t n = 0;
  uint32_t i = (uint32_t)start & 63;
  while (n < 64 && next[i] != 0xff) {
    i = next[i] & 63;
    n++;
  }
  return n;
}
CORPUS uint32_t list_sum(const uint8_t *next, const uint32_t *val, uint32_t pos) {
  uint32_t s = 0;
  for (int32_t steps = 0; steps < 40; steps++) {
    s += val[pos];
    if (next[pos] >= 200) break;
    pos = next[pos] & 63;
  }
  return s;
}
CORPUS int32_t cycle_len(const uint8_t *next, uint32_t pos) {
  /* Floyd: slow and fast pointers over the function i -> next[i] & 63. */
  uint32_t slow = pos, fast = pos;
  do {
    slow = next[slow] & 63;
    fast = next[next[fast] & 63] & 63;
  } while (slow != fast);
  int32_t len = 1;
  for (uint32_t p = next[slow] & 63; p != slow; p = next[p] & 63) len++;
  return len;
}
CORPUS int32_t *find_ptr(int32_t *a, int32_t n, int32_t v) {
  int32_t *end = a + n;
  for (int32_t *p = a; p < end; p++)
    if (*p == v) return p;
  return end;
}
CORPUS int64_t ptr_diff_sum(const int16_t *a, int32_t n) {
  const int16_t *lo = a, *hi = a + n - 1;
  int64_t s = 0;
  while (lo < hi) s += *hi-- - *lo++;
  return s;
}
CORPUS void minmax_out(const int32_t *a, int32_t n, int32_t *out) {
  int32_t mn = INT32_MAX, mx = INT32_MIN;
  for (const int32_t *p = a; p != a + n; ++p) {
    if (*p < mn) mn = *p;
    if (*p > mx) mx = *p;
  }
  out[0] = mn;
  out[1] = mx;
}
CORPUS int32_t divmod_out(int32_t a, int32_t b, int32_t *out) {
  if (b == 0 || (a == INT32_MIN && b == -1)) return 0;
  out[0] = a / b;
  out[1] = a % b;
  return 1;
}
CORPUS void merge_sorted(const uint8_t *a, int32_t n, const uint8_t *b, int32_t m, uint8_t *dst) {
  /* Each input is first taken as sorted prefix lengths of what it holds: merge the runs. */
  int32_t na = n / 2, nb = m / 2;
  int32_t i = 0, j = 0, k = 0;
  while (i < na && j < nb) dst[k++] = a[i] <= b[j] ? a[i++] : b[j++];
  while (i < na) dst[k++] = a[i++];
  while (j < nb) dst[k++] = b[j++];
}
CORPUS uint64_t walk_2d(const uint8_t *grid, int32_t dim) {
  /* Follows arrows in a dim x dim grid from the corner for at most 64 steps. */
  if (dim <= 0) return 0;
  int32_t r = 0, c = 0;
  uint64_t path = 0;
  for (int32_t s = 0; s < 64; s++) {
    uint8_t g = grid[r * dim + c];
    path = path * 5 + (g & 3);
    switch (g & 3) {
      case 0: r = (r + 1) % dim; break;
      case 1: c = (c + 1) % dim; break;
      case 2: r = (r + dim - 1) % dim; break;
      default: c = (c + dim - 1) % dim; break;
    }
  }
  return path;
}
CORPUS int32_t tokenize_count(char *s) {
  /* Splits in place at commas, returns the number of non-empty fields. */
  int32_t n = 0;
  char *start = s;
  for (char *p = s;; p++) {
    if (*p == ',' || *p == 0) {
      bool end = *p == 0;
      if (p > start) n++;
      *p = 0;
      start = p + 1;
      if (end) break;
    }
  }
  return n;
}
CORPUS const char *last_field(const char *s) {
  const char *r = s;
  for (; *s; s++)
    if (*s == ',' || *s == ' ') r = s + 1;
  return r;
}
CORPUS int32_t deref_chain(const int32_t *a, uint32_t idx) {
  int32_t v = a[idx & 63];
  v = a[(uint32_t)v & 63];
  v = a[(uint32_t)v & 63];
  return v;
}
CORPUS void stack_ops(const uint8_t *ops, int32_t n, int32_t *stack) {
  int32_t sp = 0;
  for (int32_t i = 0; i < n; i++) {
    uint8_t op = ops[i];
    if (op < 128) {
      if (sp < 60) stack[1 + sp++] = op;
    } else if (op < 192) {
      if (sp >= 2) {
        stack[sp - 1] = stack[sp - 1] + stack[sp];
        sp--;
      }
    } else if (sp > 0) {
      sp--;
    }
  }
  stack[0] = sp;
}
CORPUS int32_t ring_buffer(const uint8_t *in, int32_t n, uint8_t *ring) {
  uint32_t head = 0, tail = 0;
  int32_t dropped = 0;
  for (int32_t i = 0; i < n; i++) {
    if (in[i] & 1) {
      if (head - tail == 16) {
        tail++;
        dropped++;
      }
      ring[head++ & 15] = in[i];
    } else if (head != tail) {
      tail++;
    }
  }
  return dropped * 256 + (int32_t)(head - tail);
}
CORPUS uint32_t read_varint(const uint8_t *p, uint8_t *out) {
  uint32_t v = 0, sh = 0;
  const uint8_t *q = p;
  while (sh < 35) {
    uint8_t b = *q++;
    v |= (uint32_t)(b & 0x7f) << sh;
    sh += 7;
    if (!(b & 0x80)) break;
  }
  out[0] = (uint8_t)(q - p);
  return v;
}
CORPUS int32_t write_varint(uint64_t v, uint8_t *out) {
  int32_t n = 0;
  while (v >= 0x80) {
    out[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  out[n++] = (uint8_t)v;
  return n;
}
CORPUS int32_t heap_push_all(const int32_t *in, int32_t n, int32_t *heap) {
  int32_t size = 0;
  for (int32_t i = 0; i < n; i++) {
    int32_t k = size++;
    heap[k] = in[i];
    while (k > 0 && heap[(k - 1) / 2] < heap[k]) {
      int32_t p = (k - 1) / 2, t = heap[p];
      heap[p] = heap[k];
      heap[k] = t;
      k = p;
    }
  }
  return size > 0 ? heap[0] : 0;
}
CORPUS void interleave_bufs(const uint8_t *a, const uint8_t *b, int32_t n, uint8_t *dst) {
  for (int32_t i = 0; i < n / 2; i++) {
    *dst++ = *a++;
    *dst++ = *b++;
  }
}
CORPUS uint32_t *advance(uint32_t *p, int32_t k) { return p + (k & 31); }
CORPUS int32_t strided_sum(const int32_t *p, int32_t n, int32_t k) {
  int32_t s = 0, stride = (k & 3) + 1;
  for (const int32_t *q = p; q < p + n; q += stride) s += *q;
  return s;
}
