/**
 * Reads the corpus's self-describing function signatures (`CORPUS RET name(PARAMS) {` on one
 * line, see corpus/corpus.h) so that a driver can call each function with random inputs.
 */

/** A scalar C type the corpus uses. */
export type Scalar =
  | "int8_t"
  | "int16_t"
  | "int32_t"
  | "int64_t"
  | "uint8_t"
  | "uint16_t"
  | "uint32_t"
  | "uint64_t"
  | "bool"
  | "double"
  | "float"
  | "char";

/** A parameter or return type: a scalar, a pointer to one, or void (returns only). */
export type CType =
  | { kind: "scalar"; scalar: Scalar }
  | { kind: "pointer"; to: Scalar; isConst: boolean }
  | { kind: "void" };

/** One corpus function. */
export interface Signature {
  name: string;
  ret: CType;
  params: { type: CType; name: string }[];
  /** The corpus file that defines it, e.g. `arith.c`. */
  file: string;
}

const SCALARS = new Set<string>([
  "int8_t",
  "int16_t",
  "int32_t",
  "int64_t",
  "uint8_t",
  "uint16_t",
  "uint32_t",
  "uint64_t",
  "bool",
  "double",
  "float",
  "char",
]);

function isScalar(s: string): s is Scalar {
  return SCALARS.has(s);
}

/** Parses `const char *`, `uint32_t`, `void`; throws on anything else. */
export function parseType(text: string, where: string): CType {
  const t = text.trim().replace(/\s+/g, " ");
  if (t === "void") return { kind: "void" };
  const m = /^(const )?(\w+)( ?\*)?$/.exec(t);
  if (!m || !isScalar(m[2]!)) throw new Error(`${where}: unsupported type "${t}"`);
  if (m[3]) return { kind: "pointer", to: m[2]! as Scalar, isConst: m[1] !== undefined };
  if (m[2] === "char") throw new Error(`${where}: use int8_t, not char, for a scalar`);
  return { kind: "scalar", scalar: m[2]! as Scalar };
}

/** C spelling of a type. */
export function cType(t: CType): string {
  switch (t.kind) {
    case "void":
      return "void";
    case "scalar":
      return t.scalar;
    case "pointer":
      return `${t.isConst ? "const " : ""}${t.to} *`;
  }
}

/** The signatures defined in one corpus source file. */
export function parseSignatures(source: string, file: string): Signature[] {
  const out: Signature[] = [];
  const lines = source.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.startsWith("CORPUS ")) continue;
    const m = /^CORPUS (.+?)\b(\w+)\((.*?)\)\s*\{/.exec(line);
    if (!m) {
      if (/\)\s*;\s*$/.test(line)) continue; // a forward declaration
      throw new Error(`${file}:${i + 1}: cannot read the signature`);
    }
    const where = `${file}:${i + 1}`;
    const params = m[3]!.trim() === "void" || m[3]!.trim() === "" ? [] : m[3]!.split(",").map(
      (p) => {
        const pm = /^(.*?)\b(\w+)\s*$/.exec(p.trim());
        if (!pm) throw new Error(`${where}: cannot read parameter "${p}"`);
        return { type: parseType(pm[1]!, where), name: pm[2]! };
      },
    );
    out.push({ name: m[2]!, ret: parseType(m[1]!, where), params, file });
  }
  return out;
}

/** The corpus folder next to this module. */
export const CORPUS_DIR = new URL("./corpus/", import.meta.url);

/** Every signature of the corpus (or of the named files), in file then line order. */
export async function loadCorpus(files?: readonly string[]): Promise<Signature[]> {
  const names = files ?? [...Deno.readDirSync(CORPUS_DIR)].map((e) => e.name)
    .filter((n) => n.endsWith(".c")).sort();
  const out: Signature[] = [];
  for (const f of names) {
    out.push(...parseSignatures(await Deno.readTextFile(new URL(f, CORPUS_DIR)), f));
  }
  const seen = new Set<string>();
  for (const s of out) {
    if (seen.has(s.name)) throw new Error(`corpus function ${s.name} is defined twice`);
    seen.add(s.name);
  }
  return out;
}
