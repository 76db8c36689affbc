import assert from "node:assert/strict";
import { scanStrings, stringAt } from "./strings.ts";
import { openFixture } from "./_test_fixtures.ts";

Deno.test("scanStrings() finds ASCII and UTF-16LE strings with their sections", () => {
  const image = openFixture("elf_x86_64_gcc_O2");
  const s = scanStrings(image);
  const hello = s.find((x) => x.text === "Hello, remcp!");
  assert.equal(hello?.section, ".rodata");
  assert.equal(hello?.encoding, "ascii");
  assert.ok(s.some((x) => x.encoding === "utf16le" && x.text === "wide string here"));
  assert.ok(!s.some((x) => x.section === ".dynstr"));
});

Deno.test("stringAt() reads a short string a scan would skip", () => {
  const image = openFixture("elf_x86_64_gcc_O2");
  const hello = scanStrings(image).find((x) => x.text === "Hello, remcp!")!;
  assert.equal(stringAt(image, hello.address + 7, 1)?.text, "remcp!");
});
