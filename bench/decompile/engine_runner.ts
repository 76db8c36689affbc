/**
 * Decompiles functions of one binary with the embedded engine in a child process
 * (decompile_child.ts), so that a function that hangs or kills the engine costs that function
 * only: the child is killed after the per-function budget, and a new one goes on with the rest.
 */
import { fileURLToPath } from "node:url";
import { WORKER_V8_FLAGS } from "../../src/supervisor/worker_process.ts";

/** One function's outcome. */
export interface Decompiled {
  address: string;
  ok: boolean;
  /** Milliseconds inside the tool runner (no process or protocol overhead). */
  ms: number;
  /** CPU milliseconds of the process over the same call, when measured. */
  cpuMs?: number;
  /** Milliseconds of disassemble_function on the same function (the reference). */
  disasmMs?: number;
  /** Instructions in the function, as disassemble_function lists them. */
  instructions?: number;
  /** The decompile_function result when ok. */
  result?: Record<string, unknown>;
  /** Error type: the engine's (Unsupported, Timeout, …), or "Hang" / "Died" from this runner. */
  errorType?: string;
  error?: string;
}

const CHILD = fileURLToPath(new URL("./decompile_child.ts", import.meta.url));

interface ChildLine {
  ready?: boolean;
  seconds?: number;
  addresses?: string[];
  address?: string;
  started?: boolean;
  ok?: boolean;
  ms?: number;
  cpu_ms?: number;
  disasm_ms?: number;
  instructions?: number;
  result?: Record<string, unknown>;
  error_type?: string;
  error?: string;
}

/**
 * The V8 flags a worker of the checkout holding `child` runs with: this checkout's
 * {@link WORKER_V8_FLAGS}; another checkout's (a `--baseline`) as its worker_process.ts declares
 * them, none where it declares none (before they existed).
 */
function workerFlags(child: string): readonly string[] {
  if (child === CHILD) return WORKER_V8_FLAGS;
  try {
    const root = fileURLToPath(new URL("../../", `file://${child}`));
    const text = Deno.readTextFileSync(`${root}src/supervisor/worker_process.ts`);
    const list = /WORKER_V8_FLAGS[^=]*=\s*\[([^\]]*)\]/.exec(text)?.[1] ?? "";
    return [...list.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
  } catch {
    return [];
  }
}

/** The child runs as a worker process does: with the worker's V8 flags. */
function spawnChild(
  binary: string,
  stateDir: string,
  what: string,
  child = CHILD,
): Deno.ChildProcess {
  const flags = workerFlags(child);
  return new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      ...(flags.length > 0 ? [`--v8-flags=${flags.join(",")}`] : []),
      child,
      binary,
      stateDir,
      what,
    ],
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  }).spawn();
}

/** Reads NDJSON lines from a child, each wait bounded by a deadline the caller moves. */
class LineReader {
  #reader: ReadableStreamDefaultReader<string>;
  #buf = "";
  deadline = 0;
  constructor(stream: ReadableStream<Uint8Array>) {
    this.#reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  }
  /** The next line, undefined at the end, "timeout" past the deadline. */
  async next(): Promise<string | undefined> {
    while (true) {
      const nl = this.#buf.indexOf("\n");
      if (nl >= 0) {
        const line = this.#buf.slice(0, nl);
        this.#buf = this.#buf.slice(nl + 1);
        return line;
      }
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<"timeout">((r) => {
        timer = setTimeout(() => r("timeout"), Math.max(0, this.deadline - Date.now()));
      });
      const got = await Promise.race([this.#reader.read(), late]);
      clearTimeout(timer);
      if (got === "timeout") return "timeout";
      if (got.done) return undefined;
      this.#buf += got.value;
    }
  }
}

function kill(child: Deno.ChildProcess): void {
  try {
    child.kill("SIGKILL");
  } catch {
    // Already gone.
  }
}

/**
 * Every function address the embedded analysis finds in `binary`. Pass the `stateDir` of a later
 * {@link decompileAll} so that it reuses the cached analysis.
 */
export async function listFunctions(
  binary: string,
  opts: { openBudgetS?: number; stateDir?: string } = {},
): Promise<string[]> {
  const openBudgetS = opts.openBudgetS ?? 900;
  const stateDir = opts.stateDir ?? await Deno.makeTempDir({ prefix: "remcp_decompile_" });
  try {
    const child = spawnChild(binary, stateDir, "--list");
    const stderr = new Response(child.stderr).text();
    const lines = new LineReader(child.stdout);
    lines.deadline = Date.now() + openBudgetS * 1000;
    let found: string[] | undefined;
    for (let line = await lines.next(); line !== undefined; line = await lines.next()) {
      if (line === "timeout") {
        kill(child);
        break;
      }
      if (line.includes('"addresses"')) found = (JSON.parse(line) as ChildLine).addresses;
    }
    await child.status;
    if (!found) throw new Error(`cannot list the functions of ${binary}: ${await stderr}`);
    return found;
  } finally {
    if (!opts.stateDir) await Deno.remove(stateDir, { recursive: true }).catch(() => {});
  }
}

/**
 * Decompiles `addresses` of `binary`, `budgetS` seconds at most per function; returns one result
 * per address (in the given order) and the seconds the first open took.
 */
export async function decompileAll(
  binary: string,
  addresses: readonly string[],
  opts: {
    budgetS?: number;
    openBudgetS?: number;
    stateDir?: string;
    onProgress?: (done: number) => void;
    /**
     * The child script to run (default: this checkout's decompile_child.ts); another checkout's
     * measures that version of the decompiler on the same functions (before/after).
     */
    child?: string;
  } = {},
): Promise<{ results: Decompiled[]; openSeconds: number }> {
  const budget = (opts.budgetS ?? 60) * 1000;
  const openBudget = (opts.openBudgetS ?? 900) * 1000;
  const stateDir = opts.stateDir ?? await Deno.makeTempDir({ prefix: "remcp_decompile_" });
  const byAddress = new Map<string, Decompiled>();
  let openSeconds = -1;
  try {
    let pending = [...addresses];
    while (pending.length > 0) {
      const listFile = `${stateDir}/addresses.json`;
      await Deno.writeTextFile(listFile, JSON.stringify(pending));
      const child = spawnChild(binary, stateDir, listFile, opts.child);
      const stderr = new Response(child.stderr).text();
      const lines = new LineReader(child.stdout);
      lines.deadline = Date.now() + openBudget;
      let current: string | undefined;
      let hung = false;
      for (let line = await lines.next(); line !== undefined; line = await lines.next()) {
        if (line === "timeout") {
          hung = true;
          kill(child);
          break;
        }
        if (line.trim() === "") continue;
        const msg = JSON.parse(line) as ChildLine;
        if (msg.ready !== undefined) {
          if (!msg.ready) throw new Error(`cannot open ${binary}: ${msg.error}`);
          if (openSeconds < 0) openSeconds = msg.seconds ?? 0;
        } else if (msg.started && msg.address !== undefined) {
          current = msg.address;
        } else if (msg.address !== undefined) {
          current = undefined;
          byAddress.set(msg.address, {
            address: msg.address,
            ok: msg.ok === true,
            ms: msg.ms ?? 0,
            ...(msg.cpu_ms !== undefined ? { cpuMs: msg.cpu_ms } : {}),
            ...(msg.disasm_ms !== undefined ? { disasmMs: msg.disasm_ms } : {}),
            ...(msg.instructions !== undefined ? { instructions: msg.instructions } : {}),
            ...(msg.result ? { result: msg.result } : {}),
            ...(msg.error_type !== undefined ? { errorType: String(msg.error_type) } : {}),
            ...(msg.error !== undefined ? { error: String(msg.error) } : {}),
          });
          opts.onProgress?.(byAddress.size);
        }
        lines.deadline = Date.now() + budget;
      }
      const status = await child.status;
      const err = (await stderr).trim().split("\n").slice(-3).join(" ");
      if (current === undefined) {
        if (hung) throw new Error(`${binary}: not open within ${openBudget / 1000} s`);
        if (!status.success && byAddress.size === 0) {
          throw new Error(`${binary}: the engine process failed: ${err}`);
        }
      } else {
        byAddress.set(current, {
          address: current,
          ok: false,
          ms: hung ? budget : 0,
          errorType: hung ? "Hang" : "Died",
          error: hung
            ? `no answer within ${budget / 1000} s; the engine process was killed`
            : `the engine process died (exit ${status.code}): ${err}`,
        });
      }
      const before = pending.length;
      pending = pending.filter((a) => !byAddress.has(a));
      if (pending.length === before) {
        throw new Error(`${binary}: the engine process ended without progress: ${err}`);
      }
    }
  } finally {
    if (!opts.stateDir) await Deno.remove(stateDir, { recursive: true }).catch(() => {});
  }
  return {
    results: addresses.map((a) => byAddress.get(a)!),
    openSeconds: Math.max(0, openSeconds),
  };
}
