/**
 * Typed access to a WebAssembly instance's exports. A WASM export's signature cannot be read at
 * run time beyond its arity, so each function is checked to exist with the declared number of
 * parameters, and the typed view is asserted once here instead of at every call site.
 */

import { RemcpError } from "../../../src/errors.ts";

/** Any WASM-exported function; the bound interfaces give the precise signatures. */
export type WasmFunction = (...args: never[]) => unknown;

/** Arity of every function in `T`. */
export type Arities<T> = { readonly [K in keyof T]: number };

/**
 * Returns `exports` viewed as `T` after checking that every key of `arities` is an exported
 * function taking that many parameters.
 */
export function bindExports<T extends { [K in keyof T]: WasmFunction }>(
  exports: WebAssembly.Exports,
  arities: Arities<T>,
  engine: string,
): T {
  const bound: Record<string, WasmFunction> = {};
  for (const [name, arity] of Object.entries(arities)) {
    const value = exports[name];
    if (typeof value !== "function" || value.length !== arity) {
      throw new RemcpError("Internal", `Cannot load ${engine}: export ${name} is missing`, {
        engine,
        export: name,
        arity,
      });
    }
    bound[name] = value as WasmFunction;
  }
  return bound as unknown as T;
}

/** The instance's exported memory, named `name`. */
export function exportedMemory(
  exports: WebAssembly.Exports,
  name: string,
  engine: string,
): WebAssembly.Memory {
  const memory = exports[name];
  if (!(memory instanceof WebAssembly.Memory)) {
    throw new RemcpError("Internal", `Cannot load ${engine}: no exported memory`, { engine });
  }
  return memory;
}
