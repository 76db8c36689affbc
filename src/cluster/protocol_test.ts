import assert from "node:assert/strict";
import { JobSchema, objectDigest } from "./protocol.ts";

Deno.test("objectDigest() is the object store's SHA-256 digest string", () => {
  // sha256("abc"), as the NATS object store writes it (base64url, padded).
  assert.equal(
    objectDigest("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    "SHA-256=ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0=",
  );
});

Deno.test("JobSchema refuses a job that carries anything but its fields", () => {
  const job = {
    v: 1,
    submission: "abc123",
    index: 0,
    file: "a.out",
    sha256: "0".repeat(64),
    script: "1".repeat(64),
    timeout_s: 600,
    max_deliveries: 3,
    annotations: false,
  };
  assert.ok(JobSchema.safeParse(job).success);
  assert.ok(!JobSchema.safeParse({ ...job, command: "rm -rf /" }).success);
  assert.ok(!JobSchema.safeParse({ ...job, submission: "a.b" }).success);
  assert.ok(!JobSchema.safeParse({ ...job, sha256: "../etc/passwd" }).success);
});
