/* Switches: dense (jump tables), sparse (compare trees), fall-through, in loops. */
#include "corpus.h"

CORPUS int32_t sw_dense(int32_t x) {
  switch (x) {
    case 0: return 10;
    case 1: return 21;
    case 2: return 32;
    case 3: return 43;
    case 4: return 54;
    case 5: return 65;
    case 6: return 76;
    case 7: return 87;
    default: return -1;
  }
}
CORPUS int32_t sw_dense_ops(int32_t op, int32_t a, int32_t b) {
  switch (op & 7) {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    case 3: return a & b;
    case 4: return a | b;
    case 5: return a ^ b;
    case 6: return a << (b & 31);
    default: return (int32_t)((uint32_t)a >> (b & 31));
  }
}
CORPUS int32_t sw_sparse(int32_t x) {
  switch (x) {
    case -100: return 1;
    case 3: return 2;
    case 77: return 3;
    case 1000: return 4;
    case 65536: return 5;
    case 123456789: return 6;
    default: return 0;
  }
}
CORPUS int32_t sw_fallthrough(int32_t x) {
  int32_t r = 0;
  switch (x & 7) {
    case 0: r += 1; /* fall through */
    case 1: r += 2; /* fall through */
    case 2: r += 4; break;
    case 3: r += 8; /* fall through */
    case 4: r += 16; break;
    case 5:
    case 6: r = -r - 1; break;
    default: r = 99;
  }
  return r;
}
CORPUS int32_t sw_char_class(int32_t ch) {
  switch (ch) {
    case ' ': case '\t': case '\n': case '\r': return 1;
    case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9': return 2;
    case '+': case '-': return 3;
    case '(': case ')': return 4;
    default: return ch >= 'a' && ch <= 'z' ? 5 : 0;
  }
}
CORPUS uint32_t sw_in_loop(const uint8_t *a, int32_t n) {
  uint32_t acc = 0;
  for (int32_t i = 0; i < n; i++) {
    switch (a[i] % 6) {
      case 0: acc += 1; break;
      case 1: acc *= 3; break;
      case 2: acc ^= a[i]; break;
      case 3: acc -= 7; break;
      case 4: continue;
      default: acc = (acc << 1) | (acc >> 31); break;
    }
    acc += (uint32_t)i;
  }
  return acc;
}
CORPUS int32_t sw_nested(int32_t a, int32_t b) {
  switch (a & 3) {
    case 0:
      switch (b & 3) {
        case 0: return 1;
        case 1: return 2;
        default: return 3;
      }
    case 1: return b & 3 ? 4 : 5;
    case 2:
      switch (b % 5) {
        case 0: return 6;
        case 1: case -1: return 7;
        case 2: case -2: return 8;
        default: return 9;
      }
    default: return 10;
  }
}
CORPUS int64_t sw_u8(uint8_t c) {
  switch (c) {
    case 0x10: return 1;
    case 0x11: return 7;
    case 0x12: return 11;
    case 0x13: return 13;
    case 0x14: return 17;
    case 0x15: return 19;
    case 0x16: return 23;
    case 0x18: return 29;
    case 0x19: return 31;
    case 0x1a: return 37;
    default: return -(int64_t)c;
  }
}
CORPUS int32_t sw_state_machine(const char *s) {
  int32_t state = 0, count = 0;
  for (; *s; s++) {
    switch (state) {
      case 0: state = (*s == 'a') ? 1 : 0; break;
      case 1: state = (*s == 'b') ? 2 : (*s == 'a' ? 1 : 0); break;
      case 2:
        if (*s == 'c') {
          count++;
          state = 0;
        } else {
          state = *s == 'a' ? 1 : 0;
        }
        break;
    }
  }
  return count * 4 + state;
}
CORPUS const char *sw_name(uint32_t x) {
  switch (x % 9) {
    case 0: return "zero";
    case 1: return "one";
    case 2: return "two";
    case 3: return "three";
    case 4: return "four";
    case 5: return "five";
    case 6: return "six";
    case 7: return "seven";
    default: return "many";
  }
}
CORPUS int32_t sw_range(int32_t x) {
  if (x < 0) return -1;
  switch (x / 10) {
    case 0: return 0;
    case 1: return 1;
    case 2: case 3: return 2;
    case 4: case 5: case 6: return 3;
    case 9: return 4;
    default: return 5;
  }
}
CORPUS uint32_t sw_hash_op(uint32_t h, const uint8_t *a, int32_t n) {
  for (int32_t i = 0; i < n; i++) {
    switch (a[i] >> 5) {
      case 0: h = h * 31 + a[i]; break;
      case 1: h ^= h >> 7; break;
      case 2: h += h << 3; break;
      case 3: h = ~h; break;
      case 4: h -= a[i]; break;
      case 5: h ^= 0x5bd1e995u; break;
      case 6: h = (h >> 3) | (h << 29); break;
      case 7: h *= 0x9e3779b1u; break;
    }
  }
  return h;
}
CORPUS int32_t sw_default_only(int32_t x) {
  switch (x) {
    default: return x * 2;
  }
}
CORPUS int32_t sw_two_cases(int32_t x) {
  switch (x) {
    case 5: return 50;
    case 6: return 60;
  }
  return 0;
}
CORPUS int32_t sw_large_dense(uint32_t x) {
  switch (x) {
    case 0: return 3; case 1: return 1; case 2: return 4; case 3: return 1;
    case 4: return 5; case 5: return 9; case 6: return 2; case 7: return 6;
    case 8: return 5; case 9: return 3; case 10: return 5; case 11: return 8;
    case 12: return 9; case 13: return 7; case 14: return 9; case 15: return 3;
    case 16: return 2; case 17: return 3; case 18: return 8; case 19: return 4;
    default: return -1;
  }
}
CORPUS int32_t sw_side_effects(int32_t x, int32_t *out) {
  switch (x & 3) {
    case 0: out[0] = x; break;
    case 1: out[1] = x; out[2] = -x; break;
    case 2: out[3]++; break;
    default: return -1;
  }
  return out[0] + out[1];
}
CORPUS int32_t sw_tokens(const char *s) {
  int32_t score = 0;
  while (*s) {
    switch (*s++) {
      case 'a': case 'e': case 'i': case 'o': case 'u': score += 1; break;
      case ' ': score += 10; break;
      case '.': return score;
      case '0': case '1': score *= 2; break;
      default: break;
    }
  }
  return -score;
}
CORPUS int32_t sw_signed_cases(int8_t x) {
  switch (x) {
    case -3: return 1;
    case -2: return 2;
    case -1: return 3;
    case 0: return 4;
    case 1: return 5;
    case 2: return 6;
    case 3: return 7;
    default: return 0;
  }
}
CORPUS int32_t sw_weekday(int32_t d) {
  int32_t r;
  switch (((d % 7) + 7) % 7) {
    case 0: r = 100; break;
    case 6: r = 200; break;
    case 1: case 2: case 3: case 4: r = 10 + d; break;
    default: r = -5;
  }
  return r;
}
CORPUS uint32_t sw_bytecode(const uint8_t *code, int32_t n) {
  uint32_t acc = 0;
  int32_t pc = 0, steps = 0;
  while (pc < n && steps++ < 200) {
    uint8_t op = code[pc] & 7;
    switch (op) {
      case 0: acc += code[pc] >> 3; pc++; break;
      case 1: acc -= 1; pc++; break;
      case 2: acc <<= 1; pc++; break;
      case 3: pc += 2; break;
      case 4: if (acc & 1) pc += 1; else pc += 3; break;
      case 5: acc ^= 0xa5a5u; pc++; break;
      case 6: return acc;
      default: pc++; break;
    }
  }
  return acc + (uint32_t)pc;
}
