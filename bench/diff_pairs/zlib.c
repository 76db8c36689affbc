/*
 * bench/diff.ts's driver around zlib: the same file for each release, built with that release's
 * sources compiled in (no archive, so every function of the library stays in the executable).
 * Round-trips its input through the one-shot, streaming and gzip-file interfaces.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int main(int argc, char **argv) {
  const char *text = argc > 1 ? argv[1] : "remcp bench: zlib driver, zlib driver, zlib driver";
  uLong n = (uLong)strlen(text) + 1;
  uLongf packed_len = compressBound(n);
  Bytef *packed = malloc(packed_len);
  Bytef *back = malloc(n);
  uLongf back_len = n;
  if (!packed || !back) return 1;
  if (compress2(packed, &packed_len, (const Bytef *)text, n, 9) != Z_OK) return 2;
  if (uncompress(back, &back_len, packed, packed_len) != Z_OK) return 3;

  z_stream s;
  memset(&s, 0, sizeof s);
  if (deflateInit2(&s, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return 4;
  s.next_in = (Bytef *)text;
  s.avail_in = (uInt)n;
  s.next_out = packed;
  s.avail_out = (uInt)compressBound(n);
  deflate(&s, Z_FINISH);
  uLong gz_len = s.total_out;
  deflateEnd(&s);
  memset(&s, 0, sizeof s);
  if (inflateInit2(&s, 15 + 32) != Z_OK) return 5;
  s.next_in = packed;
  s.avail_in = (uInt)gz_len;
  s.next_out = back;
  s.avail_out = (uInt)n;
  inflate(&s, Z_FINISH);
  inflateEnd(&s);

  if (argc > 2) {
    gzFile f = gzopen(argv[2], "wb");
    if (f) {
      gzprintf(f, "%s\n", text);
      gzclose(f);
    }
    f = gzopen(argv[2], "rb");
    if (f) {
      char line[256];
      if (gzgets(f, line, sizeof line)) fputs(line, stdout);
      gzclose(f);
    }
  }
  printf("%s %lu -> %lu crc32 %08lx adler32 %08lx\n", zlibVersion(), n, (unsigned long)packed_len,
         crc32(0, (const Bytef *)text, (uInt)n), adler32(1, (const Bytef *)text, (uInt)n));
  int same = back_len == n && memcmp(back, text, n) == 0;
  free(packed);
  free(back);
  return same ? 0 : 6;
}
