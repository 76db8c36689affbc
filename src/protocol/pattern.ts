/**
 * User-supplied patterns (`filter`, `pattern`): compiled by RE2, whose matching time is linear in
 * the text whatever the pattern. JavaScript's own engine backtracks, and a pattern like
 * `(a|a)+$` would freeze the single thread that runs it — the supervisor for `search_tools`, a
 * database's worker for a listing — where neither a timeout nor a cancel can stop it.
 */
import { RE2JS } from "re2js";
import { RemcpError } from "../errors.ts";

/** A compiled user pattern: case-insensitive, matched anywhere in the text. */
export interface Pattern {
  test(text: string): boolean;
}

/** Longest pattern accepted, in characters. */
export const MAX_PATTERN_LENGTH = 500;

// The constructs RE2 leaves out because they cannot be matched in linear time.
const BACKTRACKING_ONLY: readonly { re: RegExp; what: string }[] = [
  { re: /\\[1-9]|\\k</, what: "backreferences (\\1, \\k<name>)" },
  { re: /\(\?<?[=!]/, what: "lookaround ((?=…), (?!…), (?<=…), (?<!…))" },
];

/**
 * Compiles a user pattern with RE2 semantics, case-insensitive. Empty means no pattern. Invalid
 * syntax and the constructs RE2 lacks are `InvalidArgument` naming `param`.
 */
export function compileFilter(pattern: string | undefined, param = "filter"): Pattern | undefined {
  if (pattern === undefined || pattern === "") return undefined;
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw new RemcpError(
      "InvalidArgument",
      `${param} is longer than ${MAX_PATTERN_LENGTH} characters`,
      { param },
    );
  }
  try {
    return RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE);
  } catch (err) {
    const unsupported = BACKTRACKING_ONLY.find((c) => c.re.test(pattern));
    if (unsupported) {
      throw new RemcpError(
        "InvalidArgument",
        `${param} uses ${unsupported.what}, which patterns here do not support: ` +
          "they run on RE2 so that matching takes linear time; rewrite it without them",
        { param },
      );
    }
    throw new RemcpError(
      "InvalidArgument",
      `${param} is not a valid regular expression (RE2 syntax): ${
        err instanceof Error ? err.message : String(err)
      }`,
      { param },
    );
  }
}
