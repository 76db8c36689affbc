/** A cross-reference and its kinds: a leaf that types.ts and xref_table.ts both use. */

/**
 * What a reference does: code `call`/`jump`; data `read`/`write`; `offset` takes an address
 * (lea, adrp+add, a pointer in data); `string` is an `offset` or `read` whose target is a string.
 */
export type XrefKind = "call" | "jump" | "read" | "write" | "offset" | "string";

/** One cross-reference from an instruction (or a data word) to an address. */
export interface Xref {
  from: number;
  to: number;
  kind: XrefKind;
}
