/** Embedded handlers: rename_local and set_local_type over the decompiler's variables. */
import { RemcpError } from "../../../src/errors.ts";
import * as spec from "../../../src/protocol/catalog/annotations.ts";
import { hex } from "../../../src/protocol/paging.ts";
import { impl, type ToolImpl } from "../../backend.ts";
import { type DbAccess, type EmbeddedDb, fnName, functionContaining } from "../db.ts";
import { decompiled, DecompilerCache, renderFor } from "../decompiler/service.ts";
import { localAnnotations, storedLocals } from "../decompiler/locals.ts";
import type { LocalAnnotation, Rendered } from "../decompiler/render.ts";

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const C_TYPE =
  /^(const |volatile |unsigned |signed |struct |union |enum )*[A-Za-z_][A-Za-z0-9_]*( (long|int|char|double))*( ?\*+)*( const)?$/;

/** The function at `address`, its variables as printed now, and its stored annotations. */
async function variablesOf(d: EmbeddedDb, address: string | number, variable: string) {
  const fn = functionContaining(d, address);
  d.decompiler ??= new DecompilerCache();
  const dec = await decompiled(d, fn, d.decompiler);
  const locals = localAnnotations(d, fn.start);
  const rendered: Rendered = renderFor(d, fn, dec, locals);
  const v = rendered.variables.find((x) => x.name === variable) ??
    rendered.variables.find((x) => x.default === variable);
  if (!v) {
    const names = rendered.variables.map((x) => x.name);
    throw new RemcpError(
      "NotFound",
      `${fnName(d, fn)} has no variable ${variable}` +
        (names.length > 0 ? `; its variables: ${names.slice(0, 40).join(", ")}` : "") +
        " (decompile_function shows them)",
      { function: hex(fn.start), variable },
    );
  }
  return { fn, v, locals, rendered };
}

function update(
  locals: Map<string, LocalAnnotation>,
  key: string,
  change: (e: LocalAnnotation) => void,
): Map<string, LocalAnnotation> {
  const next = new Map(locals);
  const entry = { ...(next.get(key) ?? {}) };
  change(entry);
  if (entry.name === undefined && entry.type === undefined) next.delete(key);
  else next.set(key, entry);
  return next;
}

/** The local-variable tools over `db`. */
export function localTools(db: DbAccess): ToolImpl[] {
  return [
    impl(spec.renameLocal, async (args) => {
      const d = db();
      const { fn, v, locals, rendered } = await variablesOf(d, args.function, args.variable);
      const name = args.name.trim();
      if (name !== "") {
        if (!IDENTIFIER.test(name)) {
          throw new RemcpError(
            "InvalidArgument",
            `"${name}" is not a C identifier: use letters, digits and _, not starting with a digit`,
            { param: "name" },
          );
        }
        const clash = rendered.variables.find((x) => x.name === name && x.default !== v.default);
        if (clash || name === fnName(d, fn)) {
          throw new RemcpError(
            "InvalidArgument",
            `${fnName(d, fn)} already has a ${name}: choose another name`,
            { param: "name" },
          );
        }
      }
      const next = update(locals, v.default, (e) => {
        if (name === "") delete e.name;
        else e.name = name;
      });
      d.store.set("local", fn.start, storedLocals(next));
      return {
        function: hex(fn.start),
        variable: v.default,
        old_name: v.name,
        new_name: name === "" ? v.default : name,
      };
    }),
    impl(spec.setLocalType, async (args) => {
      const d = db();
      const { fn, v, locals } = await variablesOf(d, args.function, args.variable);
      const type = args.type.trim().replace(/\s+/g, " ");
      if (type !== "" && !C_TYPE.test(type)) {
        throw new RemcpError(
          "InvalidArgument",
          `"${type}" is not a C type remcp can declare: write e.g. "int32_t", "char *" or ` +
            `"struct req *"`,
          { param: "type" },
        );
      }
      const next = update(locals, v.default, (e) => {
        if (type === "") delete e.type;
        else e.type = type;
      });
      d.store.set("local", fn.start, storedLocals(next));
      const after = renderFor(d, fn, d.decompiler!.get(fn.start)!, next).variables
        .find((x) => x.default === v.default);
      return {
        function: hex(fn.start),
        variable: v.default,
        old_type: v.type,
        new_type: after?.type ?? type,
      };
    }),
  ];
}
