/*
 * config.h for nghttp2 as bench/diff.ts builds it (in place of configure's or CMake's): the same
 * for every release, x86-64 Linux with glibc. Macros a release does not know are ignored by it
 * (the monotonic clock arrived with 1.52's rate limits).
 */
#define HAVE_ARPA_INET_H 1
#define HAVE_NETINET_IN_H 1
#define HAVE_TIME_H 1
#define HAVE_CLOCK_GETTIME 1
#define HAVE_DECL_CLOCK_MONOTONIC 1
#define SIZEOF_INT_P 8
