/**
 * The compilers the differential harness builds with, by label: `gcc` and `clang` for the host
 * (x86-64), `i386-gcc` and `i386-clang` for x86-32 (`-m32`: Debian's gcc-multilib libraries,
 * `apt-get install lib32gcc-12-dev libc6-dev-i386`; the programs run under `qemu-i386`, which
 * also works where the kernel runs no 32-bit code), `aarch64-gcc` and `aarch64-clang` for AArch64
 * with Debian's cross toolchain, whose programs run under qemu-user
 * (`qemu-aarch64 -L /usr/aarch64-linux-gnu`). Every build of one ISA recompiles the pseudo-C with
 * that ISA's gcc.
 */

/** One compiler label's commands. */
export interface Toolchain {
  label: string;
  /** The compiler command and its fixed leading arguments. */
  cc: string[];
  /**
   * The gcc that recompiles decompiled code and links the driver, for the same ISA: the command
   * and its fixed leading arguments.
   */
  gcc: string[];
  strip: string;
  /** The command that runs a program built by this toolchain. */
  run(exe: string, args: string[]): [string, string[]];
  /** The programs the toolchain needs beyond the compiler (qemu for a cross ISA). */
  needs: string[];
}

const AARCH64_SYSROOT = "/usr/aarch64-linux-gnu";

/** The toolchain of `label` (`gcc`, `clang`, `i386-gcc`, `i386-clang`, `aarch64-gcc`, `aarch64-clang`). */
export function toolchain(label: string): Toolchain {
  switch (label) {
    case "gcc":
    case "clang":
      return { label, cc: [label], gcc: ["gcc"], strip: "strip", run: (e, a) => [e, a], needs: [] };
    case "i386-gcc":
    case "i386-clang":
      return {
        label,
        cc: [label === "i386-gcc" ? "gcc" : "clang", "-m32"],
        gcc: ["gcc", "-m32"],
        strip: "strip",
        run: (exe, args) => ["qemu-i386", [exe, ...args]],
        needs: ["qemu-i386"],
      };
    case "aarch64-gcc":
    case "aarch64-clang":
      return {
        label,
        cc: label === "aarch64-gcc"
          ? ["aarch64-linux-gnu-gcc"]
          : ["clang", "--target=aarch64-linux-gnu"],
        gcc: ["aarch64-linux-gnu-gcc"],
        strip: "aarch64-linux-gnu-strip",
        run: (exe, args) => ["qemu-aarch64", ["-L", AARCH64_SYSROOT, exe, ...args]],
        needs: ["aarch64-linux-gnu-gcc", "qemu-aarch64"],
      };
  }
  throw new RangeError(
    `Unknown compiler label ${label}: use gcc, clang, i386-gcc, i386-clang, aarch64-gcc or aarch64-clang`,
  );
}
