import assert from "node:assert/strict";
import { constantTimeEqual, createGuard, isLoopbackHost, newToken } from "./guard.ts";

const token = "a".repeat(64);
const guard = createGuard({ token, host: "127.0.0.1" });

function req(headers: Record<string, string>): Request {
  return new Request("http://127.0.0.1:9/mcp", { headers: { host: "127.0.0.1:9", ...headers } });
}

Deno.test("newToken() makes 256 random bits as hex", () => {
  const a = newToken();
  assert.match(a, /^[0-9a-f]{64}$/);
  assert.notEqual(a, newToken());
});

Deno.test("constantTimeEqual() compares whole strings", () => {
  assert.ok(constantTimeEqual("abc", "abc"));
  assert.ok(!constantTimeEqual("abc", "abd"));
  assert.ok(!constantTimeEqual("abc", "abcd"));
  assert.ok(!constantTimeEqual("", "a"));
});

Deno.test("createGuard() passes the right token from loopback", () => {
  assert.equal(guard(req({ authorization: `Bearer ${token}` })), undefined);
  assert.equal(guard(req({ authorization: `Bearer ${token}`, host: "localhost:9" })), undefined);
  assert.equal(
    guard(req({ authorization: `Bearer ${token}`, origin: "http://localhost:3000" })),
    undefined,
  );
});

Deno.test("createGuard() answers 401 without the token or with a wrong one", () => {
  assert.equal(guard(req({}))?.status, 401);
  assert.equal(guard(req({ authorization: `Bearer ${"b".repeat(64)}` }))?.status, 401);
  assert.equal(guard(req({ authorization: token }))?.status, 401);
});

Deno.test("createGuard() answers 403 to a rebinding page, token or not", () => {
  const auth = { authorization: `Bearer ${token}` };
  assert.equal(guard(req({ ...auth, host: "evil.example" }))?.status, 403);
  assert.equal(guard(req({ ...auth, host: "evil.example:9" }))?.status, 403);
  assert.equal(guard(req({ ...auth, origin: "http://evil.example" }))?.status, 403);
  assert.equal(guard(req({ ...auth, origin: "null" }))?.status, 403);
});

Deno.test("createGuard() on a remote address also accepts that address as Host", () => {
  const remote = createGuard({ token, host: "10.1.2.3" });
  const auth = { authorization: `Bearer ${token}` };
  assert.equal(remote(req({ ...auth, host: "10.1.2.3:9" })), undefined);
  assert.equal(remote(req({ ...auth, host: "evil.example" }))?.status, 403);
});

Deno.test("isLoopbackHost() knows the loopback names", () => {
  for (const h of ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"]) {
    assert.ok(isLoopbackHost(h), h);
  }
  for (const h of ["0.0.0.0", "10.0.0.1", "example.com", "::"]) assert.ok(!isLoopbackHost(h), h);
});
