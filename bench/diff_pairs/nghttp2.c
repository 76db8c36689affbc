/*
 * bench/diff.ts's driver around nghttp2: the same file for each release, built with that
 * release's sources compiled in (no archive, so every function of the library stays in the
 * executable). A client and a server session talk HTTP/2 through memory: one GET, a response
 * with a body, then a HPACK round trip of the same headers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <nghttp2/nghttp2.h>

#define NV(n, v) \
  { (uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, sizeof(v) - 1, NGHTTP2_NV_FLAG_NONE }

static const char *body = "remcp bench: nghttp2 driver, nghttp2 driver";
static size_t body_left;
static size_t received;

static ssize_t read_body(nghttp2_session *s, int32_t stream, uint8_t *buf, size_t len,
                         uint32_t *flags, nghttp2_data_source *src, void *user) {
  (void)s, (void)stream, (void)src, (void)user;
  size_t n = body_left < len ? body_left : len;
  memcpy(buf, body + strlen(body) - body_left, n);
  body_left -= n;
  if (body_left == 0) *flags |= NGHTTP2_DATA_FLAG_EOF;
  return (ssize_t)n;
}

static int on_frame(nghttp2_session *s, const nghttp2_frame *f, void *user) {
  /* The server answers each request once its headers are complete. */
  if (user == (void *)1 && f->hd.type == NGHTTP2_HEADERS &&
      (f->hd.flags & NGHTTP2_FLAG_END_STREAM)) {
    nghttp2_nv hdrs[] = {NV(":status", "200"), NV("content-type", "text/plain")};
    nghttp2_data_provider data = {.read_callback = read_body};
    body_left = strlen(body);
    return nghttp2_submit_response(s, f->hd.stream_id, hdrs, 2, &data);
  }
  return 0;
}

static int on_chunk(nghttp2_session *s, uint8_t flags, int32_t stream, const uint8_t *data,
                    size_t len, void *user) {
  (void)s, (void)flags, (void)stream, (void)data, (void)user;
  received += len;
  return 0;
}

/* Moves whatever `from` has to send into `to`; returns the bytes moved, or -1. */
static long pump(nghttp2_session *from, nghttp2_session *to) {
  long total = 0;
  for (;;) {
    const uint8_t *out;
    ssize_t n = nghttp2_session_mem_send(from, &out);
    if (n < 0) return -1;
    if (n == 0) return total;
    if (nghttp2_session_mem_recv(to, out, (size_t)n) != n) return -1;
    total += n;
  }
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "/index.html";
  nghttp2_session_callbacks *cb;
  nghttp2_session *client, *server;
  if (nghttp2_session_callbacks_new(&cb) != 0) return 1;
  nghttp2_session_callbacks_set_on_frame_recv_callback(cb, on_frame);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, on_chunk);
  if (nghttp2_session_client_new(&client, cb, NULL) != 0) return 2;
  if (nghttp2_session_server_new(&server, cb, (void *)1) != 0) return 3;

  nghttp2_settings_entry iv[] = {{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 100},
                                 {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 65535}};
  nghttp2_submit_settings(client, NGHTTP2_FLAG_NONE, iv, 2);
  nghttp2_submit_settings(server, NGHTTP2_FLAG_NONE, iv, 2);
  nghttp2_nv req[] = {NV(":method", "GET"), NV(":scheme", "https"), NV(":authority", "example"),
                      {(uint8_t *)":path", (uint8_t *)path, 5, strlen(path), NGHTTP2_NV_FLAG_NONE}};
  int32_t stream = nghttp2_submit_request(client, NULL, req, 4, NULL, NULL);
  if (stream < 0) return 4;
  nghttp2_submit_ping(client, NGHTTP2_FLAG_NONE, NULL);
  for (int round = 0; round < 8; round++) {
    long a = pump(client, server), b = pump(server, client);
    if (a < 0 || b < 0) return 5;
    if (a == 0 && b == 0) break;
  }
  nghttp2_submit_goaway(server, NGHTTP2_FLAG_NONE, stream, NGHTTP2_NO_ERROR, NULL, 0);
  pump(server, client);

  /* HPACK alone: the request's headers deflated and inflated again. */
  nghttp2_hd_deflater *def;
  nghttp2_hd_inflater *inf;
  uint8_t block[512];
  size_t headers = 0;
  if (nghttp2_hd_deflate_new(&def, 4096) != 0 || nghttp2_hd_inflate_new(&inf) != 0) return 6;
  ssize_t blen = nghttp2_hd_deflate_hd(def, block, sizeof block, req, 4);
  for (uint8_t *in = block; blen > 0;) {
    nghttp2_nv nv;
    int flags = 0;
    ssize_t used = nghttp2_hd_inflate_hd2(inf, &nv, &flags, in, (size_t)blen, 1);
    if (used < 0) return 7;
    in += used, blen -= used;
    if (flags & NGHTTP2_HD_INFLATE_EMIT) headers++;
    if (flags & NGHTTP2_HD_INFLATE_FINAL) break;
  }
  nghttp2_hd_inflate_end_headers(inf);
  nghttp2_hd_deflate_del(def);
  nghttp2_hd_inflate_del(inf);

  printf("nghttp2 %s: %zu body bytes, %zu headers through HPACK\n",
         nghttp2_version(0)->version_str, received, headers);
  nghttp2_session_del(client);
  nghttp2_session_del(server);
  nghttp2_session_callbacks_del(cb);
  return received == strlen(body) && headers == 4 ? 0 : 8;
}
