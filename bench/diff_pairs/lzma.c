/*
 * bench/diff.ts's driver around liblzma: the same file for each release, built with that
 * release's sources compiled in (no archive, so every function of the library stays in the
 * executable). Round-trips its input through .xz and .lzma, raw filter chains and the index.
 */
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  const char *text = argc > 1 ? argv[1] : "remcp bench: lzma driver, lzma driver, lzma driver";
  size_t n = strlen(text) + 1;
  size_t bound = lzma_stream_buffer_bound(n);
  uint8_t *packed = malloc(bound);
  uint8_t *back = malloc(n);
  if (!packed || !back) return 1;
  size_t packed_len = 0;
  if (lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, (const uint8_t *)text, n, packed,
                              &packed_len, bound) != LZMA_OK)
    return 2;
  uint64_t memlimit = UINT64_MAX;
  size_t in_pos = 0, out_pos = 0;
  if (lzma_stream_buffer_decode(&memlimit, 0, NULL, packed, &in_pos, packed_len, back, &out_pos,
                                n) != LZMA_OK)
    return 3;

  /* Streaming .lzma (LZMA1) through the automatic decoder. */
  lzma_options_lzma opt;
  lzma_lzma_preset(&opt, 1);
  lzma_stream s = LZMA_STREAM_INIT;
  if (lzma_alone_encoder(&s, &opt) != LZMA_OK) return 4;
  s.next_in = (const uint8_t *)text;
  s.avail_in = n;
  s.next_out = packed;
  s.avail_out = bound;
  while (lzma_code(&s, LZMA_FINISH) == LZMA_OK) {
  }
  size_t alone_len = bound - s.avail_out;
  lzma_end(&s);
  lzma_stream d = LZMA_STREAM_INIT;
  if (lzma_auto_decoder(&d, UINT64_MAX, 0) != LZMA_OK) return 5;
  d.next_in = packed;
  d.avail_in = alone_len;
  d.next_out = back;
  d.avail_out = n;
  lzma_code(&d, LZMA_FINISH);
  lzma_end(&d);

  /* A raw chain with a branch filter and delta before LZMA2. */
  lzma_options_delta delta = {.type = LZMA_DELTA_TYPE_BYTE, .dist = 4};
  lzma_filter chain[] = {{LZMA_FILTER_X86, NULL},
                         {LZMA_FILTER_DELTA, &delta},
                         {LZMA_FILTER_LZMA2, &opt},
                         {LZMA_VLI_UNKNOWN, NULL}};
  size_t raw_len = 0;
  lzma_raw_buffer_encode(chain, NULL, (const uint8_t *)text, n, packed, &raw_len, bound);

  lzma_index *idx = lzma_index_init(NULL);
  lzma_index_append(idx, NULL, 64, n);
  printf("liblzma %s %zu -> %zu, lzma %zu, raw %zu, index %llu bytes, crc32 %08x\n",
         lzma_version_string(), n, packed_len, alone_len, raw_len,
         (unsigned long long)lzma_index_size(idx), lzma_crc32((const uint8_t *)text, n, 0));
  lzma_index_end(idx, NULL);
  free(packed);
  free(back);
  return 0;
}
