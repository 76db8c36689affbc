/**
 * Makes the signatures of {@link ./runtime_helpers.ts}: builds a small C file whose 64-bit
 * divisions the compiler turns into calls of libgcc's helpers, with `gcc -m32` (libgcc is linked
 * statically, so the helpers' code is in the binary), reads each helper's address and size from
 * the symbol table and prints the table's entries (size and SHA-256 of the helper's bytes).
 *
 *   deno run -A workers/embedded/decompiler/abi/runtime_helpers_make.ts [gcc]
 *
 * Needs gcc with `-m32` (`apt-get install lib32gcc-12-dev libc6-dev-i386`) and binutils' nm.
 * Paste the output into HELPERS of runtime_helpers.ts; a new libgcc gives new entries (keep the
 * old ones: binaries built with it are still around).
 */
import { createHash } from "node:crypto";

const SOURCE = `
#include <stdint.h>
uint64_t u_div(uint64_t x, uint64_t y) { return x / y; }
uint64_t u_mod(uint64_t x, uint64_t y) { return x % y; }
int64_t s_div(int64_t x, int64_t y) { return x / y; }
int64_t s_mod(int64_t x, int64_t y) { return x % y; }
void s_divmod(int64_t a, int64_t b, int64_t *q, int64_t *r) { *q = a / b; *r = a % b; }
void u_divmod(uint64_t a, uint64_t b, uint64_t *q, uint64_t *r) { *q = a / b; *r = a % b; }
int main(void) { return 0; }
`;

/** libgcc's helper names and the operation each one is. */
const OPS: Record<string, string> = {
  __udivdi3: "udiv",
  __umoddi3: "urem",
  __divdi3: "sdiv",
  __moddi3: "srem",
  __divmoddi4: "sdivmod",
  __udivmoddi4: "udivmod",
};

async function run(cmd: string, args: string[]): Promise<string> {
  const out = await new Deno.Command(cmd, { args, stdout: "piped", stderr: "piped" }).output();
  if (!out.success) {
    throw new Error(`${cmd} ${args.join(" ")} failed:\n${new TextDecoder().decode(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout);
}

/** File offset of virtual address `va` in the 32-bit ELF `file` (from its program headers). */
function fileOffset(file: Uint8Array, va: number): number {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const phoff = view.getUint32(0x1c, true);
  const phentsize = view.getUint16(0x2a, true);
  const phnum = view.getUint16(0x2c, true);
  for (let i = 0; i < phnum; i++) {
    const p = phoff + i * phentsize;
    if (view.getUint32(p, true) !== 1) continue; // PT_LOAD
    const offset = view.getUint32(p + 4, true);
    const vaddr = view.getUint32(p + 8, true);
    const filesz = view.getUint32(p + 16, true);
    if (va >= vaddr && va < vaddr + filesz) return offset + (va - vaddr);
  }
  throw new Error(`address 0x${va.toString(16)} is in no loaded segment`);
}

const gcc = Deno.args[0] ?? "gcc";
const dir = await Deno.makeTempDir({ prefix: "remcp-helpers-" });
try {
  await Deno.writeTextFile(`${dir}/d.c`, SOURCE);
  await run(gcc, ["-m32", "-O2", "-o", `${dir}/d`, `${dir}/d.c`]);
  const file = await Deno.readFile(`${dir}/d`);
  const version = (await run(gcc, ["-dumpfullversion"])).trim();
  for (const line of (await run("nm", ["-S", `${dir}/d`])).split("\n")) {
    const [addr, size, , name] = line.trim().split(/\s+/);
    const op = name === undefined ? undefined : OPS[name];
    if (!op || !addr || !size) continue;
    const start = fileOffset(file, parseInt(addr, 16));
    const bytes = file.subarray(start, start + parseInt(size, 16));
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    console.log(
      `  { name: "${name}", op: "${op}", size: ${bytes.length}, sha256: "${sha256}" }, ` +
        `// libgcc ${version}, -m32`,
    );
  }
} finally {
  await Deno.remove(dir, { recursive: true });
}
