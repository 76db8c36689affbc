/**
 * Rizin handlers for raw commands (`command`, `command_json`), present only with
 * `--allow-scripts`. Every line is checked by {@link checkRawCommand} first: no shell, no host
 * files, no plugin loading; and rizin's stdout is our pipe, so nothing reaches the MCP stdout.
 */
import { RemcpError } from "../../../src/errors.ts";
import { command, commandJson } from "../../../src/protocol/catalog/scripts.ts";
import { impl, type ToolImpl } from "../../backend.ts";
import type { DbAccess } from "../db.ts";
import { checkRawCommand } from "../quote.ts";
import type { CmdResult } from "../session.ts";
import { withRizin } from "./_common.ts";

// rizin reports many failures only as a logged error with empty output.
function refuseFailed(command: string, r: CmdResult): void {
  if (!r.failed) return;
  throw new RemcpError(
    "InvalidArgument",
    `rizin failed to run "${command}": ${r.errors.join("; ")}`,
    {
      command,
      messages: r.errors,
    },
  );
}

/** The script tools over `db`. */
export function scriptTools(db: DbAccess): ToolImpl[] {
  return [
    impl(command, (args) => {
      checkRawCommand(args.command);
      return withRizin(db, async (c) => {
        const r = await c.run(args.command, args.timeout_s ? args.timeout_s * 1000 : undefined);
        refuseFailed(args.command, r);
        return { output: r.output, messages: [...r.errors, ...r.notes] };
      });
    }),
    impl(commandJson, (args) => {
      checkRawCommand(args.command);
      return withRizin(db, async (c) => {
        const r = await c.run(args.command, args.timeout_s ? args.timeout_s * 1000 : undefined);
        refuseFailed(args.command, r);
        const messages = [...r.errors, ...r.notes];
        const text = r.output.trim();
        try {
          return { value: text === "" ? null : JSON.parse(text), messages };
        } catch {
          throw new RemcpError(
            "InvalidArgument",
            `"${args.command}" did not print JSON: use a j variant or the command tool` +
              (messages.length ? `; rizin said: ${messages.slice(0, 3).join("; ")}` : ""),
            { output: text.slice(0, 500), messages },
          );
        }
      });
    }),
  ];
}
