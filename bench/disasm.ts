/**
 * Disassembly throughput: the embedded x86-64 decoder (iced-x86, WASM) without and with text
 * over the whole `.text` of a large system binary, against native `objdump -d` on the same
 * range; Capstone AArch64 for reference; and a full text listing of `/bin/ls`.
 *
 * Run: `deno run -A bench/disasm.ts [x86-64 ELF file] [AArch64 ELF file]`
 */

import { createDecoder, type Decoder } from "../workers/embedded/arch/decoder.ts";

interface TextSection {
  file: string;
  address: number;
  offset: number;
  size: number;
}

/** `.text` of an ELF file, from its section headers. */
function elfText(file: string): TextSection {
  const data = Deno.readFileSync(file);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (view.getUint32(0) !== 0x7f454c46) throw new Error(`${file} is not an ELF file`);
  const is64 = data[4] === 2;
  const le = data[5] === 1;
  const u16 = (at: number) => view.getUint16(at, le);
  const u32 = (at: number) => view.getUint32(at, le);
  const word = (at: number) => is64 ? Number(view.getBigUint64(at, le)) : u32(at);
  const shoff = word(is64 ? 0x28 : 0x20);
  const shentsize = u16(is64 ? 0x3a : 0x2e);
  const shnum = u16(is64 ? 0x3c : 0x30);
  const shstrndx = u16(is64 ? 0x3e : 0x32);
  const header = (i: number) => shoff + i * shentsize;
  const strtab = word(header(shstrndx) + (is64 ? 0x18 : 0x10));
  for (let i = 0; i < shnum; i++) {
    const h = header(i);
    let end = strtab + u32(h);
    while (data[end] !== 0) end++;
    const name = new TextDecoder().decode(data.subarray(strtab + u32(h), end));
    if (name !== ".text") continue;
    return {
      file,
      address: word(h + (is64 ? 0x10 : 0x0c)),
      offset: word(h + (is64 ? 0x18 : 0x10)),
      size: word(h + (is64 ? 0x20 : 0x14)),
    };
  }
  throw new Error(`${file} has no .text section`);
}

function readRange(text: TextSection): Uint8Array {
  const file = Deno.openSync(text.file);
  try {
    const bytes = new Uint8Array(text.size);
    file.seekSync(text.offset, Deno.SeekMode.Start);
    let done = 0;
    while (done < bytes.length) {
      const n = file.readSync(bytes.subarray(done));
      if (n === null) break;
      done += n;
    }
    return bytes;
  } finally {
    file.close();
  }
}

/**
 * Linear sweep over `bytes` in `chunk`-byte calls, as analysis decodes (a function or block at a
 * time; the result objects of a whole 60 MB section would not fit in memory). Each call resumes
 * after the last instruction of the previous one.
 */
function sweep(
  decoder: Decoder,
  bytes: Uint8Array,
  address: number,
  text: boolean,
  chunk = 1 << 16,
): number {
  let pos = 0;
  let count = 0;
  while (pos < bytes.length) {
    const insns = decoder.decode(bytes.subarray(pos, pos + chunk), address + pos, { text });
    const last = insns[insns.length - 1];
    if (!last) break;
    count += insns.length;
    pos = last.address + last.size - address;
  }
  return count;
}

async function objdump(text: TextSection): Promise<{ count: number; seconds: number }> {
  const start = performance.now();
  const command = new Deno.Command("sh", {
    args: [
      "-c",
      `objdump -d --no-show-raw-insn --start-address=${text.address} ` +
      `--stop-address=${text.address + text.size} "$1" | grep -c '^ *[0-9a-f]*:\t'`,
      "sh",
      text.file,
    ],
    stdout: "piped",
    stderr: "inherit",
  });
  const output = await command.output();
  const seconds = (performance.now() - start) / 1000;
  return { count: Number(new TextDecoder().decode(output.stdout).trim()), seconds };
}

function largestX86Binary(): string {
  const candidates: string[] = [];
  const add = (dir: string, match: (name: string) => boolean) => {
    try {
      for (const entry of Deno.readDirSync(dir)) {
        if (match(entry.name)) candidates.push(`${dir}/${entry.name}`);
      }
    } catch {
      // a missing folder has no candidates
    }
  };
  add("/usr/bin", () => true);
  add("/usr/lib/x86_64-linux-gnu", (name) => name.startsWith("libLLVM") && name.includes(".so"));
  let best = "/bin/ls";
  let bestSize = 0;
  for (const path of candidates) {
    try {
      const info = Deno.statSync(path);
      if (!info.isFile || info.size <= bestSize) continue;
      const head = new Uint8Array(20);
      const file = Deno.openSync(path);
      file.readSync(head);
      file.close();
      // ELF, 64-bit, little-endian, e_machine 62 (x86-64).
      if (head[0] !== 0x7f || head[1] !== 0x45 || head[4] !== 2 || head[18] !== 62) continue;
      best = path;
      bestSize = info.size;
    } catch {
      // unreadable: skip
    }
  }
  return best;
}

function rate(count: number, seconds: number): string {
  return `${(count / seconds / 1e6).toFixed(2)} M insn/s`;
}

function row(cells: string[]): string {
  return cells.map((cell, i) => i === 0 ? cell.padEnd(38) : cell.padStart(16)).join(" ");
}

async function main(): Promise<void> {
  const x86File = Deno.args[0] ?? largestX86Binary();
  const a64File = Deno.args[1] ?? "/usr/aarch64-linux-gnu/lib/libc.so.6";
  const text = elfText(x86File);
  const bytes = readRange(text);
  console.log(`x86-64: ${x86File} .text 0x${text.address.toString(16)} ${bytes.length} bytes`);

  let t = performance.now();
  const decoder = await createDecoder("x86_64");
  const loadMs = performance.now() - t;

  sweep(decoder, bytes.subarray(0, 1 << 20), text.address, false); // warm up the JIT
  t = performance.now();
  const fastCount = sweep(decoder, bytes, text.address, false);
  const fastSeconds = (performance.now() - t) / 1000;

  t = performance.now();
  const bigCount = sweep(decoder, bytes, text.address, false, 1 << 20);
  const bigSeconds = (performance.now() - t) / 1000;

  t = performance.now();
  const textCount = sweep(decoder, bytes, text.address, true);
  const textSeconds = (performance.now() - t) / 1000;

  const native = await objdump(text);
  const objdumpRate = native.count / native.seconds;

  console.log();
  console.log(row(["engine", "instructions", "seconds", "rate", "vs objdump"]));
  const line = (name: string, count: number, seconds: number) =>
    console.log(row([
      name,
      String(count),
      seconds.toFixed(2),
      rate(count, seconds),
      `${(count / seconds / objdumpRate).toFixed(2)}x`,
    ]));
  line("iced-x86 wasm, decode (64 KiB calls)", fastCount, fastSeconds);
  line("iced-x86 wasm, decode (1 MiB calls)", bigCount, bigSeconds);
  line("iced-x86 wasm, decode + text", textCount, textSeconds);
  line("objdump -d --no-show-raw-insn", native.count, native.seconds);
  const diff = fastCount - native.count;
  console.log(
    `instruction count: ours ${fastCount}, objdump ${native.count} ` +
      `(difference ${diff}, ${(100 * diff / native.count).toFixed(3)}%: objdump restarts at ` +
      `every symbol, so padding and data between functions decode differently)`,
  );
  console.log(`iced-x86 module load: ${loadMs.toFixed(1)} ms`);
  decoder.dispose();

  try {
    const a64 = elfText(a64File);
    const a64Bytes = readRange(a64);
    t = performance.now();
    const arm = await createDecoder("aarch64");
    const armLoadMs = performance.now() - t;
    sweep(arm, a64Bytes.subarray(0, 1 << 18), a64.address, false);
    t = performance.now();
    const armCount = sweep(arm, a64Bytes, a64.address, false);
    const armSeconds = (performance.now() - t) / 1000;
    t = performance.now();
    const armTextCount = sweep(arm, a64Bytes, a64.address, true);
    const armTextSeconds = (performance.now() - t) / 1000;
    arm.dispose();
    console.log();
    console.log(
      `AArch64: ${a64File} .text ${a64Bytes.length} bytes (Capstone load ${
        armLoadMs.toFixed(1)
      } ms)`,
    );
    console.log(
      row([
        "capstone wasm aarch64, decode",
        String(armCount),
        armSeconds.toFixed(2),
        rate(armCount, armSeconds),
        "",
      ]),
    );
    console.log(
      row([
        "capstone wasm aarch64, + text",
        String(armTextCount),
        armTextSeconds.toFixed(2),
        rate(armTextCount, armTextSeconds),
        "",
      ]),
    );
  } catch (error) {
    console.log(`\nAArch64 skipped: ${error instanceof Error ? error.message : String(error)}`);
  }

  const ls = elfText("/bin/ls");
  const lsBytes = readRange(ls);
  t = performance.now();
  const lsDecoder = await createDecoder("x86_64");
  const listing = lsDecoder.decode(lsBytes, ls.address, { text: true });
  const lsMs = performance.now() - t;
  lsDecoder.dispose();
  console.log();
  console.log(
    `full listing of /bin/ls .text (${lsBytes.length} bytes, ${listing.length} insns, with text, ` +
      `including module load): ${lsMs.toFixed(0)} ms`,
  );
}

if (import.meta.main) await main();
