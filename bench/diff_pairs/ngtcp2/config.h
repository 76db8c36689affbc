/*
 * config.h for ngtcp2 as bench/diff.ts builds it (in place of configure's or CMake's): the same
 * for every release, x86-64 Linux with glibc (little-endian, be64toh in <endian.h>).
 */
#define HAVE_ARPA_INET_H 1
#define HAVE_NETINET_IN_H 1
#define HAVE_UNISTD_H 1
#define HAVE_ENDIAN_H 1
#define HAVE_BYTESWAP_H 1
#define HAVE_BE64TOH 1
#define HAVE_DECL_BE64TOH 1
#define HAVE_BSWAP_64 1
#define HAVE_DECL_BSWAP_64 1
