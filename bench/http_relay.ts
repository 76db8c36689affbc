/**
 * HTTP relay: the cost of the idle-closing relay in front of the daemon's HTTP server
 * (`src/daemon/idle_front.ts`). The same trivial handler is served by a plain `Deno.serve` (the
 * reference, measured in the same run) and behind the relay; prints the median latency of small
 * sequential requests and the time to upload a large body, and their ratios.
 *
 *   deno run -A bench/http_relay.ts [requests] [upload-MiB]
 */
import { serveBehindIdleFront } from "../src/daemon/idle_front.ts";

const REQUESTS = Number(Deno.args[0] ?? 2000);
const UPLOAD_MIB = Number(Deno.args[1] ?? 64);

const handler = async (request: Request) => {
  let n = 0;
  if (request.body) { for await (const chunk of request.body) n += chunk.length; }
  return Response.json({ received: n });
};

async function measure(port: number): Promise<{ medianMs: number; uploadMs: number }> {
  const url = `http://127.0.0.1:${port}/`;
  const times: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const t0 = performance.now();
    await (await fetch(url)).json();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const body = new Uint8Array(UPLOAD_MIB * 1024 * 1024);
  const t0 = performance.now();
  const r = await (await fetch(url, { method: "POST", body })).json();
  const uploadMs = performance.now() - t0;
  if (r.received !== body.length) throw new Error(`received ${r.received} of ${body.length}`);
  return { medianMs: times[Math.floor(times.length / 2)]!, uploadMs };
}

const plain = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler);
const relayed = await serveBehindIdleFront(
  { hostname: "127.0.0.1", port: 0, idleMs: 30_000 },
  handler,
);
try {
  // Warm both up, then alternate so that machine noise hits both alike.
  await measure(plain.addr.port);
  await measure(relayed.addr.port);
  const a = await measure(plain.addr.port);
  const b = await measure(relayed.addr.port);
  const row = (name: string, x: number, y: number) =>
    console.log(
      `${name.padEnd(28)} ${x.toFixed(3).padStart(9)} ms ${y.toFixed(3).padStart(9)} ms ` +
        `${(y / x).toFixed(2).padStart(6)}×`,
    );
  console.log(`${"".padEnd(28)} ${"Deno.serve".padStart(12)} ${"relayed".padStart(12)}  ratio`);
  row(`request, median of ${REQUESTS}`, a.medianMs, b.medianMs);
  row(`upload of ${UPLOAD_MIB} MiB`, a.uploadMs, b.uploadMs);
} finally {
  await plain.shutdown();
  await relayed.shutdown(1000);
}
