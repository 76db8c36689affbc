/*
 * bench/diff.ts's driver around PCRE2 (8-bit): the same file for each release, built with that
 * release's sources compiled in (no archive, so every function of the library stays in the
 * executable). Compiles a few patterns (one with the JIT), matches, substitutes, matches with
 * the DFA matcher and converts a glob, printing what it finds.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <string.h>

static int run(const char *pattern, const char *subject, uint32_t options, int jit) {
  int err;
  PCRE2_SIZE at;
  pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, options, &err, &at,
                                 NULL);
  if (!re) {
    PCRE2_UCHAR msg[256];
    pcre2_get_error_message(err, msg, sizeof msg);
    printf("%s: error at %zu: %s\n", pattern, (size_t)at, (char *)msg);
    return 0;
  }
  if (jit) pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
  pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
  int rc = pcre2_match(re, (PCRE2_SPTR)subject, strlen(subject), 0, 0, md, NULL);
  PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
  printf("%s on %s: %d", pattern, subject, rc);
  for (int i = 0; i < rc; i++) printf(" [%zu,%zu)", (size_t)ov[2 * i], (size_t)ov[2 * i + 1]);
  uint32_t names = 0;
  pcre2_pattern_info(re, PCRE2_INFO_NAMECOUNT, &names);
  printf(" (%u named)\n", names);
  int ws[64];
  rc = pcre2_dfa_match(re, (PCRE2_SPTR)subject, strlen(subject), 0, 0, md, NULL, ws, 64);
  PCRE2_UCHAR out[512];
  PCRE2_SIZE outlen = sizeof out;
  int n = pcre2_substitute(re, (PCRE2_SPTR)subject, PCRE2_ZERO_TERMINATED, 0,
                           PCRE2_SUBSTITUTE_GLOBAL | PCRE2_SUBSTITUTE_EXTENDED, md, NULL,
                           (PCRE2_SPTR) "<$0>", PCRE2_ZERO_TERMINATED, out, &outlen);
  printf("  dfa %d, substitute %d: %s\n", rc, n, n >= 0 ? (char *)out : "-");
  pcre2_match_data_free(md);
  pcre2_code_free(re);
  return 1;
}

int main(int argc, char **argv) {
  char version[64];
  pcre2_config(PCRE2_CONFIG_VERSION, version);
  printf("PCRE2 %s\n", version);
  int ok = run("(?<year>\\d{4})-(?<month>\\d\\d)", "on 2023-01-11 and 2022-04-14", 0, 1);
  ok &= run("\\p{Greek}+|caf\\x{e9}", "αβγ café", PCRE2_UTF | PCRE2_UCP, 0);
  ok &= run("(a|b)*?c(?=d)", "ababcd", PCRE2_CASELESS, 1);
  run(argc > 1 ? argv[1] : "(unclosed", argc > 2 ? argv[2] : "x", 0, 0);
  PCRE2_UCHAR *glob = NULL;
  PCRE2_SIZE globlen;
  if (pcre2_pattern_convert((PCRE2_SPTR) "*.[ch]", PCRE2_ZERO_TERMINATED, PCRE2_CONVERT_GLOB,
                            &glob, &globlen, NULL) == 0) {
    printf("glob: %s\n", (char *)glob);
    pcre2_converted_pattern_free(glob);
  }
  return ok ? 0 : 1;
}
