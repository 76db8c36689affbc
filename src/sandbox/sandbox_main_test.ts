import assert from "node:assert/strict";
import { join } from "node:path";
import { readLines } from "./lines.ts";

/**
 * A process set up the way `remcp sandbox --connect PATH` sets itself up (connect to the parent,
 * then drop every permission), which then tries every way out it can think of and reports over
 * the socket. A script that escaped QuickJS would be in exactly this place.
 */
const ESCAPE_ATTEMPTS = (mainUrl: string, other: string, port: number, file: string) => `
import { dropPermissions, parentLink } from ${JSON.stringify(mainUrl)};
const link = await parentLink(Deno.args[0]);
// The lane socket (--lanes) is opened before the permissions go, as sandboxMain does.
const lanes = Deno.listen({ transport: "unix", path: Deno.args[1] });
dropPermissions();
const attempts = {
  "connect to another Unix socket": () => Deno.connect({ transport: "unix", path: ${
  JSON.stringify(other)
} }),
  "connect over TCP": () => Deno.connect({ hostname: "127.0.0.1", port: ${port} }),
  "listen": () => Deno.listen({ hostname: "127.0.0.1", port: 0 }),
  "listen on another Unix socket": () => Deno.listen({ transport: "unix", path: ${
  JSON.stringify(other)
} + ".2" }),
  "read a file": () => Deno.readTextFile(${JSON.stringify(file)}),
  "write a file": () => Deno.writeTextFile(${JSON.stringify(file)}, "x"),
  "read the parent's socket folder": () => Array.fromAsync(Deno.readDir(${
  JSON.stringify(other)
}.replace(/[^/]+$/, ""))),
  "run a program": () => new Deno.Command("true").output(),
  "read the environment": () => Deno.env.get("HOME"),
  "load a library": () => Deno.dlopen("libc.so.6", {}),
  // Specifiers built at run time, as an escaped script's would be: a literal one Deno would fetch
  // while loading this file, before the permissions are dropped.
  "import a local file": () => import(["file:/", ${
  JSON.stringify(file)
}].join("/"), { with: { type: "text" } }),
  "import a module over HTTP": () => import(["http://127.0.0.1:${port}", "m.js"].join("/")),
};
const outcome = {};
for (const [name, attempt] of Object.entries(attempts)) {
  try {
    await attempt();
    outcome[name] = "allowed";
  } catch (err) {
    // Imports refuse with a TypeError that names the permission.
    outcome[name] = err instanceof Deno.errors.NotCapable ||
        err instanceof Deno.errors.PermissionDenied || /Requires \\w+ access/.test(String(err))
      ? "denied"
      : "failed: " + err;
  }
}
link.writeLine(JSON.stringify(outcome));
// The lane socket still accepts after the drop.
const lane = await lanes.accept();
link.writeLine("lane accepted");
lane.close();
for await (const line of link.lines) link.writeLine("echo " + line);
`;

Deno.test(
  "sandboxMain's set-up leaves a process that reaches nothing but its parent's socket and its lane listener",
  { ignore: Deno.build.os === "windows" },
  async () => {
    const dir = await Deno.makeTempDir({ prefix: "remcp-test-sandbox-" });
    const parentPath = join(dir, "parent.sock");
    const otherPath = join(dir, "other.sock");
    const lanePath = join(dir, "lanes.sock");
    const parent = Deno.listen({ transport: "unix", path: parentPath });
    const other = Deno.listen({ transport: "unix", path: otherPath });
    const tcp = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const secret = join(dir, "secret.txt");
    await Deno.writeTextFile(secret, "secret");
    let reached = 0;
    const count = async (l: Deno.Listener) => {
      try {
        for await (const c of l) {
          reached++;
          c.close();
        }
      } catch {
        // Closed by the test.
      }
    };
    const counting = [count(other), count(tcp)];
    const script = join(dir, "escape.ts");
    await Deno.writeTextFile(
      script,
      ESCAPE_ATTEMPTS(
        new URL("./sandbox_main.ts", import.meta.url).href,
        otherPath,
        tcp.addr.port,
        secret,
      ),
    );
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--quiet", "--unstable-raw-imports", script, parentPath, lanePath],
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    try {
      const conn = await parent.accept();
      const lines = readLines(conn);
      const first = await lines.next();
      assert.equal(first.done, false, "the process reported over its socket");
      const outcome: Record<string, string> = JSON.parse(first.value);
      for (const [name, result] of Object.entries(outcome)) {
        assert.equal(result, "denied", `${name}: ${result}`);
      }
      assert.equal(Object.keys(outcome).length, 12);
      (await Deno.connect({ transport: "unix", path: lanePath })).close();
      assert.deepEqual(await lines.next(), { done: false, value: "lane accepted" });
      // The socket it connected before dropping its permissions still carries lines both ways.
      await conn.write(new TextEncoder().encode("ping\n"));
      assert.deepEqual(await lines.next(), { done: false, value: "echo ping" });
      assert.equal(await Deno.readTextFile(secret), "secret");
      assert.equal(reached, 0);
      conn.close();
      const status = await child.status;
      assert.equal(status.success, true, new TextDecoder().decode((await child.output()).stderr));
    } finally {
      try {
        child.kill("SIGKILL");
      } catch {
        // Exited.
      }
      await child.stderr.cancel().catch(() => {});
      for (const l of [parent, other, tcp]) l.close();
      await Promise.all(counting);
      await Deno.remove(dir, { recursive: true });
    }
  },
);

Deno.test("sandboxFlags takes --connect and --lanes, spaced or with =, and refuses anything else", async () => {
  const { sandboxFlags } = await import("./sandbox_main.ts");
  assert.deepEqual(sandboxFlags([]), {});
  assert.deepEqual(sandboxFlags(["--connect", "/a", "--lanes=/b"]), { connect: "/a", lanes: "/b" });
  assert.throws(() => sandboxFlags(["--other", "x"]), /unknown argument "--other"/);
  assert.throws(() => sandboxFlags(["--connect"]), /--connect needs a path/);
  assert.throws(() => sandboxFlags(["--lanes="]), /--lanes needs a path/);
  assert.throws(() => sandboxFlags(["--connect", "/a", "--connect=/b"]), /given twice/);
});
