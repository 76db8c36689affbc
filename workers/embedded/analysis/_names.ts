/**
 * Generated names in the style reverse engineers know from IDA: `aHelloWorld` for strings
 * (`sub_`/`loc_`/`j_` prefixes are built where the addresses are known).
 */

const MAX_STRING_NAME = 32;

/** The `aCamelCase` name of a string's text, `a` alone when it has no letters or digits. */
export function stringName(text: string): string {
  let out = "a";
  for (const word of text.split(/[^A-Za-z0-9]+/)) {
    if (word === "") continue;
    out += word[0]!.toUpperCase() + word.slice(1);
    if (out.length >= MAX_STRING_NAME) break;
  }
  return out.slice(0, MAX_STRING_NAME);
}
