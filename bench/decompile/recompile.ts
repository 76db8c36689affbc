/**
 * Turns one decompiled function into a C file that links against the original corpus objects,
 * compiles it with gcc, and links the differential driver, dropping the functions whose
 * recompiled code does not link (an intrinsic with no C definition, a missing global).
 */
import { fileURLToPath } from "node:url";
import { sh } from "./build.ts";
import { cType, type Signature } from "./signatures.ts";

/** The header every recompiled file includes. */
export const DECOMP_HEADER = fileURLToPath(new URL("./remcp_decomp.h", import.meta.url));

/** Recompile flags: C with the machine's wrapping and aliasing, tolerant of loose types. */
export const RECOMPILE_FLAGS = [
  "-std=gnu11",
  "-O0",
  "-w",
  "-fwrapv",
  "-fno-strict-aliasing",
  "-fno-pie",
  "-Wno-error=implicit-function-declaration",
  "-Wno-error=int-conversion",
  "-Wno-error=incompatible-pointer-types",
];

/**
 * The C file for `self`'s decompiled `code`: the function renamed `dec_NAME`, calls to other
 * corpus functions (by their database name `sub_HEX`) renamed to the originals and declared with
 * their real return types.
 */
export function prepareSource(
  code: string,
  self: Signature,
  selfAddress: number,
  byAddress: ReadonlyMap<number, Signature>,
): string {
  const called = new Set<Signature>();
  let text = code.replace(/\bsub_([0-9A-Fa-f]+)\b/g, (whole, hex: string) => {
    const a = parseInt(hex, 16);
    if (a === selfAddress) return `dec_${self.name}`;
    const s = byAddress.get(a);
    if (!s) return whole;
    called.add(s);
    return s.name;
  });
  if (!text.includes(`dec_${self.name}`)) {
    // The database may name the function otherwise (a user rename): rename the header's name.
    text = text.replace(/^([^\n(]*?)(\w+)\s*\(/, (_w, pre: string) => `${pre}dec_${self.name}(`);
  }
  const decls: string[] = [];
  for (const s of called) {
    // An unprototyped declaration gives the real return type and accepts the decompiler's
    // argument list; skipped when the code declares the function itself.
    const own = new RegExp(`^[^=;{}]*\\b${s.name}\\s*\\([^;{}]*\\)\\s*;`, "m");
    if (!own.test(text)) decls.push(`${cType(s.ret)} ${s.name}();`);
  }
  return [
    `/* ${self.name}: decompiled by remcp, prepared for recompilation */`,
    `#include "${DECOMP_HEADER}"`,
    ...decls,
    text,
    "",
  ].join("\n");
}

/**
 * Compiles prepared files `DIR/NAME.c` to `DIR/NAME.o`, many per gcc run (process start is most
 * of the cost); resolves to the first errors of each file that did not compile.
 */
export async function compileDecompiled(
  dir: string,
  names: readonly string[],
  opts: { batch?: number; jobs?: number; gcc?: string[] } = {},
): Promise<Map<string, string>> {
  const failed = new Map<string, string>();
  const batch = opts.batch ?? 40;
  const batches: string[][] = [];
  for (let i = 0; i < names.length; i += batch) batches.push(names.slice(i, i + batch));
  const worker = async () => {
    for (let b = batches.shift(); b; b = batches.shift()) {
      for (const n of b) await Deno.remove(`${dir}/${n}.o`).catch(() => {});
      const [gcc, ...pre] = opts.gcc ?? ["gcc"];
      const r = await sh(gcc!, [...pre, ...RECOMPILE_FLAGS, "-c", ...b.map((n) => `${n}.c`)], {
        cwd: dir,
        timeoutMs: 300_000,
      });
      const lines = r.out.split("\n");
      for (const n of b) {
        const exists = await Deno.stat(`${dir}/${n}.o`).then(() => true, () => false);
        if (exists) continue;
        const errors = lines.filter((l) => l.startsWith(`${n}.c:`) && /error:/.test(l))
          .slice(0, 3).map((l) => l.replace(/^[^:]*:\d+:\d+: (error: )?/, "")).join("; ");
        failed.set(n, errors || (r.ok ? "no object" : r.out.slice(0, 300)));
      }
    }
  };
  await Promise.all(Array.from({ length: opts.jobs ?? 2 }, worker));
  return failed;
}

/** Why some recompiled functions did not link, by function name. */
export type LinkFailures = Map<string, string>;

/**
 * Links `driverC` (generated for `names`) with the corpus objects and each name's recompiled
 * object. Objects that fail to link are dropped, with the reason, and the link is retried with a
 * driver regenerated for the rest.
 */
export async function linkDriver(
  dir: string,
  corpusObjects: readonly string[],
  decObjects: ReadonlyMap<string, string>,
  makeDriver: (names: readonly string[]) => string,
  gcc: readonly string[] = ["gcc"],
): Promise<{ exe: string | undefined; linked: string[]; failures: LinkFailures }> {
  const failures: LinkFailures = new Map();
  let names = [...decObjects.keys()];
  const exe = `${dir}/driver`;
  for (let round = 0; round < 20 && names.length > 0; round++) {
    const driverC = `${dir}/driver.c`;
    await Deno.writeTextFile(driverC, makeDriver(names));
    const objs = names.map((n) => decObjects.get(n)!);
    const r = await sh(gcc[0]!, [
      ...gcc.slice(1),
      "-O1",
      "-w",
      "-no-pie",
      "-o",
      exe,
      driverC,
      ...corpusObjects,
      ...objs,
      "-lm",
    ]);
    if (r.ok) return { exe, linked: names, failures };
    const bad = new Map<string, string>();
    const lines = r.out.split("\n");
    for (let i = 0; i < lines.length; i++) {
      for (const n of names) {
        const obj = decObjects.get(n)!;
        if (!lines[i]!.includes(obj) || bad.has(n)) continue;
        const why = lines.slice(i, i + 3).map((l) =>
          /(undefined reference to `[^']+'|multiple definition of `[^']+')/.exec(l)?.[1]
        ).find((x) => x !== undefined);
        bad.set(n, why ?? lines[i]!.slice(0, 200));
      }
    }
    if (bad.size === 0) throw new Error(`linking the driver failed:\n${r.out.slice(0, 2000)}`);
    for (const [n, why] of bad) failures.set(n, `link: ${why}`);
    names = names.filter((n) => !bad.has(n));
  }
  return { exe: undefined, linked: [], failures };
}
