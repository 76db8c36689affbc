/*
 * bench/diff.ts's driver around libfuse: the same file for each release (fuse 2's API 26 and
 * fuse 3's 312, the versions each release's own build compiles lib/ with), built with that
 * release's lib/ compiled in (no archive, so every function of the library stays in the
 * executable). Parses options with fuse_opt, and with arguments runs fuse_main on a one-file
 * read-only file system (so `--help` or `--version` print and return, a mount point mounts).
 */
#include <errno.h>
#include <fuse.h>
#include <fuse_opt.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static const char text[] = "hello from the diff bench\n";

#if FUSE_MAJOR_VERSION >= 3
static int fs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi) {
  (void)fi;
#else
static int fs_getattr(const char *path, struct stat *st) {
#endif
  memset(st, 0, sizeof *st);
  if (strcmp(path, "/") == 0) {
    st->st_mode = S_IFDIR | 0555;
    st->st_nlink = 2;
  } else if (strcmp(path, "/hello") == 0) {
    st->st_mode = S_IFREG | 0444;
    st->st_nlink = 1;
    st->st_size = sizeof text - 1;
  } else {
    return -ENOENT;
  }
  return 0;
}

#if FUSE_MAJOR_VERSION >= 3
static int fs_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
                      struct fuse_file_info *fi, enum fuse_readdir_flags flags) {
  (void)flags;
#define FILL(name) fill(buf, name, NULL, 0, 0)
#else
static int fs_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
                      struct fuse_file_info *fi) {
#define FILL(name) fill(buf, name, NULL, 0)
#endif
  (void)off;
  (void)fi;
  if (strcmp(path, "/") != 0) return -ENOENT;
  FILL(".");
  FILL("..");
  FILL("hello");
  return 0;
}

static int fs_read(const char *path, char *buf, size_t size, off_t off,
                   struct fuse_file_info *fi) {
  (void)fi;
  if (strcmp(path, "/hello") != 0) return -ENOENT;
  if ((size_t)off >= sizeof text - 1) return 0;
  if (size > sizeof text - 1 - off) size = sizeof text - 1 - off;
  memcpy(buf, text + off, size);
  return (int)size;
}

static const struct fuse_operations ops = {
  .getattr = fs_getattr,
  .readdir = fs_readdir,
  .read = fs_read,
};

struct options {
  const char *name;
  int verbose;
};

static const struct fuse_opt spec[] = {
  {"--name=%s", offsetof(struct options, name), 1},
  {"-v", offsetof(struct options, verbose), 1},
  FUSE_OPT_END,
};

int main(int argc, char **argv) {
  printf("libfuse %d\n", fuse_version());
  char *fake[] = {argv[0], "-v", "--name=demo", "-o", "ro,allow_other", "rest"};
  struct fuse_args args = FUSE_ARGS_INIT(6, fake);
  struct options o = {NULL, 0};
  if (fuse_opt_parse(&args, &o, spec, NULL) != 0) return 1;
  fuse_opt_add_arg(&args, "-f");
  printf("name %s, verbose %d, %d arguments left\n", o.name ? o.name : "-", o.verbose, args.argc);
  fuse_opt_free_args(&args);
  return argc > 1 ? fuse_main(argc, argv, &ops, NULL) : 0;
}
