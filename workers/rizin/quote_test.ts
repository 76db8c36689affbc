import assert from "node:assert/strict";
import { RemcpError } from "../../src/errors.ts";
import { addr, checkRawCommand, quoteArg } from "./quote.ts";

const refused = (f: () => unknown, re?: RegExp) =>
  assert.throws(
    f,
    (e: unknown) =>
      e instanceof RemcpError && e.code === "InvalidArgument" && (!re || re.test(e.message)),
  );

Deno.test("quoteArg wraps in double quotes and escapes what stays special inside them", () => {
  assert.equal(quoteArg("main"), '"main"');
  assert.equal(quoteArg('a"b'), '"a\\"b"');
  assert.equal(quoteArg("a\\b"), '"a\\\\b"');
  assert.equal(quoteArg("$(id)"), '"\\$(id)"');
  assert.equal(quoteArg("`id`"), '"\\`id\\`"');
  // Command separators are inert inside quotes and are left as they are.
  assert.equal(quoteArg("x; !id | cat > f @ 0"), '"x; !id | cat > f @ 0"');
});

Deno.test("quoteArg refuses line breaks and NULs, which would start another command", () => {
  refused(() => quoteArg("a\nb", "name"), /name/);
  refused(() => quoteArg("a\rb"));
  refused(() => quoteArg("a\0b"));
});

Deno.test("addr prints 0x hex and rejects non-addresses", () => {
  assert.equal(addr(0x401000), "0x401000");
  assert.throws(() => addr(-1), RangeError);
  assert.throws(() => addr(1.5), RangeError);
});

Deno.test("checkRawCommand accepts ordinary rizin commands", () => {
  for (
    const ok of [
      "afl",
      "pdf @ main",
      "afl~fib",
      "pd 10 @ sym.main; afi",
      'CCu "a | b > c"',
      "sleep 1",
    ]
  ) {
    checkRawCommand(ok);
  }
});

Deno.test("checkRawCommand refuses shell escapes, pipes, redirects and substitutions", () => {
  refused(() => checkRawCommand("!id"), /shell/);
  refused(() => checkRawCommand("  !id"), /shell/);
  refused(() => checkRawCommand("afl; !id"), /shell/);
  refused(() => checkRawCommand(".!id"), /shell/);
  refused(() => checkRawCommand("#!pipe id"));
  refused(() => checkRawCommand("afl | sh"), /pipe/);
  refused(() => checkRawCommand("afl > /tmp/x"), /redirect/);
  refused(() => checkRawCommand("?e `!id`"), /substitution/);
  refused(() => checkRawCommand('?e "$(!id)"'), /substitution/);
  refused(() => checkRawCommand("afl\n!id"), /line break/);
  refused(() => checkRawCommand("L /tmp/evil.so"), /plugins/);
  refused(() => checkRawCommand("e cmd.prompt=!id"), /hook/);
  refused(() => checkRawCommand("o /etc/passwd"), /host files/);
  refused(() => checkRawCommand("wtf /tmp/x 10"), /host files/);
  refused(() => checkRawCommand("q"), /quit/);
  refused(() => checkRawCommand('afl "unterminated'), /quote/);
  refused(() => checkRawCommand("   "), /empty/);
});
