/* String routines on NUL-terminated caller strings (at most 40 characters, 64-byte buffers). */
#include "corpus.h"

CORPUS uint64_t my_strlen(const char *s) {
  const char *p = s;
  while (*p) p++;
  return (uint64_t)(p - s);
}
CORPUS int32_t my_strcmp(const char *a, const char *b) {
  while (*a && *a == *b) {
    a++;
    b++;
  }
  return (uint8_t)*a - (uint8_t)*b;
}
CORPUS int32_t my_strncmp(const char *a, const char *b, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (a[i] != b[i]) return (uint8_t)a[i] - (uint8_t)b[i];
    if (a[i] == 0) return 0;
  }
  return 0;
}
CORPUS char *my_strcpy(char *dst, const char *src) {
  char *d = dst;
  while ((*d++ = *src++) != 0) {}
  return dst;
}
CORPUS char *my_strchr(char *s, int32_t ch) {
  for (;; s++) {
    if (*s == (char)ch) return s;
    if (*s == 0) return 0;
  }
}
CORPUS char *my_strrchr(char *s, int32_t ch) {
  char *last = 0;
  do {
    if (*s == (char)ch) last = s;
  } while (*s++);
  return last;
}
CORPUS void to_upper(char *s) {
  for (; *s; s++)
    if (*s >= 'a' && *s <= 'z') *s -= 32;
}
CORPUS int32_t count_words(const char *s) {
  int32_t n = 0;
  bool in = false;
  for (; *s; s++) {
    bool sp = *s == ' ' || *s == '\t' || *s == ',';
    if (!sp && !in) n++;
    in = !sp;
  }
  return n;
}
CORPUS int64_t my_atoi(const char *s) {
  int64_t v = 0;
  bool neg = false;
  while (*s == ' ') s++;
  if (*s == '-' || *s == '+') neg = *s++ == '-';
  while (*s >= '0' && *s <= '9') v = v * 10 + (*s++ - '0');
  return neg ? -v : v;
}
CORPUS int32_t my_itoa(int32_t v, char *out) {
  char tmp[16];
  int32_t n = 0, len = 0;
  uint32_t u = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
  do {
    tmp[n++] = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  if (v < 0) out[len++] = '-';
  while (n) out[len++] = tmp[--n];
  out[len] = 0;
  return len;
}
CORPUS uint32_t hash_djb2(const char *s) {
  uint32_t h = 5381;
  while (*s) h = h * 33 + (uint8_t)*s++;
  return h;
}
CORPUS bool is_palindrome(const char *s) {
  uint64_t n = 0;
  while (s[n]) n++;
  for (uint64_t i = 0; i + 1 < n - i; i++)
    if (s[i] != s[n - 1 - i]) return false;
  return true;
}
CORPUS void reverse_str(char *s) {
  char *e = s;
  while (*e) e++;
  while (e > s) {
    e--;
    char t = *s;
    *s = *e;
    *e = t;
    s++;
  }
}
CORPUS int32_t count_char(const char *s, int32_t ch) {
  int32_t c = 0;
  while (*s) c += *s++ == (char)ch;
  return c;
}
CORPUS char *skip_spaces(char *s) {
  while (*s == ' ' || *s == '\t') s++;
  return s;
}
CORPUS void trim_right(char *s) {
  int64_t n = 0;
  while (s[n]) n++;
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t')) s[--n] = 0;
}
CORPUS char *my_strstr(char *h, const char *nd) {
  if (!*nd) return h;
  for (; *h; h++) {
    const char *a = h, *b = nd;
    while (*a && *b && *a == *b) {
      a++;
      b++;
    }
    if (!*b) return h;
  }
  return 0;
}
CORPUS uint64_t my_strspn(const char *s, const char *accept) {
  uint64_t n = 0;
  for (; s[n]; n++) {
    const char *a = accept;
    while (*a && *a != s[n]) a++;
    if (!*a) break;
  }
  return n;
}
CORPUS void replace_char(char *s, int32_t ch, int32_t k) {
  for (; *s; s++)
    if (*s == (char)ch) *s = (char)('a' + k % 26);
}
CORPUS int32_t parse_hex(const char *s) {
  int32_t v = 0, digits = 0;
  for (; *s && digits < 7; s++, digits++) {
    char c = *s;
    int32_t d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else break;
    v = v * 16 + d;
  }
  return v;
}
CORPUS void my_strcat(char *dst, const char *src) {
  /* dst holds at most 40 characters, src too: 81 bytes would overflow, so cap the copy. */
  char *d = dst;
  while (*d) d++;
  for (int32_t i = 0; src[i] && i < 20; i++) *d++ = src[i];
  *d = 0;
}
CORPUS int32_t caesar(char *s, int32_t k) {
  int32_t changed = 0;
  for (; *s; s++) {
    if (*s >= 'a' && *s <= 'z') {
      *s = (char)('a' + (*s - 'a' + k) % 26);
      changed++;
    } else if (*s >= 'A' && *s <= 'Z') {
      *s = (char)('A' + (*s - 'A' + k) % 26);
      changed++;
    }
  }
  return changed;
}
CORPUS bool starts_with(const char *s, const char *prefix) {
  while (*prefix)
    if (*s++ != *prefix++) return false;
  return true;
}
CORPUS int32_t common_prefix(const char *a, const char *b) {
  int32_t n = 0;
  while (a[n] && a[n] == b[n]) n++;
  return n;
}
CORPUS uint32_t vowel_mask(const char *s) {
  uint32_t m = 0;
  for (; *s; s++) {
    char c = (char)(*s | 32);
    if (c == 'a') m |= 1;
    else if (c == 'e') m |= 2;
    else if (c == 'i') m |= 4;
    else if (c == 'o') m |= 8;
    else if (c == 'u') m |= 16;
  }
  return m;
}
CORPUS int32_t run_length(const char *s, uint8_t *out) {
  int32_t n = 0;
  while (*s && n < 60) {
    char c = *s;
    uint8_t run = 0;
    while (*s == c && run < 255) {
      s++;
      run++;
    }
    out[n++] = (uint8_t)c;
    out[n++] = run;
  }
  return n;
}
