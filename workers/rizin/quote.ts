/**
 * Building rizin command lines from user input. Every user-supplied argument goes through
 * {@link quoteArg}: inside rizin's double quotes only `"`, `\`, `$` and the backtick stay special,
 * and each is escaped. Raw commands (the `command` tool) go through {@link checkRawCommand}.
 */
import { RemcpError } from "../../src/errors.ts";

/** Characters that never appear in a quoted argument: they would end the command line. */
const LINE_BREAKERS = /[\n\r\0]/;

/** Quotes `value` as one rizin argument; refuses line breaks and NULs. */
export function quoteArg(value: string, param = "argument"): string {
  if (LINE_BREAKERS.test(value)) {
    throw new RemcpError(
      "InvalidArgument",
      `${param} contains a line break or NUL, which rizin would read as another command: ` +
        `remove it`,
      { param },
    );
  }
  return `"${value.replace(/["\\$`]/g, (c) => `\\${c}`)}"`;
}

/** Hex for a rizin address argument (`0x…`; never a name, so nothing is evaluated). */
export function addr(value: number): string {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`Not an address: ${value}`);
  }
  return "0x" + value.toString(16);
}

/**
 * Command heads the `command` tool refuses: they run host programs (`!`, `.!`, `#!`), load native
 * code (`L`), write or open host files (`wt…`, `P…` projects, `o file`), reach the network or the
 * io system() (`=…`), or set hooks and paths that make later commands do any of that (`e cmd.*`,
 * `e dir.*`, …). `command` is an escape hatch into the database, not into the machine.
 */
const DENIED_HEADS: readonly { re: RegExp; why: string }[] = [
  { re: /^!/, why: "runs a host shell command" },
  { re: /^\.!/, why: "runs a host shell command" },
  { re: /^#!/, why: "runs a script interpreter" },
  { re: /^=/, why: "talks to remote servers or the io system()" },
  { re: /^L/, why: "loads native plugins" },
  { re: /^(wt|wf|P[a-z]?\b|o\+|oo\+|o\s|on\s)/, why: "writes or opens host files" },
  { re: /^e[\s?]*\b(cmd|dir|http|file|scr\.pager|cfg\.editor|dbg)\./, why: "sets a hook or path" },
  { re: /^(%|env)\b/, why: "changes the environment" },
  { re: /^(q|quit|exit)\b/, why: "would quit rizin" },
];

/**
 * Checks a raw rizin command line for the `command` tool: one line; no output redirection
 * (`>`), shell pipes (`|`), command substitution (backticks, `$(…)`) or `@@` iteration (it has no
 * bound); and no command head from the denied list, in any `;`-separated part. Quoted text is not
 * inspected for heads.
 */
export function checkRawCommand(line: string): void {
  const refuse = (why: string) => {
    throw new RemcpError("InvalidArgument", `command refused: ${why}`, {
      param: "command",
    });
  };
  if (line.trim() === "") refuse("it is empty");
  if (LINE_BREAKERS.test(line)) refuse("it has a line break or NUL; send one command per call");
  const heads: string[] = [];
  let quote: '"' | "'" | undefined;
  let start = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === "\\" && quote === '"') i++;
      else if (c === quote) quote = undefined;
      else if (quote === '"' && (c === "`" || (c === "$" && line[i + 1] === "("))) {
        refuse("command substitution runs another command");
      }
      continue;
    }
    if (c === "\\") {
      i++;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === "|") refuse("`|` pipes output into a host command");
    else if (c === ">") refuse("`>` redirects output into a host file");
    else if (c === "`" || (c === "$" && line[i + 1] === "(")) {
      refuse("command substitution runs another command");
    } else if (c === ";") {
      heads.push(line.slice(start, i));
      start = i + 1;
    } else if (c === "@" && line[i + 1] === "@") {
      refuse("`@@` iterates a command over many addresses; run them one per call");
    }
  }
  if (quote) refuse("it has an unterminated quote");
  heads.push(line.slice(start));
  for (const part of heads) {
    const head = part.trimStart().replace(/^\(\s*/, "");
    for (const d of DENIED_HEADS) {
      if (d.re.test(head)) refuse(`"${head.split(/\s/)[0]}" ${d.why}`);
    }
  }
}
