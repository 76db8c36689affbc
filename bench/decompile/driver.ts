/**
 * Generates the C driver that runs each original corpus function and its recompiled decompilation
 * (`dec_NAME`) on the same random inputs. Each function runs in a forked child with a per-call
 * alarm, so a crash or a hang of the recompiled code marks that function only. The driver prints
 * one line per function: `RESULT name ok|diff|crash|timeout detail`.
 *
 * Before testing, the driver maps the analysed binary's loadable segments at their addresses, so
 * decompiled code that reads a constant table or a string by absolute address finds it.
 */
import { type CType, cType, type Scalar, type Signature } from "./signatures.ts";

/** Elements per pointer argument, plus slack that functions never touch but may compare. */
const ELEMS = 64;
const SLACK = 16;

/** Bytes of one element. */
function sizeOf(s: Scalar): number {
  switch (s) {
    case "int8_t":
    case "uint8_t":
    case "bool":
    case "char":
      return 1;
    case "int16_t":
    case "uint16_t":
      return 2;
    case "int32_t":
    case "uint32_t":
    case "float":
      return 4;
    default:
      return 8;
  }
}

/** The `gen_*` call giving a random value for a scalar parameter (see corpus/corpus.h). */
function scalarGen(s: Scalar, name: string): string {
  const range = (lo: number, hi: number) => `(${s})gen_range(rng, ${lo}, ${hi})`;
  if (s === "double") return "gen_double(rng)";
  if (s === "float") return "(float)gen_double(rng)";
  if (s === "bool") return "(bool)(next(rng) & 1)";
  if (["n", "len", "count", "m"].includes(name)) return range(0, ELEMS);
  if (name === "dim") return range(0, 8);
  if (["i", "j", "k", "idx", "pos"].includes(name)) return range(0, ELEMS - 1);
  if (name === "sh" || name === "bit") return range(0, 31);
  if (name === "sh64") return range(0, 63);
  if (name === "depth") return range(0, 18);
  if (name === "ch") return range(0, 127);
  const bits = sizeOf(s) * 8;
  return `(${s})gen_int(rng, ${bits}, ${s.startsWith("int") ? 1 : 0})`;
}

function retCompare(ret: CType, ptrParams: number[]): string[] {
  switch (ret.kind) {
    case "void":
      return [];
    case "scalar":
      if (ret.scalar === "double" || ret.scalar === "float") {
        return [
          "if (!(ro != ro && rd != rd) && memcmp(&ro, &rd, sizeof ro) != 0) {",
          '  printf("DETAIL trial %d: returned %.17g, expected %.17g\\n", t, (double)rd, ' +
          "(double)ro);",
          "  return 1;",
          "}",
        ];
      }
      return [
        "if (ro != rd) {",
        '  printf("DETAIL trial %d: returned %lld, expected %lld\\n", t, (long long)rd, ' +
        "(long long)ro);",
        "  return 1;",
        "}",
      ];
    case "pointer": {
      // A pointer result is compared as "which buffer, which offset"; outside every buffer, as
      // the string it points to (for char) or as the address.
      const lines = ["long po = -1, pd = -1; int bo = -1, bd = -1;"];
      for (const i of ptrParams) {
        lines.push(
          `if ((const char *)ro >= (const char *)o${i} && (const char *)ro <= (const char *)o${i} + sizeof o${i}) { bo = ${i}; po = (const char *)ro - (const char *)o${i}; }`,
          `if ((const char *)rd >= (const char *)d${i} && (const char *)rd <= (const char *)d${i} + sizeof d${i}) { bd = ${i}; pd = (const char *)rd - (const char *)d${i}; }`,
        );
      }
      const outside = ret.to === "char"
        ? "(ro == 0) != (rd == 0) || (ro != 0 && strcmp((const char *)ro, (const char *)rd) != 0)"
        : "ro != rd";
      lines.push(
        `if (bo != bd || po != pd || (bo < 0 && (${outside}))) {`,
        '  printf("DETAIL trial %d: returned pointer (buffer %d, offset %ld), expected (buffer %d, offset %ld)\\n", t, bd, pd, bo, po);',
        "  return 1;",
        "}",
      );
      return lines;
    }
  }
}

/** The test function of one corpus function. */
function testFunction(sig: Signature, trials: number): string {
  const body: string[] = [];
  const args: string[] = [];
  const ptrParams: number[] = [];
  const strings: number[] = [];
  sig.params.forEach((p, i) => {
    if (p.type.kind === "pointer") {
      const bytes = (ELEMS + SLACK) * sizeOf(p.type.to);
      ptrParams.push(i);
      body.push(`static _Alignas(16) unsigned char o${i}[${bytes}], d${i}[${bytes}];`);
      if (p.type.to === "char") {
        strings.push(i);
        body.push(
          `gen_string(rng, (char *)o${i}, sizeof o${i}, ${
            strings.length > 1 ? `(const char *)o${strings[0]}` : "0"
          });`,
        );
      } else {
        body.push(`gen_bytes(rng, o${i}, sizeof o${i});`);
      }
      body.push(`memcpy(d${i}, o${i}, sizeof o${i});`);
      args.push(`(${cType(p.type)})BUF${i}`);
    } else if (p.type.kind === "scalar") {
      body.push(`${p.type.scalar} a${i} = ${scalarGen(p.type.scalar, p.name)};`);
      args.push(`a${i}`);
    }
  });
  const call = (prefix: string, buf: string) =>
    `${prefix}${sig.name}(${args.map((a) => a.replace(/BUF(\d+)/, `${buf}$1`)).join(", ")})`;
  const r = sig.ret.kind === "void" ? "" : `${cType(sig.ret)} `;
  body.push(
    "alarm(CALL_SECONDS);",
    sig.ret.kind === "void" ? `${call("", "o")};` : `${r}ro = ${call("", "o")};`,
    sig.ret.kind === "void" ? `${call("dec_", "d")};` : `${r}rd = ${call("dec_", "d")};`,
    "alarm(0);",
    ...retCompare(sig.ret, ptrParams),
  );
  for (const i of ptrParams) {
    body.push(
      `if (memcmp(o${i}, d${i}, sizeof o${i}) != 0) {`,
      `  printf("DETAIL trial %d: buffer argument ${
        i + 1
      } differs at byte %d\\n", t, first_diff(o${i}, d${i}, sizeof o${i}));`,
      "  return 1;",
      "}",
    );
  }
  return [
    `static int test_${sig.name}(void) {`,
    `  uint64_t state = seed_of("${sig.name}"); uint64_t *rng = &state;`,
    `  for (int t = 0; t < ${trials}; t++) {`,
    ...body.map((l) => `    ${l}`),
    "  }",
    "  return 0;",
    "}",
  ].join("\n");
}

/** Declaration of the original and of the recompiled function. */
function declarations(sig: Signature): string {
  const params = sig.params.length === 0
    ? "void"
    : sig.params.map((p) => `${cType(p.type)}${p.type.kind === "pointer" ? "" : " "}${p.name}`)
      .join(", ");
  const ret = cType(sig.ret);
  return `${ret} ${sig.name}(${params});\n${ret} dec_${sig.name}(${params});`;
}

const PRELUDE = String.raw`#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define CALL_SECONDS 3

static uint64_t next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static uint64_t seed_of(const char *name) {
  uint64_t h = 1469598103934665603ull;
  while (*name) h = (h ^ (unsigned char)*name++) * 1099511628211ull;
  return h;
}
static int64_t gen_range(uint64_t *rng, int64_t lo, int64_t hi) {
  return lo + (int64_t)(next(rng) % (uint64_t)(hi - lo + 1));
}
/* Whole-range integers, edge values a quarter of the time. */
static uint64_t gen_int(uint64_t *rng, int bits, int is_signed) {
  uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
  uint64_t smin = 1ull << (bits - 1);
  uint64_t r = next(rng);
  switch (r % 16) {
    case 0: return 0;
    case 1: return 1;
    case 2: return mask; /* -1 or max */
    case 3: return is_signed ? smin : mask - 1;
    case 4: return is_signed ? smin - 1 : 2;
    case 5: return (next(rng) % 33) & mask;
    case 6: return (0 - (next(rng) % 33)) & mask;
    case 7: return (next(rng) % 1000) & mask;
    default: {
      uint64_t v = next(rng) & mask;
      if (is_signed && bits < 64 && (v & smin)) v |= ~mask; /* sign-extend */
      return v;
    }
  }
}
static double gen_double(uint64_t *rng) {
  static const double edge[] = {0.0, -0.0, 1.0, -1.0, 0.5, 1e9, -1e9, 3.25, 1e300, -2.5};
  uint64_t r = next(rng);
  if (r % 4 == 0) return edge[(r >> 8) % 10];
  return ((double)(int64_t)next(rng) / 9.2e18) * (double)(1ull << (r % 40));
}
static void gen_bytes(uint64_t *rng, unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++) p[i] = (unsigned char)next(rng);
}
/* A NUL-terminated string of at most 40 characters; with a first string given, often a variant of it. */
static void gen_string(uint64_t *rng, char *p, size_t n, const char *like) {
  static const char alphabet[] = "aabcdeiouxyzABCZ  0123456789-+.,\t()_";
  gen_bytes(rng, (unsigned char *)p, n);
  size_t len = next(rng) % 41;
  if (like != 0 && next(rng) % 2 == 0) {
    size_t l = strlen(like);
    memcpy(p, like, l + 1);
    uint64_t r = next(rng) % 4;
    if (r == 1 && l > 0) p[next(rng) % l] = alphabet[next(rng) % (sizeof alphabet - 1)];
    if (r == 2 && l > 0) p[next(rng) % l] = 0;
    return;
  }
  for (size_t i = 0; i < len; i++) p[i] = alphabet[next(rng) % (sizeof alphabet - 1)];
  p[len] = 0;
}
static int first_diff(const unsigned char *a, const unsigned char *b, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (a[i] != b[i]) return (int)i;
  return -1;
}
/* Maps the analysed binary's PT_LOAD segments at their addresses (it is linked away from ours). */
static void map_binary(const char *path) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) { perror(path); return; }
  ElfW(Ehdr) eh;
  if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh) { close(fd); return; }
  for (int i = 0; i < eh.e_phnum; i++) {
    ElfW(Phdr) ph;
    if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + (uint64_t)i * eh.e_phentsize)) != (ssize_t)sizeof ph) break;
    if (ph.p_type != PT_LOAD) continue;
    uint64_t page = ph.p_vaddr & ~4095ull;
    uint64_t size = ((ph.p_vaddr + ph.p_memsz + 4095) & ~4095ull) - page;
    void *m = mmap((void *)(uintptr_t)page, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (m == MAP_FAILED) { fprintf(stderr, "cannot map segment at 0x%llx\n", (unsigned long long)page); continue; }
    if (pread(fd, (void *)ph.p_vaddr, ph.p_filesz, (off_t)ph.p_offset) < 0) perror("pread");
  }
  close(fd);
}
static void run(const char *name, int (*test)(void)) {
  fflush(stdout);
  int fds[2];
  if (pipe(fds) != 0) { perror("pipe"); exit(2); }
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    dup2(fds[1], 1);
    int r = test();
    fflush(stdout);
    _exit(r);
  }
  close(fds[1]);
  char detail[512] = "";
  ssize_t got = read(fds[0], detail, sizeof detail - 1);
  detail[got > 0 ? got : 0] = 0;
  char *nl = strchr(detail, '\n');
  if (nl) *nl = 0;
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  const char *what = "ok";
  if (WIFSIGNALED(status)) what = WTERMSIG(status) == SIGALRM ? "timeout" : "crash";
  else if (WEXITSTATUS(status) != 0) what = "diff";
  if (WIFSIGNALED(status) && detail[0] == 0) snprintf(detail, sizeof detail, "signal %d", WTERMSIG(status));
  printf("RESULT %s %s %s\n", name, what, detail);
}
`;

/** The driver's C source: tests for `sigs` (each with a linked `dec_NAME`), `trials` each. */
export function generateDriver(sigs: readonly Signature[], trials: number): string {
  const parts = [PRELUDE];
  for (const s of sigs) parts.push(declarations(s));
  for (const s of sigs) parts.push(testFunction(s, trials));
  parts.push(
    "int main(int argc, char **argv) {",
    "  if (argc > 1) map_binary(argv[1]);",
    "  setvbuf(stdout, 0, _IOLBF, 0);",
    ...sigs.map((s) => `  run("${s.name}", test_${s.name});`),
    "  return 0;",
    "}",
  );
  return parts.join("\n\n") + "\n";
}

/** One function's outcome from the driver's output. */
export interface RunResult {
  status: "ok" | "diff" | "crash" | "timeout";
  detail: string;
}

/** Parses the driver's `RESULT` lines. */
export function parseDriverOutput(stdout: string): Map<string, RunResult> {
  const out = new Map<string, RunResult>();
  for (const line of stdout.split("\n")) {
    const m = /^RESULT (\w+) (ok|diff|crash|timeout) ?(.*)$/.exec(line);
    if (m) {
      out.set(m[1]!, {
        status: m[2] as RunResult["status"],
        detail: m[3]!.replace(/^DETAIL /, ""),
      });
    }
  }
  return out;
}
