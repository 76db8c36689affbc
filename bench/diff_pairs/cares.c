/*
 * bench/diff.ts's driver around c-ares: the same file for each release, built with that
 * release's sources compiled in (no archive, so every function of the library stays in the
 * executable). Resolves a name from the hosts file only (no network: lookups "f"), forward and
 * reverse and through getaddrinfo, builds a DNS query and parses a reply by hand, expands a
 * name and prints what it gets.
 */
#include <ares.h>
#include <arpa/inet.h>
#include <arpa/nameser.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/select.h>

static int answers;

static void on_host(void *arg, int status, int timeouts, struct hostent *host) {
  (void)timeouts;
  char ip[64] = "-";
  if (status == ARES_SUCCESS && host->h_addr_list[0]) {
    inet_ntop(host->h_addrtype, host->h_addr_list[0], ip, sizeof ip);
  }
  printf("%s: %s, %s -> %s\n", (const char *)arg, ares_strerror(status),
         status == ARES_SUCCESS ? host->h_name : "-", ip);
  answers++;
}

static void on_addrinfo(void *arg, int status, int timeouts, struct ares_addrinfo *ai) {
  (void)timeouts;
  int n = 0;
  if (status == ARES_SUCCESS) {
    for (struct ares_addrinfo_node *p = ai->nodes; p; p = p->ai_next) n++;
  }
  printf("%s: %s, %d addresses\n", (const char *)arg, ares_strerror(status), n);
  if (ai) ares_freeaddrinfo(ai);
  answers++;
}

static void wait_for(ares_channel ch) {
  for (;;) {
    fd_set r, w;
    FD_ZERO(&r);
    FD_ZERO(&w);
    int n = ares_fds(ch, &r, &w);
    struct timeval tv, *tvp = ares_timeout(ch, NULL, &tv);
    if (n == 0 && !tvp) break;
    select(n, &r, &w, NULL, tvp);
    ares_process(ch, &r, &w);
    if (n == 0) break;
  }
}

int main(int argc, char **argv) {
  const char *name = argc > 1 ? argv[1] : "localhost";
  int version = 0;
  printf("c-ares %s\n", ares_version(&version));
  if (ares_library_init(ARES_LIB_INIT_ALL) != ARES_SUCCESS) return 1;
  struct ares_options opts;
  memset(&opts, 0, sizeof opts);
  opts.lookups = "f";
  ares_channel ch;
  if (ares_init_options(&ch, &opts, ARES_OPT_LOOKUPS) != ARES_SUCCESS) return 2;
  ares_gethostbyname(ch, name, AF_INET, on_host, (void *)name);
  struct in_addr loop = {htonl(INADDR_LOOPBACK)};
  ares_gethostbyaddr(ch, &loop, sizeof loop, AF_INET, on_host, "127.0.0.1");
  struct ares_addrinfo_hints hints;
  memset(&hints, 0, sizeof hints);
  hints.ai_family = AF_UNSPEC;
  ares_getaddrinfo(ch, name, "80", &hints, on_addrinfo, (void *)name);
  wait_for(ch);

  unsigned char *query;
  int qlen;
  if (ares_create_query("www.example.org", ns_c_in, ns_t_a, 0x1234, 1, &query, &qlen, 0) ==
      ARES_SUCCESS) {
    /* The query turned into an answer: one A record, its name a pointer to the question's. */
    unsigned char reply[512];
    memcpy(reply, query, qlen);
    reply[2] |= 0x80;
    reply[7] = 1;
    static const unsigned char rr[] = {0xc0, 12, 0, 1, 0, 1, 0, 0, 0x0e, 0x10, 0, 4, 93, 184,
                                       216, 34};
    memcpy(reply + qlen, rr, sizeof rr);
    struct ares_addrttl ttls[2];
    int nttl = 2;
    struct hostent *host = NULL;
    int rc = ares_parse_a_reply(reply, qlen + (int)sizeof rr, &host, ttls, &nttl);
    char ip[64] = "-";
    if (rc == ARES_SUCCESS) inet_ntop(AF_INET, &ttls[0].ipaddr, ip, sizeof ip);
    printf("parsed: %s, %d records, %s ttl %d\n", ares_strerror(rc), nttl, ip,
           nttl > 0 ? ttls[0].ttl : 0);
    char *expanded;
    long len;
    if (ares_expand_name(reply + qlen, reply, qlen + (int)sizeof rr, &expanded, &len) ==
        ARES_SUCCESS) {
      printf("expanded: %s (%ld bytes)\n", expanded, len);
      ares_free_string(expanded);
    }
    if (host) ares_free_hostent(host);
    ares_free_string(query);
  }
  ares_destroy(ch);
  ares_library_cleanup();
  return answers == 3 ? 0 : 3;
}
