/**
 * Finding `main` where rizin did not (stripped PIE binaries, seen with Rizin 0.7 on Debian's
 * /bin/ls): when the entry point calls `__libc_start_main`, its first argument is main. The
 * function is then defined and named in rizin.
 */
import type { Logger } from "../../src/log.ts";
import type { StaticFacts } from "./model.ts";
import { addr } from "./quote.ts";
import type { Conn } from "./session.ts";
import { invalid, ops } from "./tools/code_tools.ts";

/** main's address, recovered and defined in rizin when needed; undefined when not found. */
export async function recoverMain(
  c: Conn,
  st: StaticFacts,
  log: Logger,
): Promise<number | undefined> {
  const known = await c.json<{ vaddr?: number }>("iMj", {}).catch(() => ({ vaddr: undefined }));
  let main = typeof known.vaddr === "number" && known.vaddr > 0 ? known.vaddr : undefined;
  let recovered = false;
  if (main === undefined) {
    main = await fromLibcStartMain(c, st);
    recovered = main !== undefined;
  }
  if (main === undefined) return undefined;
  const fns = await c.json<{ offset?: number }[]>(`afij @ ${addr(main)}`, []);
  if (!fns.some((f) => f.offset === main)) {
    await c.run(`af @ ${addr(main)}`);
    recovered = true;
  }
  if (recovered) {
    await c.run(`afn main @ ${addr(main)}`);
    log.info(`recovered main at ${addr(main)} from the entry point's __libc_start_main call`);
  }
  return main;
}

/** The first argument of the entry point's call to `__libc_start_main` (x86, x86-64, AArch64). */
export async function fromLibcStartMain(c: Conn, st: StaticFacts): Promise<number | undefined> {
  const entry = st.entries.find((e) => e.type === "program") ?? st.entries[0];
  if (!entry) return undefined;
  const slot = st.relocs.find((r) => r.name === "__libc_start_main")?.vaddr ?? undefined;
  const plt = st.imports.find((i) => i.name === "__libc_start_main")?.plt ?? undefined;
  const list = await ops(c, entry.vaddr, 48);
  const at = list.findIndex((op) =>
    /call/.test(op.type ?? "") &&
    ((op.disasm ?? "").includes("__libc_start_main") ||
      (slot !== undefined && op.ptr === slot) ||
      (plt !== undefined && op.jump === plt))
  );
  if (at <= 0) return undefined;
  let page: number | undefined;
  for (let i = at - 1; i >= 0 && i >= at - 16; i--) {
    const op = list[i]!;
    if (invalid(op)) break;
    const text = op.opcode ?? "";
    // x86-64: lea rdi, [rip + X] / mov rdi, imm. x86: the last push before the call.
    if (/^(lea|mov) (rdi|edi),/.test(text)) return op.ptr ?? op.val ?? undefined;
    if (/^push (0x[0-9a-f]+|\d+)$/.test(text)) return op.val ?? undefined;
    // AArch64: adrp x0, page; add x0, x0, off.
    const add = /^add x0, x0, (0x[0-9a-f]+|\d+)$/.exec(text);
    if (add) {
      const prev = list[i - 1];
      const adrp = prev && /^adrp x0, (0x[0-9a-f]+)$/.exec(prev.opcode ?? "");
      if (adrp) page = Number(adrp[1]);
      if (page !== undefined) return page + Number(add[1]);
    }
  }
  return undefined;
}
