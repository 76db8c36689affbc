/**
 * Replaying remcp's stored annotations into a fresh rizin: names become function names (`afn`)
 * or flags (`f`), comments go through `CCu base64:` so no character can reach rizin's parser,
 * prototypes through `afs`. Bookmarks live only in remcp's store.
 */
import type { Logger } from "../../src/log.ts";
import type { AnnotationStore } from "../shared/store/store.ts";
import { addr, quoteArg } from "./quote.ts";
import type { Conn } from "./session.ts";

/** base64 of a string's UTF-8 bytes. */
export function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

/**
 * Applies a name in rizin: the function's name when a function starts there, else a flag. With
 * null, the user's flag `old` is removed and a function gets rizin's default name back.
 */
export async function applyName(
  c: Conn,
  address: number,
  name: string | null,
  old?: string,
): Promise<void> {
  const fns = await c.json<unknown[]>(`afij @ ${addr(address)}`, []);
  const isFn = fns.some((f) =>
    typeof f === "object" && f !== null && (f as { offset?: number }).offset === address
  );
  if (name === null) {
    if (isFn) {
      await c.run(
        `afn ${quoteArg(`fcn.${address.toString(16).padStart(8, "0")}`)} @ ${addr(address)}`,
      );
    } else if (old) await c.run(`f- ${quoteArg(old)}`);
    return;
  }
  if (isFn) await c.must(`afn ${quoteArg(name, "name")} @ ${addr(address)}`, "InvalidArgument");
  else await c.must(`f ${quoteArg(name, "name")} @ ${addr(address)}`, "InvalidArgument");
}

/** Sets (or with null, removes) the comment at an address in rizin. */
export async function applyComment(c: Conn, address: number, text: string | null): Promise<void> {
  if (text === null) await c.run(`CC- @ ${addr(address)}`);
  else await c.must(`CCu base64:${base64(text)} @ ${addr(address)}`, "InvalidArgument");
}

/** Replays every stored annotation; failures are logged, never fatal. */
export async function replayAnnotations(
  c: Conn,
  store: AnnotationStore,
  log: Logger,
): Promise<void> {
  let failed = 0;
  const attempt = async (f: () => Promise<unknown>) => {
    try {
      await f();
    } catch (err) {
      failed++;
      log.debug(`replay: ${(err as Error).message}`);
    }
  };
  for (const [a, name] of store.all("name")) await attempt(() => applyName(c, a, name));
  for (const [a, text] of store.all("comment")) await attempt(() => applyComment(c, a, text));
  for (const [a, proto] of store.all("prototype")) {
    await attempt(() => c.must(`afs ${quoteArg(proto, "prototype")} @ ${addr(a)}`));
  }
  if (failed) log.warn(`${failed} stored annotations could not be replayed into rizin`);
}
