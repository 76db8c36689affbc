/*
 * bench/diff.ts's driver around libcurl: the same file for each release, built with that
 * release's sources compiled in (no archive, so every function of the library stays in the
 * executable). Fetches a file:// URL (its own executable by default) through the easy and the
 * multi interface, and exercises the URL parser, escaping, date parsing and printf.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>

static size_t sink(char *data, size_t size, size_t n, void *user) {
  (void)data;
  *(size_t *)user += size * n;
  return size * n;
}

int main(int argc, char **argv) {
  char url[4096];
  size_t got = 0, got_multi = 0;
  if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) return 1;
  char *path = realpath(argc > 1 ? argv[1] : argv[0], NULL);
  if (!path) return 2;
  curl_msnprintf(url, sizeof url, "file://%s", path);
  free(path);

  CURL *easy = curl_easy_init();
  if (!easy) return 3;
  curl_easy_setopt(easy, CURLOPT_URL, url);
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, sink);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &got);
  CURLcode rc = curl_easy_perform(easy);

  CURL *again = curl_easy_duphandle(easy);
  curl_easy_setopt(again, CURLOPT_WRITEDATA, &got_multi);
  CURLM *multi = curl_multi_init();
  curl_multi_add_handle(multi, again);
  for (int running = 1; running;) {
    if (curl_multi_perform(multi, &running) != CURLM_OK) break;
    if (running) curl_multi_poll(multi, NULL, 0, 100, NULL);
  }
  curl_multi_remove_handle(multi, again);
  curl_multi_cleanup(multi);
  curl_easy_cleanup(again);

  CURLU *u = curl_url();
  char *host = NULL, *query = NULL;
  curl_url_set(u, CURLUPART_URL, "http://user@example.org:8080/a/../b/c?x=1&y=%20#frag", 0);
  curl_url_set(u, CURLUPART_QUERY, "z=2", CURLU_APPENDQUERY | CURLU_URLENCODE);
  curl_url_get(u, CURLUPART_HOST, &host, 0);
  curl_url_get(u, CURLUPART_QUERY, &query, CURLU_URLDECODE);
  char *esc = curl_easy_escape(easy, "a b&c=d/é", 0);
  time_t when = curl_getdate("Sun, 06 Nov 1994 08:49:37 GMT", NULL);
  curl_mprintf("%s: %s, %zu and %zu bytes; host %s query %s escaped %s date %ld\n",
               curl_version(), curl_easy_strerror(rc), got, got_multi, host ? host : "-",
               query ? query : "-", esc ? esc : "-", (long)when);
  curl_free(esc);
  curl_free(host);
  curl_free(query);
  curl_url_cleanup(u);
  curl_easy_cleanup(easy);
  curl_global_cleanup();
  return rc == CURLE_OK && got > 0 && got == got_multi ? 0 : 4;
}
