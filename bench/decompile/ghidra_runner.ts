/**
 * The reference for the side-by-side columns: Ghidra's decompiler, run through its stand-alone
 * console (`decomp_opt`, built from Ghidra's sources by whoever runs the benchmark; nothing here
 * builds or ships it). One console process per binary; each function is `load addr`, `decompile`,
 * `print C`, timed from the first command to the prompt after the last.
 *
 *   --ghidra /path/to/decomp_opt   with SLEIGHHOME (or --sleigh-home) pointing at a folder with
 *                                  Ghidra/Processors/x86/data/languages/x86-64.sla in it
 */
import type { Decompiled } from "./engine_runner.ts";
import type { Answer } from "./side_by_side.ts";

const PROMPT = "[decomp]> ";

/** A console process and a way to run one command to its next prompt. */
class Console {
  #child: Deno.ChildProcess;
  #reader: ReadableStreamDefaultReader<string>;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #buf = "";
  constructor(decomp: string, sleighHome: string) {
    this.#child = new Deno.Command(decomp, {
      env: { SLEIGHHOME: sleighHome },
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    this.#reader = this.#child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    this.#writer = this.#child.stdin.getWriter();
  }
  /** Output up to the next prompt; undefined when the process ended or `ms` passed. */
  async untilPrompt(ms: number): Promise<string | undefined> {
    const deadline = Date.now() + ms;
    while (!this.#buf.includes(PROMPT)) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<"late">((r) => {
        timer = setTimeout(() => r("late"), Math.max(0, deadline - Date.now()));
      });
      const got = await Promise.race([this.#reader.read(), late]);
      clearTimeout(timer);
      if (got === "late" || got.done) return undefined;
      this.#buf += got.value;
    }
    const i = this.#buf.indexOf(PROMPT);
    const out = this.#buf.slice(0, i);
    this.#buf = this.#buf.slice(i + PROMPT.length);
    return out;
  }
  async run(command: string, ms: number): Promise<string | undefined> {
    await this.#writer.write(new TextEncoder().encode(command + "\n"));
    return await this.untilPrompt(ms);
  }
  /**
   * CPU milliseconds the console has used so far (Linux: the scheduler's nanosecond count of
   * its one thread), or undefined where /proc does not say.
   */
  cpuMs(): number | undefined {
    try {
      const ns = Number(Deno.readTextFileSync(`/proc/${this.#child.pid}/schedstat`).split(" ")[0]);
      return Number.isFinite(ns) ? ns / 1e6 : undefined;
    } catch {
      return undefined;
    }
  }
  async close(): Promise<void> {
    try {
      this.#child.kill("SIGKILL");
    } catch {
      // Already gone.
    }
    await this.#child.status;
  }
}

/** Decompiles `addresses` of `binary` with Ghidra's console decompiler. */
export async function ghidraDecompileAll(
  decomp: string,
  sleighHome: string,
  binary: string,
  addresses: readonly string[],
  budgetS = 60,
): Promise<Decompiled[]> {
  const out: Decompiled[] = [];
  let con: Console | undefined;
  const open = async () => {
    const c = new Console(decomp, sleighHome);
    if ((await c.untilPrompt(60_000)) === undefined) throw new Error(`${decomp} did not start`);
    const loaded = await c.run(`load file ${binary}`, 120_000);
    if (loaded === undefined || !/successfully loaded/.test(loaded)) {
      await c.close();
      throw new Error(`Ghidra's console cannot load ${binary}: ${loaded}`);
    }
    return c;
  };
  try {
    for (const address of addresses) {
      con ??= await open();
      const t0 = performance.now();
      const cpu0 = con.cpuMs();
      let text: string | undefined = "";
      for (const cmd of [`load addr ${address}`, "decompile", "print C"]) {
        text = await con.run(cmd, budgetS * 1000);
        if (text === undefined) break;
      }
      const ms = performance.now() - t0;
      const cpu1 = con.cpuMs();
      const cpu = cpu0 !== undefined && cpu1 !== undefined ? { cpuMs: cpu1 - cpu0 } : {};
      if (text === undefined) {
        out.push({ address, ok: false, ms, errorType: "Hang", error: "no answer in budget" });
        await con.close();
        con = undefined;
      } else if (!/\{/.test(text)) {
        out.push({ address, ok: false, ms, errorType: "Error", error: text.trim().slice(0, 200) });
      } else {
        // The console echoes the command before its output: not part of the C.
        const code = text.replace(/^\s*print C\s*\n/, "");
        out.push({ address, ok: true, ms, ...cpu, result: { code } });
      }
    }
  } finally {
    await con?.close();
  }
  return out;
}

/** A console result as a side-by-side answer: its C, or none when it failed. */
export function ghidraAnswer(d: Decompiled): Answer {
  return {
    ms: d.ms,
    ...(d.cpuMs !== undefined ? { cpuMs: d.cpuMs } : {}),
    code: d.ok ? String(d.result?.code ?? "") : undefined,
  };
}
