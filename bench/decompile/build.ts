/**
 * Builds the corpus with one compiler and level: objects (kept, the driver links the originals
 * from them), a linked binary with symbols (the truth: where each function starts) and its
 * stripped copy (what the decompiler sees).
 *
 * The binary is linked at 0x20000000, away from the driver (0x400000), so the driver can map it
 * at its own addresses and decompiled code reading tables or strings by address finds them.
 */
import { fileURLToPath } from "node:url";
import { parseElf } from "../../workers/embedded/formats/elf.ts";
import { CORPUS_DIR, type Signature } from "./signatures.ts";
import { toolchain } from "./toolchain.ts";

/** Where the corpus binary is linked. */
export const CORPUS_BASE = 0x20000000;

/** Flags of the corpus build besides the level: wrapping signed overflow (see corpus.h). */
export const CORPUS_FLAGS = ["-fwrapv", "-fno-pie", "-g0", "-w"];

/** One built configuration. */
export interface CorpusBuild {
  /** The compiler's label ({@link toolchain}). */
  cc: string;
  opt: string;
  dir: string;
  objects: string[];
  binary: string;
  stripped: string;
  /** Every corpus function in the binary. */
  sigs: readonly Signature[];
  /** Start address of each corpus function, from the unstripped symbols. */
  addresses: Map<string, number>;
}

/** Runs a command; resolves to its combined output and success. */
export async function sh(
  cmd: string,
  args: string[],
  opts: { cwd?: string; timeoutMs?: number } = {},
): Promise<{ ok: boolean; out: string }> {
  try {
    const out = await new Deno.Command(cmd, {
      args,
      stdout: "piped",
      stderr: "piped",
      stdin: "null",
      ...(opts.cwd ? { cwd: opts.cwd } : {}),
      ...(opts.timeoutMs ? { signal: AbortSignal.timeout(opts.timeoutMs) } : {}),
    }).output();
    const dec = new TextDecoder();
    return { ok: out.success, out: dec.decode(out.stdout) + dec.decode(out.stderr) };
  } catch (err) {
    return { ok: false, out: (err as Error).message };
  }
}

/**
 * True when the compiler of label `cc` runs (and, for a cross ISA, what runs its programs) and
 * its gcc links a program with the C and math libraries: a cross gcc installed without its C
 * library (Debian's libc6-dev-arm64-cross is only recommended) cannot build the drivers.
 */
export async function haveCompiler(cc: string): Promise<boolean> {
  const t = toolchain(cc);
  for (const cmd of [t.cc[0]!, t.gcc[0]!, ...t.needs]) {
    if (!(await sh(cmd, ["--version"])).ok) return false;
  }
  const dir = await Deno.makeTempDir({ prefix: "remcp-cc-" });
  try {
    await Deno.writeTextFile(`${dir}/t.c`, "int main(void) { return 0; }\n");
    const [gcc, ...pre] = t.gcc;
    return (await sh(gcc!, [...pre, "-o", `${dir}/t`, `${dir}/t.c`, "-lm"])).ok;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Compiles the corpus files that define `sigs` with compiler `cc` (a label) at `opt`. */
export async function compileCorpus(
  cc: string,
  opt: string,
  dir: string,
  sigs: readonly Signature[],
): Promise<string[]> {
  await Deno.mkdir(dir, { recursive: true });
  const corpus = fileURLToPath(CORPUS_DIR);
  const objects: string[] = [];
  for (const f of new Set(sigs.map((s) => s.file))) {
    const obj = `${dir}/${f.replace(/\.c$/, ".o")}`;
    const [cmd, ...pre] = toolchain(cc).cc;
    const r = await sh(cmd!, [...pre, opt, ...CORPUS_FLAGS, "-c", "-o", obj, `${corpus}/${f}`]);
    if (!r.ok) throw new Error(`${cc} ${opt} ${f} failed:\n${r.out}`);
    objects.push(obj);
  }
  return objects;
}

/** Compiles and links the corpus files of `sigs` with `cc` at `opt` into `dir`. */
export async function buildCorpus(
  cc: string,
  opt: string,
  dir: string,
  sigs: readonly Signature[],
): Promise<CorpusBuild> {
  const objects = await compileCorpus(cc, opt, dir, sigs);
  const main = `${dir}/corpus_main.c`;
  await Deno.writeTextFile(main, "int main(void) { return 0; }\n");
  const binary = `${dir}/corpus`;
  const t = toolchain(cc);
  const link = await sh(t.cc[0]!, [
    ...t.cc.slice(1),
    opt,
    ...CORPUS_FLAGS,
    "-no-pie",
    `-Wl,-Ttext-segment=0x${CORPUS_BASE.toString(16)}`,
    "-o",
    binary,
    main,
    ...objects,
    "-lm",
  ]);
  if (!link.ok) throw new Error(`linking the corpus with ${cc} failed:\n${link.out}`);
  const stripped = `${binary}.stripped`;
  const strip = await sh(t.strip, ["-o", stripped, binary]);
  if (!strip.ok) throw new Error(`strip failed:\n${strip.out}`);
  const addresses = symbolAddresses(await Deno.readFile(binary), sigs);
  return { cc, opt, dir, objects, binary, stripped, sigs, addresses };
}

/** Start of each corpus function in an unstripped binary. */
export function symbolAddresses(
  bytes: Uint8Array,
  sigs: readonly Signature[],
): Map<string, number> {
  const wanted = new Set(sigs.map((s) => s.name));
  const out = new Map<string, number>();
  for (const s of parseElf(bytes).symbols) {
    if (s.kind === "function" && wanted.has(s.name)) out.set(s.name, s.address);
  }
  return out;
}
