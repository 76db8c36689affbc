/*
 * bench/diff.ts's driver around hiredis: the same file for each release, built with that
 * release's sources compiled in (no archive, so every function of the library stays in the
 * executable). Formats commands, parses a reply by hand with the protocol reader, and tries a
 * Unix socket that is not there and a TCP port nothing listens on, blocking and asynchronous (no
 * server: each fails and prints why).
 */
#include <async.h>
#include <hiredis.h>
#include <stdio.h>
#include <string.h>

static void print_reply(const redisReply *r, int depth) {
  printf("%*s", depth * 2, "");
  switch (r->type) {
    case REDIS_REPLY_ARRAY:
      printf("array of %zu\n", r->elements);
      for (size_t i = 0; i < r->elements; i++) print_reply(r->element[i], depth + 1);
      break;
    case REDIS_REPLY_INTEGER:
      printf("integer %lld\n", r->integer);
      break;
    case REDIS_REPLY_NIL:
      printf("nil\n");
      break;
    default:
      printf("%d: %.*s\n", r->type, (int)r->len, r->str);
  }
}

int main(int argc, char **argv) {
  const char *key = argc > 1 ? argv[1] : "key";
  char *cmd = NULL;
  int len = redisFormatCommand(&cmd, "SET %s %d", key, 42);
  printf("%d bytes: %.*s", len, len, cmd);
  redisFreeCommand(cmd);
  const char *args[] = {"HSET", key, "field", "value"};
  len = redisFormatCommandArgv(&cmd, 4, args, NULL);
  printf("%d bytes\n", len);
  redisFreeCommand(cmd);

  redisReader *reader = redisReaderCreate();
  const char *wire = "*4\r\n$3\r\nfoo\r\n:42\r\n+OK\r\n*2\r\n$-1\r\n-ERR no\r\n";
  redisReaderFeed(reader, wire, strlen(wire));
  void *reply = NULL;
  if (redisReaderGetReply(reader, &reply) == REDIS_OK && reply) {
    print_reply(reply, 0);
    freeReplyObject(reply);
  } else {
    printf("reader: %s\n", reader->errstr);
  }
  redisReaderFree(reader);

  redisContext *c = redisConnectUnix("/nonexistent/redis.sock");
  printf("unix: %s\n", c && c->err ? c->errstr : "connected");
  if (c) redisFree(c);
  struct timeval tv = {0, 100000};
  c = redisConnectWithTimeout("127.0.0.1", 1, tv);
  if (c && !c->err) {
    redisReply *r = redisCommand(c, "GET %s", key);
    if (r) print_reply(r, 0), freeReplyObject(r);
  }
  printf("tcp: %s\n", c && c->err ? c->errstr : "connected");
  if (c) redisFree(c);
  redisAsyncContext *ac = redisAsyncConnect("127.0.0.1", 1);
  printf("async: %s\n", ac && ac->err ? ac->errstr : "connecting");
  if (ac) redisAsyncFree(ac);
  return 0;
}
