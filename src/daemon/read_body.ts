/**
 * Reads a request body with a size cap and a deadline. A client that authenticates and then
 * sends its body a byte at a time would otherwise hold the request (and the daemon's idle clock)
 * open for as long as it likes.
 */

/** The body as text, or why it was not read. */
export type BodyRead =
  | { kind: "ok"; text: string }
  | { kind: "tooLarge" }
  | { kind: "slow" };

/** Reads `request`'s body: at most `maxBytes`, all of it within `deadlineMs`. */
export async function readBody(
  request: Request,
  maxBytes: number,
  deadlineMs: number,
): Promise<BodyRead> {
  if (request.body === null) return { kind: "ok", text: "" };
  const reader = request.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"slow">((resolve) => {
    timer = setTimeout(() => resolve("slow"), deadlineMs);
  });
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), late]);
      if (next === "slow") {
        void reader.cancel().catch(() => {});
        return { kind: "slow" };
      }
      if (next.done) break;
      size += next.value.length;
      if (size > maxBytes) {
        void reader.cancel().catch(() => {});
        return { kind: "tooLarge" };
      }
      parts.push(next.value);
    }
  } finally {
    clearTimeout(timer);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  return { kind: "ok", text: new TextDecoder().decode(all) };
}
