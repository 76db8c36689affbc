import assert from "node:assert/strict";
import { RemcpError } from "../errors.ts";
import { checkServerSecurity } from "./connect.ts";

const refused = (flags: Parameters<typeof checkServerSecurity>[0]) =>
  assert.throws(() => checkServerSecurity(flags), (e) => e instanceof RemcpError);

Deno.test("checkServerSecurity() lets loopback servers through without credentials", () => {
  for (const nats of ["nats://127.0.0.1:4222", "localhost:4222", "nats://[::1]:4222"]) {
    assert.equal(checkServerSecurity({ nats }).length, 1);
  }
});

Deno.test("checkServerSecurity() refuses a remote server with nothing that authenticates", () => {
  refused({ nats: "nats://10.0.0.5:4222" });
  refused({ nats: "nats://127.0.0.1:4222,nats://nats.example:4222" });
  refused({ nats: "tls://nats.example:4222", "tls-ca": "ca.pem" });
  assert.throws(() => checkServerSecurity({ nats: "nats://10.0.0.5:4222" }), /--allow-insecure/);
});

Deno.test("checkServerSecurity() accepts a remote server with credentials or --allow-insecure", () => {
  const nats = "nats://nats.example:4222";
  checkServerSecurity({ nats, creds: "x.creds" });
  checkServerSecurity({ nats, nkey: "x.nk" });
  checkServerSecurity({ nats, token: "t" });
  checkServerSecurity({ nats, user: "u", password: "p" });
  checkServerSecurity({ nats, "tls-cert": "c.pem", "tls-key": "k.pem" });
  checkServerSecurity({ nats: "nats://u:p@nats.example:4222" });
  checkServerSecurity({ nats, "allow-insecure": true });
});

Deno.test("checkServerSecurity() refuses half-given credentials and a missing URL", () => {
  refused({});
  refused({ nats: "nats://127.0.0.1:4222", user: "u" });
  refused({ nats: "nats://127.0.0.1:4222", "tls-cert": "c.pem" });
});
