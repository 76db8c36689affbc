import assert from "node:assert/strict";
import { serveBehindIdleFront, SOCKET_DIR_PREFIX } from "./idle_front.ts";

Deno.test("serveBehindIdleFront() removes socket folders left by a killed daemon", async () => {
  if (Deno.build.os === "windows") return; // listens on loopback TCP there: no folder
  // A pid that existed and is gone: a child that has exited and been reaped.
  const dead = new Deno.Command(Deno.execPath(), { args: ["--version"], stdout: "null" }).spawn();
  await dead.status;
  const stale = await Deno.makeTempDir({ prefix: SOCKET_DIR_PREFIX });
  const live = await Deno.makeTempDir({ prefix: SOCKET_DIR_PREFIX });
  await Deno.writeTextFile(`${stale}/.owner`, String(dead.pid));
  await Deno.writeFile(`${stale}/http.sock`, new Uint8Array(0));
  await Deno.writeTextFile(`${live}/.owner`, String(Deno.pid));
  const server = await serveBehindIdleFront(
    { hostname: "127.0.0.1", port: 0, idleMs: 60_000 },
    () => Promise.resolve(new Response("ok")),
  );
  try {
    await assert.rejects(Deno.stat(stale), Deno.errors.NotFound);
    assert.ok((await Deno.stat(live)).isDirectory, "a live owner's folder stays");
    const res = await fetch(`http://127.0.0.1:${server.addr.port}/`);
    assert.equal(await res.text(), "ok");
  } finally {
    await server.shutdown(1000);
    await Deno.remove(live, { recursive: true });
    await Deno.remove(stale, { recursive: true }).catch(() => {});
  }
});
