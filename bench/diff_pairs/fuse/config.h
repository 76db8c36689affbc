/*
 * config.h for libfuse as bench/diff.ts builds it (in place of fuse 2's configure and fuse 3's
 * meson, which names it fuse_config.h): the same for every release, x86-64 Linux with glibc.
 * PACKAGE_VERSION is made from FUSE_BENCH_VERSION on the compile command, as each release's
 * build sets its own.
 */
#define HAVE_FORK 1
#define HAVE_FSTATAT 1
#define HAVE_OPENAT 1
#define HAVE_READLINKAT 1
#define HAVE_PIPE2 1
#define HAVE_SPLICE 1
#define HAVE_VMSPLICE 1
#define HAVE_POSIX_FALLOCATE 1
#define HAVE_FDATASYNC 1
#define HAVE_UTIMENSAT 1
#define HAVE_COPY_FILE_RANGE 1
#define HAVE_FALLOCATE 1
#define HAVE_SETXATTR 1
#define HAVE_ICONV 1
#define ICONV_CONST
#define HAVE_STRUCT_STAT_ST_ATIM 1
#define FUSERMOUNT_DIR "/usr/bin"
/* The release's version, given bare on the command line (-DFUSE_BENCH_VERSION=2.9.9). */
#define FUSE_BENCH_STRING(v) #v
#define FUSE_BENCH_QUOTE(v) FUSE_BENCH_STRING(v)
#define PACKAGE_VERSION FUSE_BENCH_QUOTE(FUSE_BENCH_VERSION)
