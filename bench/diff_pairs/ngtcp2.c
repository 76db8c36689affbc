/*
 * bench/diff.ts's driver around ngtcp2 (the QUIC library, without its crypto backends): the same
 * file for each release, built with that release's lib/ sources compiled in (no archive, so every
 * function of the library stays in the executable). Decodes the version and connection IDs of a
 * hand-made Initial packet and asks ngtcp2_accept about it, prints the library's version, its
 * error strings and the transport error codes they map to, and the default settings.
 */
#include <ngtcp2/ngtcp2.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  const ngtcp2_info *info = ngtcp2_version(0);
  printf("ngtcp2 %s\n", info ? info->version_str : "?");

  /* A long-header Initial of QUIC v1: flags, version, DCID (8 bytes), SCID (4 bytes), token
   * length 0, payload length, then padding up to the 1200 bytes a client Initial must have. */
  static uint8_t pkt[1200];
  size_t n = 0;
  pkt[n++] = 0xc3;
  pkt[n++] = 0;
  pkt[n++] = 0;
  pkt[n++] = 0;
  pkt[n++] = 1;
  pkt[n++] = 8;
  for (int i = 0; i < 8; i++) pkt[n++] = (uint8_t)(0xa0 + i + argc);
  pkt[n++] = 4;
  for (int i = 0; i < 4; i++) pkt[n++] = (uint8_t)(0xb0 + i);
  pkt[n++] = 0;
  pkt[n++] = 0x44;
  pkt[n++] = 0x80;

  ngtcp2_version_cid vc;
  int rv = ngtcp2_pkt_decode_version_cid(&vc, pkt, sizeof(pkt), 8);
  printf("decode_version_cid: %d (%s), version %08x, dcid %zu, scid %zu\n", rv,
         ngtcp2_strerror(rv), vc.version, vc.dcidlen, vc.scidlen);
  ngtcp2_pkt_hd hd;
  rv = ngtcp2_accept(&hd, pkt, sizeof(pkt));
  printf("accept: %d (%s)\n", rv, ngtcp2_strerror(rv));

  ngtcp2_cid cid;
  ngtcp2_cid_init(&cid, pkt + 6, 8);
  printf("cid of %zu bytes\n", cid.datalen);

  for (int err = -201; err <= -500 + 300; err++) {
    const char *s = ngtcp2_strerror(err);
    if (strcmp(s, "ERR_UNKNOWN") == 0) continue;
    printf("%d %s -> %llu\n", err, s,
           (unsigned long long)ngtcp2_err_infer_quic_transport_error_code(err));
  }

  ngtcp2_settings settings;
  ngtcp2_settings_default(&settings);
  printf("max_tx_udp_payload_size %zu\n", settings.max_tx_udp_payload_size);
  ngtcp2_transport_params params;
  ngtcp2_transport_params_default(&params);
  printf("max_udp_payload_size %llu\n", (unsigned long long)params.max_udp_payload_size);
  (void)argv;
  return 0;
}
