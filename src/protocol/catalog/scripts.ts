/** Specs: raw engine commands, behind `--allow-scripts`. */
import { z } from "zod";
import { CommonOutput } from "../params.ts";
import { defineTool, OPEN_WORLD } from "./spec.ts";

const CommandInput = z.strictObject({
  command: z.string().min(1).max(4096).describe(
    'One engine command line (rizin: e.g. "afl~main", "pdf @ main")',
  ),
  timeout_s: z.number().int().min(1).max(3600).optional().describe(
    "Seconds before the engine is killed and restarted (default: the backend's command timeout)",
  ),
});

export const command = defineTool({
  name: "command",
  description: "Run one raw engine command (rizin backend) and return its text output plus " +
    "the engine's log messages. Escape hatch for what no other tool covers.\n" +
    "Refused: shell escapes (!), pipes (|), redirects (>), command substitution, plugin " +
    "loading, opening/writing host files, quitting. A command that times out kills and " +
    "restarts the engine. Needs --allow-scripts.",
  input: CommandInput,
  output: z.object({
    output: z.string(),
    messages: z.array(z.string()).describe("What the engine logged while the command ran"),
    ...CommonOutput,
  }),
  annotations: OPEN_WORLD,
  tags: ["scripts", "engine"],
  capability: "scripts",
});

export const commandJson = defineTool({
  name: "command_json",
  description: "Run one raw engine command that prints JSON (rizin: the `j` variants, e.g. " +
    '"aflj", "pdj 5 @ main") and return the parsed value as `value`. Same refusals and ' +
    "timeout as command. Needs --allow-scripts.",
  input: CommandInput,
  output: z.object({
    value: z.unknown(),
    messages: z.array(z.string()),
    ...CommonOutput,
  }),
  annotations: OPEN_WORLD,
  tags: ["scripts", "engine"],
  capability: "scripts",
});
