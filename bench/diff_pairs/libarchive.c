/*
 * bench/diff.ts's driver around libarchive: the same file for each release, built with that
 * release's sources compiled in (no archive library, so every function of it stays in the
 * executable). Writes one file into memory in several formats and reads each back through
 * format and filter detection.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <archive.h>
#include <archive_entry.h>

static const char *text = "remcp bench: libarchive driver, libarchive driver, libarchive driver";

/* Writes `text` as NAME into `buf` in format `fmt` (archive_write_set_format_by_name). */
static size_t pack(const char *fmt, const char *filter, const char *name, char *buf, size_t cap) {
  struct archive *w = archive_write_new();
  size_t used = 0;
  if (archive_write_set_format_by_name(w, fmt) != ARCHIVE_OK) return 0;
  if (filter) archive_write_add_filter_by_name(w, filter);
  if (archive_write_open_memory(w, buf, cap, &used) != ARCHIVE_OK) return 0;
  struct archive_entry *e = archive_entry_new();
  archive_entry_set_pathname(e, name);
  archive_entry_set_size(e, (la_int64_t)strlen(text));
  archive_entry_set_filetype(e, AE_IFREG);
  archive_entry_set_perm(e, 0644);
  archive_entry_set_mtime(e, 1700000000, 0);
  archive_write_header(w, e);
  archive_write_data(w, text, strlen(text));
  archive_entry_free(e);
  archive_write_close(w);
  archive_write_free(w);
  return used;
}

/* Reads every entry of `buf`; returns the number of data bytes that match `text`, or -1. */
static long unpack(const char *buf, size_t len, char *names, size_t names_cap) {
  struct archive *r = archive_read_new();
  archive_read_support_format_all(r);
  archive_read_support_filter_all(r);
  if (archive_read_open_memory(r, buf, len) != ARCHIVE_OK) {
    archive_read_free(r);
    return -1;
  }
  long same = 0;
  struct archive_entry *e;
  while (archive_read_next_header(r, &e) == ARCHIVE_OK) {
    char data[256];
    la_ssize_t n = archive_read_data(r, data, sizeof data);
    if (n > 0 && memcmp(data, text, (size_t)n) == 0) same += n;
    strncat(names, archive_format_name(r), names_cap - strlen(names) - 2);
    strcat(names, " ");
  }
  archive_read_free(r);
  return same;
}

int main(int argc, char **argv) {
  const char *name = argc > 1 ? argv[1] : "hello.txt";
  static const char *formats[][2] = {{"pax", NULL},     {"ustar", NULL},  {"gnutar", NULL},
                                     {"cpio", NULL},    {"newc", NULL},   {"zip", NULL},
                                     {"7zip", NULL},    {"iso9660", NULL}, {"ar", NULL},
                                     {"shar", NULL},    {"mtree", NULL},  {"xar", NULL},
                                     {"raw", NULL},     {"pax", "uuencode"}, {"ustar", "lrzip"}};
  size_t cap = 1 << 20;
  char *buf = malloc(cap);
  char names[2048] = "";
  int ok = 0, tried = 0;
  if (!buf) return 1;
  for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
    size_t len = pack(formats[i][0], formats[i][1], name, buf, cap);
    if (len == 0) continue;
    tried++;
    if (unpack(buf, len, names, sizeof names) == (long)strlen(text)) ok++;
  }
  printf("%s: %d of %d formats round-tripped (%s)\n", archive_version_details(), ok, tried, names);
  free(buf);
  return ok > 0 ? 0 : 2;
}
