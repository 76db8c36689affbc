/**
 * Runs every benchmark in turn (`deno task bench`); each prints its own table of ratios.
 * Pass names to run a subset: `deno task bench routing execute`.
 */
const BENCHES = [
  "routing",
  "hop_floor",
  "disasm",
  "analysis",
  "accuracy",
  "execute",
  "startup",
  "daemon_load",
  "http_relay",
  "open_memory",
  "run_batch",
  "invoke_cost",
  "sandbox_hop",
  "sandbox_start",
  "fuzz",
  "cluster",
  "decompile",
  "structure",
];
/** Extra `deno run` flags a benchmark needs. */
const FLAGS: Record<string, string[]> = { sandbox_hop: ["--unstable-worker-options"] };

const wanted = Deno.args.length > 0 ? Deno.args : BENCHES;
let failed = 0;
for (const name of wanted) {
  if (!BENCHES.includes(name)) {
    console.error(`unknown benchmark "${name}"; known: ${BENCHES.join(", ")}`);
    Deno.exit(2);
  }
  console.log(`\n=== bench/${name}.ts`);
  const { code } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", ...(FLAGS[name] ?? []), new URL(`./${name}.ts`, import.meta.url).pathname],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (code !== 0) failed++;
}
Deno.exit(failed > 0 ? 1 : 0);
