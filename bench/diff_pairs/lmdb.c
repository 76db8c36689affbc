/*
 * bench/diff.ts's driver around LMDB: the same file for each release, built with that release's
 * mdb.c and midl.c compiled in (no archive, so every function of the library stays in the
 * executable). Opens an environment in a folder given as argument (or a fresh temporary one),
 * writes a few keys, a duplicate-sorted table and a nested transaction, reads them back with a
 * cursor, deletes one, and prints the environment's statistics.
 */
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(x)                                                           \
  do {                                                                     \
    int rc_ = (x);                                                         \
    if (rc_) {                                                             \
      fprintf(stderr, "%s: %s\n", #x, mdb_strerror(rc_));                  \
      return 1;                                                            \
    }                                                                      \
  } while (0)

int main(int argc, char **argv) {
  char tmpl[] = "/tmp/lmdb-bench-XXXXXX";
  const char *dir = argc > 1 ? argv[1] : mkdtemp(tmpl);
  int major, minor, patch;
  const char *version = mdb_version(&major, &minor, &patch);
  printf("%s (%d.%d.%d)\n", version, major, minor, patch);

  MDB_env *env;
  CHECK(mdb_env_create(&env));
  CHECK(mdb_env_set_maxdbs(env, 4));
  CHECK(mdb_env_set_mapsize(env, 1 << 24));
  CHECK(mdb_env_open(env, dir, 0, 0644));

  MDB_txn *txn, *child;
  MDB_dbi main_db, dup_db;
  CHECK(mdb_txn_begin(env, NULL, 0, &txn));
  CHECK(mdb_dbi_open(txn, NULL, 0, &main_db));
  CHECK(mdb_dbi_open(txn, "dups", MDB_CREATE | MDB_DUPSORT, &dup_db));
  char kbuf[32], vbuf[64];
  for (int i = 0; i < 200; i++) {
    snprintf(kbuf, sizeof kbuf, "key%05d", i);
    snprintf(vbuf, sizeof vbuf, "value %d", i * 7);
    MDB_val k = {strlen(kbuf), kbuf}, v = {strlen(vbuf), vbuf};
    CHECK(mdb_put(txn, main_db, &k, &v, 0));
    MDB_val dk = {4, "dups"};
    CHECK(mdb_put(txn, dup_db, &dk, &k, 0));
  }
  CHECK(mdb_txn_begin(env, txn, 0, &child));
  MDB_val k = {6, "nested"}, v = {5, "child"};
  CHECK(mdb_put(child, main_db, &k, &v, MDB_NOOVERWRITE));
  CHECK(mdb_txn_commit(child));
  CHECK(mdb_txn_commit(txn));

  CHECK(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn));
  MDB_cursor *cur;
  CHECK(mdb_cursor_open(txn, main_db, &cur));
  MDB_val ck, cv;
  int count = 0;
  while (mdb_cursor_get(cur, &ck, &cv, MDB_NEXT) == 0) count++;
  mdb_cursor_close(cur);
  CHECK(mdb_cursor_open(txn, dup_db, &cur));
  MDB_val dk = {4, "dups"};
  size_t dups = 0;
  if (mdb_cursor_get(cur, &dk, &cv, MDB_SET) == 0) mdb_cursor_count(cur, &dups);
  mdb_cursor_close(cur);
  mdb_txn_abort(txn);
  printf("%d keys, %zu duplicates\n", count, dups);

  CHECK(mdb_txn_begin(env, NULL, 0, &txn));
  MDB_val dead = {8, "key00042"};
  CHECK(mdb_del(txn, main_db, &dead, NULL));
  CHECK(mdb_txn_commit(txn));

  MDB_stat st;
  CHECK(mdb_env_stat(env, &st));
  printf("depth %u, leaf pages %zu, entries %zu\n", st.ms_depth, st.ms_leaf_pages, st.ms_entries);
  mdb_env_close(env);
  return 0;
}
