/**
 * Address expressions (docs/ARCHITECTURE.md). Every address parameter accepts, in this order: `0x…` hex;
 * all-digit decimal; a symbol or function name; `name+0x10` / `.text+0x20` / `name-8`
 * expressions; bare hex as a last resort (so `add`, `dead`, `cafe` resolve as names when such
 * names exist).
 */
import { RemcpError } from "../errors.ts";
import { hex } from "./paging.ts";

/** What an address parser needs from a database: name lookup and near-miss suggestions. */
export interface NameResolver {
  /** The address a name (symbol, function, section, label) stands for, if any. */
  lookup(name: string): number | undefined;
  /** Names close to `name`, for the error message. */
  suggest?(name: string): string[];
}

const HEX = /^0x[0-9a-f]+$/i;
const DEC = /^[0-9]+$/;
const BARE_HEX = /^[0-9a-f]+$/i;
// A term followed by +/- offsets; the offsets are numbers, the base may be any name.
const EXPR = /^(.+?)\s*([+-])\s*(0x[0-9a-f]+|[0-9]+)$/i;

function parseNumber(text: string): number | undefined {
  let value: number;
  if (HEX.test(text)) value = Number.parseInt(text.slice(2), 16);
  else if (DEC.test(text)) value = Number.parseInt(text, 10);
  else return undefined;
  return Number.isSafeInteger(value) ? value : undefined;
}

/**
 * Resolves an address expression to a number. Numbers pass through. Unknown names are
 * `InvalidAddress` with suggestions.
 */
export function parseAddress(input: string | number, names: NameResolver): number {
  if (typeof input === "number") {
    if (!Number.isSafeInteger(input) || input < 0) {
      throw new RemcpError("InvalidAddress", `Address ${input} is not a non-negative integer`, {
        address: input,
      });
    }
    return input;
  }
  const text = input.trim();
  if (text === "") throw new RemcpError("InvalidAddress", "Address is empty", {});
  const asNumber = parseNumber(text);
  if (asNumber !== undefined) return asNumber;
  if (HEX.test(text) || DEC.test(text)) {
    throw new RemcpError("InvalidAddress", `Address ${text} is too large for remcp (≥ 2^53)`, {
      address: text,
    });
  }
  const named = names.lookup(text);
  if (named !== undefined) return named;
  const expr = resolveExpression(text, names);
  if (expr !== undefined) return expr;
  if (BARE_HEX.test(text)) {
    const value = Number.parseInt(text, 16);
    if (Number.isSafeInteger(value)) return value;
  }
  const suggestions = names.suggest?.(text) ?? [];
  const hint = suggestions.length > 0
    ? `; did you mean ${suggestions.slice(0, 5).join(", ")}?`
    : "; use 0x hex, a decimal number, or a name from list_names/list_functions";
  throw new RemcpError("InvalidAddress", `Cannot parse address "${text}": no such name${hint}`, {
    address: text,
    suggestions: suggestions.slice(0, 5),
  });
}

function resolveExpression(text: string, names: NameResolver): number | undefined {
  const m = EXPR.exec(text);
  if (!m) return undefined;
  const [, baseText, sign, offsetText] = m;
  if (baseText === undefined || offsetText === undefined) return undefined;
  const offset = parseNumber(offsetText);
  if (offset === undefined) return undefined;
  const base = parseNumber(baseText) ?? names.lookup(baseText) ??
    resolveExpression(baseText, names);
  if (base === undefined) return undefined;
  const value = sign === "+" ? base + offset : base - offset;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RemcpError("InvalidAddress", `Address expression "${text}" is out of range`, {
      address: text,
      value: hex(value),
    });
  }
  return value;
}

/** Names that share a prefix or substring with `name`, for suggestions. */
export function nearNames(name: string, candidates: Iterable<string>, max = 5): string[] {
  const lower = name.toLowerCase();
  const out: string[] = [];
  for (const c of candidates) {
    const cl = c.toLowerCase();
    if (cl.includes(lower) || (lower.length >= 3 && lower.includes(cl) && cl.length >= 3)) {
      out.push(c);
      if (out.length >= max) break;
    }
  }
  return out;
}
