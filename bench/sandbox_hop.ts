/**
 * The price of the sandbox's process boundary: one message round trip to a child process over
 * pipes (how `execute` reaches its QuickJS today) against one to a permission-less Web Worker in
 * the same process (the alternative the closing note of issue 15 weighs). Both echo a small JSON
 * line, as an invoke and its result are.
 *
 *   deno run -A --unstable-worker-options bench/sandbox_hop.ts [round trips]
 */
const N = Number(Deno.args[0] ?? 2000);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const line = JSON.stringify({
  type: "invoke",
  runId: "r",
  callId: 1,
  name: "read_bytes",
  args: {},
});

async function viaProcess(): Promise<number[]> {
  const echo = `const d=new TextDecoder();const e=new TextEncoder();let b="";` +
    `for await (const c of Deno.stdin.readable){b+=d.decode(c);let i;` +
    `while((i=b.indexOf("\\n"))>=0){const l=b.slice(0,i);b=b.slice(i+1);` +
    `Deno.stdout.writeSync(e.encode(l+"\\n"));}}`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", echo],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const reader = child.stdout.getReader();
  const enc = new TextEncoder();
  const dec = new TextDecoder();
  let buf = "";
  const times: number[] = [];
  for (let i = 0; i < N; i++) {
    const t0 = performance.now();
    await writer.write(enc.encode(line + "\n"));
    while (!buf.includes("\n")) buf += dec.decode((await reader.read()).value);
    buf = buf.slice(buf.indexOf("\n") + 1);
    JSON.parse(line);
    times.push(performance.now() - t0);
  }
  await writer.close();
  reader.releaseLock();
  await child.status;
  return times;
}

async function viaWorker(): Promise<number[]> {
  const src = `self.onmessage = (e) => self.postMessage(e.data);`;
  const url = URL.createObjectURL(new Blob([src], { type: "text/javascript" }));
  const worker = new Worker(url, {
    type: "module",
    // deno-lint-ignore no-explicit-any
    deno: { permissions: "none" } as any,
  });
  const times: number[] = [];
  for (let i = 0; i < N; i++) {
    const t0 = performance.now();
    const back = new Promise<string>((r) => worker.onmessage = (e) => r(e.data));
    worker.postMessage(line);
    JSON.parse(await back);
    times.push(performance.now() - t0);
  }
  worker.terminate();
  return times;
}

const proc = await viaProcess();
const thread = await viaWorker();
const p = median(proc);
const w = median(thread);
console.log(`round trip of one invoke-sized message, median of ${N} (ms):`);
console.log(`  child process over pipes:       ${p.toFixed(4)}`);
console.log(`  Web Worker (no permissions):    ${w.toFixed(4)}`);
console.log(`  ratio process / worker:         ${(p / w).toFixed(1)}x`);
