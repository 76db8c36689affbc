/*
 * config.h for PCRE2 as bench/diff.ts builds it (in place of configure's, CMake's or PHP's, whose
 * copy includes PHP's own headers): forced in with -include, the same for every release. The
 * 8-bit library with Unicode and the JIT on (as Debian's and PHP's builds have it), x86-64 Linux
 * with glibc; the limits are the releases' defaults.
 */
#define SUPPORT_PCRE2_8 1
#define SUPPORT_UNICODE 1
#define SUPPORT_JIT 1
#define HAVE_INTTYPES_H 1
#define HAVE_STDINT_H 1
#define HAVE_LIMITS_H 1
#define HAVE_MEMMOVE 1
#define HAVE_STRERROR 1
#define HAVE_UNISTD_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_SYS_STAT_H 1
#define HEAP_LIMIT 20000000
#define LINK_SIZE 2
#define MATCH_LIMIT 10000000
#define MATCH_LIMIT_DEPTH MATCH_LIMIT
#define MAX_NAME_COUNT 10000
#define MAX_NAME_SIZE 32
#define NEWLINE_DEFAULT 2
#define PARENS_NEST_LIMIT 250
