/*
 * bench/diff.ts's driver around zstd's library: the same file for each release, built with that
 * release's sources compiled in (no archive, so every function of the library stays in the
 * executable). Round-trips its input through the one-shot, streaming and dictionary interfaces.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define ZDICT_STATIC_LINKING_ONLY
#include <zdict.h>
#include <zstd.h>

int main(int argc, char **argv) {
  const char *text = argc > 1 ? argv[1] : "remcp bench: zstd driver, zstd driver, zstd driver";
  size_t n = strlen(text) + 1;
  size_t bound = ZSTD_compressBound(n);
  char *packed = malloc(bound);
  char *back = malloc(n);
  if (!packed || !back) return 1;
  size_t packed_len = ZSTD_compress(packed, bound, text, n, 19);
  if (ZSTD_isError(packed_len)) return 2;
  if (ZSTD_decompress(back, n, packed, packed_len) != n) return 3;

  ZSTD_CCtx *cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 3);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  ZSTD_inBuffer in = {text, n, 0};
  ZSTD_outBuffer out = {packed, bound, 0};
  while (ZSTD_compressStream2(cctx, &out, &in, ZSTD_e_end) > 0) {
  }
  ZSTD_freeCCtx(cctx);
  ZSTD_DCtx *dctx = ZSTD_createDCtx();
  ZSTD_inBuffer din = {packed, out.pos, 0};
  ZSTD_outBuffer dout = {back, n, 0};
  ZSTD_decompressStream(dctx, &dout, &din);
  ZSTD_freeDCtx(dctx);

  /* A dictionary trained from slices of the input (training may fail on short input). */
  enum { SAMPLES = 64 };
  size_t sizes[SAMPLES];
  char *samples = malloc(n * SAMPLES);
  char dict[4096];
  if (!samples) return 4;
  for (int i = 0; i < SAMPLES; i++) {
    memcpy(samples + (size_t)i * n, text, n);
    sizes[i] = n;
  }
  size_t dict_len = ZDICT_trainFromBuffer(dict, sizeof dict, samples, sizes, SAMPLES);
  if (!ZDICT_isError(dict_len)) {
    ZSTD_CDict *cd = ZSTD_createCDict(dict, dict_len, 5);
    ZSTD_CCtx *c = ZSTD_createCCtx();
    packed_len = ZSTD_compress_usingCDict(c, packed, bound, text, n, cd);
    ZSTD_freeCCtx(c);
    ZSTD_freeCDict(cd);
  }
  printf("zstd %s %zu -> %zu, dictionary %s\n", ZSTD_versionString(), n, packed_len,
         ZDICT_isError(dict_len) ? ZDICT_getErrorName(dict_len) : "trained");
  free(samples);
  free(packed);
  free(back);
  return 0;
}
