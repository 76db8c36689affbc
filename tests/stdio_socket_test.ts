/**
 * The server's stdio when it is a Unix socket (as an MCP host on Node.js gives it) or a pipe (as
 * a Deno or Python host does): read and written on the event loop (src/stdio_conn.ts), with the
 * same behaviour as Deno's own stdio (`REMCP_STDIO=stream`) — every message answered whole
 * whatever its size, a client that stops reading does not end the server, and the end of stdin
 * ends it cleanly.
 */
import assert from "node:assert/strict";
import { fixture, remcpArgs, remcpEnv, startRemcp, withTempDir } from "./_harness.ts";
import { connectClient, spawnOnSockets } from "./_socket_stdio.ts";

const linux = Deno.build.os === "linux";
const O_NONBLOCK = 0o4000;

/** Whether the child's descriptor is non-blocking: node:net adopted it (Deno's stdio is not). */
function nonBlocking(pid: number, fd: number): boolean {
  const info = Deno.readTextFileSync(`/proc/${pid}/fdinfo/${fd}`);
  const flags = /^flags:\s*([0-7]+)/m.exec(info);
  return (parseInt(flags![1]!, 8) & O_NONBLOCK) !== 0;
}

/** 100,000 bytes that no format claims, opened as a raw blob. */
const SAMPLE = new Uint8Array(100_000).map((_, i) => (i * 7919) & 0xff);
const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

const ways = [
  { name: "one socket", shared: true, stdio: "auto", adopted: true },
  { name: "a socket each (as Node gives)", shared: false, stdio: "auto", adopted: true },
  { name: "one socket, REMCP_STDIO=stream", shared: true, stdio: "stream", adopted: false },
];

for (const way of ways) {
  Deno.test({
    name: `stdio on ${way.name}: messages over 64 KB both ways arrive whole, 50 at once in ` +
      `order, stdin's end ends the server with 0`,
    ignore: !linux,
    fn: () =>
      withTempDir("remcp-test-state-", async (dir) => {
        const child = await spawnOnSockets(Deno.execPath(), remcpArgs([]), {
          env: remcpEnv(dir, { REMCP_STDIO: way.stdio }),
          shared: way.shared,
        });
        const client = await connectClient(child);
        assert.equal(nonBlocking(child.pid, 0), way.adopted, "fd 0 served by node:net");
        assert.equal(nonBlocking(child.pid, 1), way.adopted, "fd 1 served by node:net");
        // ~133 KB in: the line arrives in several reads.
        let bin = "";
        for (const b of SAMPLE) bin += String.fromCharCode(b);
        const opened = await client.callTool({
          name: "open_data",
          arguments: { name: "sample", base64: btoa(bin), options: { arch: "x86_64", base: 0 } },
        });
        assert.notEqual(opened.isError, true, JSON.stringify(opened.content));
        const database = (opened.structuredContent as { database: string }).database;
        // ~160 KB out: more than a socket takes in one write.
        const read = await client.callTool({
          name: "call",
          arguments: { name: "read_bytes", arguments: { database, address: "0x0", size: 40000 } },
        });
        assert.notEqual(read.isError, true, JSON.stringify(read.content));
        const value = JSON.parse((read.content as { text: string }[])[0]!.text) as { hex: string };
        assert.equal(value.hex, hex(SAMPLE.subarray(0, 40000)));
        const many = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            client.callTool({
              name: "call",
              arguments: {
                name: "read_bytes",
                arguments: { database, address: `0x${(i * 1000).toString(16)}`, size: 8 },
              },
            })),
        );
        many.forEach((r, i) => {
          const v = JSON.parse((r.content as { text: string }[])[0]!.text) as { hex: string };
          assert.equal(v.hex, hex(SAMPLE.subarray(i * 1000, i * 1000 + 8)));
        });
        await client.close();
        const status = await child.status;
        assert.equal(status.code, 0, child.stderr());
      }),
  });
}

Deno.test({
  name: "stdio on pipes: answers larger than the pipe and small ones, many at once, arrive " +
    "whole and each to its call",
  ignore: !linux,
  async fn() {
    // A pipe holds 64 KB: a big answer waits in the socket for the client to read, and the small
    // ones, otherwise written at once, wait behind it (src/stdio_conn.ts).
    const h = await startRemcp();
    try {
      assert.ok(nonBlocking(h.transport.pid!, 1), "fd 1 served by node:net");
      const file = `${h.stateDir}/sample`;
      Deno.writeFileSync(file, SAMPLE);
      const opened = await h.client.callTool({
        name: "open_database",
        arguments: { path: file, options: { arch: "x86_64", base: 0 } },
      });
      assert.notEqual(opened.isError, true, JSON.stringify(opened.content));
      const database = (opened.structuredContent as { database: string }).database;
      const size = (i: number) => i % 3 === 0 ? 40000 : 8;
      const reads = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          h.client.callTool({
            name: "call",
            arguments: {
              name: "read_bytes",
              arguments: { database, address: `0x${(i * 2000).toString(16)}`, size: size(i) },
            },
          })),
      );
      reads.forEach((r, i) => {
        assert.notEqual(r.isError, true, JSON.stringify(r.content));
        const v = JSON.parse((r.content as { text: string }[])[0]!.text) as { hex: string };
        assert.equal(v.hex, hex(SAMPLE.subarray(i * 2000, i * 2000 + size(i))));
      });
    } finally {
      await h.close();
    }
  },
});

/** A server's stdio seen from the client, over sockets or pipes. */
interface Channel {
  pid: number;
  send(message: unknown): Promise<unknown>;
  /** Reads until one whole line has arrived. */
  firstLine(): Promise<string>;
  /** Stops reading the server's stdout: its writes fail from then on (EPIPE). */
  closeRead(): void;
  closeWrite(): Promise<void>;
  status: Promise<Deno.CommandStatus>;
  stderr(): string;
}

const encoder = new TextEncoder();
const line = (m: unknown) => encoder.encode(JSON.stringify(m) + "\n");

async function onSockets(env: Record<string, string>): Promise<Channel> {
  const child = await spawnOnSockets(Deno.execPath(), remcpArgs([]), { env });
  const buf = new Uint8Array(65536);
  return {
    pid: child.pid,
    send: (m) => child.stdin.write(line(m)),
    async firstLine() {
      let got = "";
      while (!got.includes("\n")) {
        const n = await child.stdout.read(buf);
        if (n === null) throw new Error("the server closed its stdout");
        got += new TextDecoder().decode(buf.subarray(0, n));
      }
      return got;
    },
    closeRead: () => child.stdout.close(),
    closeWrite: () => child.stdin.closeWrite(),
    status: child.status.finally(() => child.stdin.close()),
    stderr: child.stderr,
  };
}

function onPipes(env: Record<string, string>): Channel {
  const child = new Deno.Command(Deno.execPath(), {
    args: remcpArgs([]),
    env,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const reader = child.stdout.getReader();
  let text = "";
  const decoder = new TextDecoder();
  const drained = child.stderr.pipeTo(
    new WritableStream({ write: (c) => void (text += decoder.decode(c, { stream: true })) }),
  );
  return {
    pid: child.pid,
    send: (m) => writer.write(line(m)),
    async firstLine() {
      let got = "";
      while (!got.includes("\n")) {
        const r = await reader.read();
        if (r.done) throw new Error("the server closed its stdout");
        got += new TextDecoder().decode(r.value);
      }
      return got;
    },
    closeRead: () => void reader.cancel(),
    closeWrite: () => writer.close(),
    status: child.status.then(async (s) => (await drained, s)),
    stderr: () => text,
  };
}

const readers = [
  { name: "sockets (as Node gives)", open: onSockets, stdio: "auto" },
  { name: "pipes", open: onPipes, stdio: "auto" },
  { name: "pipes, REMCP_STDIO=stream", open: onPipes, stdio: "stream" },
];

for (const way of readers) {
  Deno.test({
    name: `stdio on ${way.name}: a client that stops reading makes every answer fail; the ` +
      `server reads on and ends with 0 at stdin's end`,
    ignore: !linux,
    fn: () =>
      withTempDir("remcp-test-state-", async (dir) => {
        const ch = await way.open(
          remcpEnv(dir, { REMCP_STDIO: way.stdio, REMCP_LOG_LEVEL: "debug" }),
        );
        await ch.send({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "t", version: "0" },
          },
        });
        assert.match(await ch.firstLine(), /"id":1/);
        assert.equal(nonBlocking(ch.pid, 0), way.stdio === "auto", "fd 0 served by node:net");
        ch.closeRead();
        await ch.send({ jsonrpc: "2.0", method: "notifications/initialized" });
        // Answered by the fast path, by the SDK server, and one bigger than any buffer.
        for (let id = 2; id < 12; id++) {
          await ch.send({
            jsonrpc: "2.0",
            id,
            method: "tools/call",
            params: { name: "list_backends", arguments: {} },
          });
        }
        await ch.send({ jsonrpc: "2.0", id: 12, method: "tools/list" });
        await ch.send({
          jsonrpc: "2.0",
          id: 13,
          method: "tools/call",
          params: { name: "get_schema", arguments: { names: ["open_database", "execute"] } },
        });
        // The server still reads: it opens a file asked for after every failed answer.
        const file = `${dir}/sample`;
        Deno.writeFileSync(file, SAMPLE);
        await ch.send({
          jsonrpc: "2.0",
          id: 14,
          method: "tools/call",
          params: {
            name: "open_database",
            arguments: { path: file, options: { arch: "x86_64", base: 0 } },
          },
        });
        while (!ch.stderr().includes(`loaded ${file}`)) {
          const ended = await Promise.race([ch.status, tick()]);
          if (ended) assert.fail(`the server ended early: ${ch.stderr()}`);
        }
        await ch.closeWrite();
        const status = await ch.status;
        assert.equal(status.code, 0, ch.stderr());
        assert.doesNotMatch(ch.stderr(), /Uncaught|panicked/);
      }),
  });
}

/** One short wait of a polling loop (resolves undefined). */
function tick(): Promise<undefined> {
  return new Promise((r) => setTimeout(() => r(undefined), 50));
}

Deno.test({
  name: "a worker serving its own stdio on a socket answers and ends with 0 at stdin's end",
  ignore: !linux,
  fn: () =>
    withTempDir("remcp-test-state-", async (dir) => {
      const child = await spawnOnSockets(
        Deno.execPath(),
        remcpArgs(["worker", "--backend", "embedded", fixture("elf_x86_64_gcc_O2")]),
        { env: remcpEnv(dir) },
      );
      const client = await connectClient(child);
      assert.ok(nonBlocking(child.pid, 0), "fd 0 served by node:net");
      const r = await client.callTool({ name: "_status", arguments: {} });
      assert.notEqual(r.isError, true, JSON.stringify(r.content));
      assert.equal(typeof (r.structuredContent as { state: unknown }).state, "string");
      await client.close();
      assert.equal((await child.status).code, 0, child.stderr());
    }),
});
