/** Prompts: ready-made workflows the client can offer its user. */

/** A prompt and its arguments. */
export interface PromptDef {
  name: string;
  description: string;
  arguments: { name: string; description: string; required: boolean }[];
  template: (args: Record<string, string>) => string;
}

/** Every prompt remcp serves. */
export const PROMPTS: PromptDef[] = [
  {
    name: "survey_binary",
    description: "Open a binary and survey it: format, imports, strings, key functions",
    arguments: [{ name: "path", description: "File to analyse", required: true }],
    template: (a) =>
      `Open ${a.path} with open_database and wait_for_analysis. Then in one execute script ` +
      `collect get_database_info, the imports, the 50 most interesting strings and the 20 ` +
      `largest functions. Summarise what the program does, which libraries it uses, and which ` +
      `functions deserve a closer look, with their addresses.`,
  },
  {
    name: "analyze_function",
    description: "Explain one function: purpose, inputs, outputs, callees and strings",
    arguments: [
      { name: "function", description: "Function name or address", required: true },
      { name: "database", description: "Database id (if several are open)", required: false },
    ],
    template: (a) =>
      `Call function_summary for ${a.function}${a.database ? ` in ${a.database}` : ""}, then ` +
      `disassemble_function (or decompile_function where the backend has it). Explain what the ` +
      `function does, its arguments and return value, and the role of each callee and string. ` +
      `Propose a name and rename it with rename if you are confident.`,
  },
  {
    name: "find_crypto_constants",
    description: "Look for cryptographic constants and the functions that use them",
    arguments: [{ name: "database", description: "Database id", required: false }],
    template: () =>
      `Search for well-known cryptographic constants with search_bytes and search_immediate ` +
      `(AES S-box 63 7c 77 7b, SHA-256 K 0x428a2f98, MD5 0xd76aa478, CRC32 0xedb88320, ` +
      `ChaCha "expand 32-byte k"). For each hit, find the referencing functions with xrefs_to ` +
      `and report algorithm, address and function.`,
  },
  {
    name: "rename_from_strings",
    description: "Name unnamed functions after the strings they reference",
    arguments: [{ name: "database", description: "Database id", required: false }],
    template: () =>
      `In one execute script: list functions named sub_*, get each one's referenced strings ` +
      `with function_summary, and propose a descriptive snake_case name where the strings make ` +
      `the purpose clear. Show the proposals; apply them with rename after confirmation.`,
  },
];

/** The prompts/get result for `prompt` with `args`. */
export function renderPrompt(prompt: PromptDef, args: Record<string, string>) {
  return {
    description: prompt.description,
    messages: [{ role: "user", content: { type: "text", text: prompt.template(args) } }],
  };
}
