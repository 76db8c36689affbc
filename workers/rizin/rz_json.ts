/**
 * Zod schemas for the rizin JSON remcp reads, checked once where it enters. Loose on purpose:
 * fields differ between Rizin 0.7 and later, so every field a version may lack is optional and
 * unknown fields pass through.
 */
import { z } from "zod";

const num = z.number();
const opt = <T extends z.ZodType>(t: T) => t.optional().nullable();

export const RzInfo = z.object({
  core: z.object({ format: opt(z.string()), size: opt(num), type: opt(z.string()) }).partial(),
  bin: opt(
    z.object({
      arch: opt(z.string()),
      bits: opt(num),
      endian: opt(z.string()),
      baddr: opt(num),
      bintype: opt(z.string()),
      class: opt(z.string()),
      os: opt(z.string()),
      machine: opt(z.string()),
      intrp: opt(z.string()),
      lang: opt(z.string()),
      compiler: opt(z.string()),
      stripped: opt(z.boolean()),
      static: opt(z.boolean()),
      pic: opt(z.boolean()),
      canary: opt(z.boolean()),
      nx: opt(z.boolean()),
      crypto: opt(z.boolean()),
      dbg_file: opt(z.string()),
      guid: opt(z.string()),
      subsys: opt(z.string()),
      rpath: opt(z.string()),
    }).loose(),
  ),
}).loose();

export const RzSection = z.object({
  name: z.string().default(""),
  size: num.default(0),
  vsize: num.default(0),
  perm: z.string().default("----"),
  paddr: num.default(0),
  vaddr: num.default(0),
  type: opt(z.string()),
}).loose();

export const RzEntry = z.object({
  vaddr: num,
  paddr: opt(num),
  type: opt(z.string()),
}).loose();

export const RzSymbol = z.object({
  name: z.string().default(""),
  realname: opt(z.string()),
  flagname: opt(z.string()),
  demname: opt(z.string()),
  ordinal: opt(num),
  bind: opt(z.string()),
  type: opt(z.string()),
  size: opt(num),
  vaddr: opt(num),
  paddr: opt(num),
  is_imported: opt(z.boolean()),
}).loose();

export const RzImport = z.object({
  name: z.string(),
  libname: opt(z.string()),
  ordinal: opt(num),
  type: opt(z.string()),
  bind: opt(z.string()),
  plt: opt(num),
}).loose();

export const RzReloc = z.object({
  name: opt(z.string()),
  vaddr: opt(num),
  type: opt(z.string()),
  is_ifunc: opt(z.boolean()),
}).loose();

export const RzString = z.object({
  vaddr: num,
  paddr: opt(num),
  length: opt(num),
  size: opt(num),
  section: opt(z.string()),
  type: opt(z.string()),
  string: z.string(),
}).loose();

export const RzRef = z.object({
  from: num,
  to: num,
  type: opt(z.string()),
}).loose();

export const RzFunction = z.object({
  offset: num,
  name: z.string(),
  size: opt(num),
  realsz: opt(num),
  noreturn: opt(z.boolean()),
  cc: opt(num),
  type: opt(z.string()),
  nbbs: opt(num),
  ninstrs: opt(num),
  edges: opt(num),
  signature: opt(z.string()),
  minbound: opt(num),
  maxbound: opt(num),
  callrefs: opt(z.array(RzRef)),
  datarefs: opt(z.array(RzRef)),
  codexrefs: opt(z.array(RzRef)),
  dataxrefs: opt(z.array(RzRef)),
}).loose();

export const RzSwitchCase = z.object({
  addr: opt(num),
  jump: num,
  value: opt(num),
}).loose();

export const RzBlock = z.object({
  addr: num,
  size: num,
  jump: opt(num),
  fail: opt(num),
  ninstr: opt(num),
  switch_op: opt(z.object({ cases: opt(z.array(RzSwitchCase)) }).loose()),
}).loose();

export const RzOp = z.object({
  offset: num,
  size: opt(num),
  opcode: opt(z.string()),
  disasm: opt(z.string()),
  bytes: opt(z.string()),
  type: opt(z.string()),
  jump: opt(num),
  fail: opt(num),
  ptr: opt(num),
  val: opt(num),
  refptr: opt(z.union([num, z.boolean()])),
  fcn_addr: opt(num),
  comment: opt(z.string()),
  flags: opt(z.array(z.string())),
  refs: opt(z.array(RzRef)),
}).loose();

export const RzXref = z.object({
  from: num,
  to: opt(num),
  type: opt(z.string()),
  opcode: opt(z.string()),
  fcn_addr: opt(num),
  fcn_name: opt(z.string()),
  refname: opt(z.string()),
  name: opt(z.string()),
}).loose();

export const RzFlag = z.object({
  name: z.string(),
  realname: opt(z.string()),
  size: opt(num),
  offset: num,
}).loose();

export const RzMap = z.object({
  from: num,
  to: num,
  perm: opt(z.string()),
  name: opt(z.string()),
}).loose();

export const RzSearchHit = z.object({
  offset: num,
  type: opt(z.string()),
  data: opt(z.string()),
}).loose();

/** Parses rizin JSON against `schema`, or throws Internal naming the command. */
export function parseRz<T extends z.ZodType>(
  schema: T,
  value: unknown,
  command: string,
): z.output<T> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  throw new Error(
    `rizin's "${command}" answered in an unexpected shape (${issue?.path.join(".")}: ` +
      `${issue?.message})`,
  );
}
