/** Per-machine ELF relocation type numbers the parser needs to recognise. */

import {
  EM_386,
  EM_AARCH64,
  EM_ARM,
  EM_MIPS,
  EM_PPC,
  EM_PPC64,
  EM_RISCV,
  EM_X86_64,
} from "./_elf_types.ts";

/** Relocation type numbers the parser treats specially; -1 when the machine has none. */
export interface RelocKinds {
  relative: number;
  irelative: number;
  /** PLT GOT-slot relocation; resolved through the PLT even for symbols defined locally. */
  jumpSlot: number;
}

const KINDS: Record<number, RelocKinds> = {
  [EM_X86_64]: { relative: 8, irelative: 37, jumpSlot: 7 },
  [EM_386]: { relative: 8, irelative: 42, jumpSlot: 7 },
  [EM_ARM]: { relative: 23, irelative: 160, jumpSlot: 22 },
  [EM_AARCH64]: { relative: 1027, irelative: 1032, jumpSlot: 1026 },
  [EM_MIPS]: { relative: 3, irelative: -1, jumpSlot: 127 },
  [EM_PPC]: { relative: 22, irelative: 248, jumpSlot: 21 },
  [EM_PPC64]: { relative: 22, irelative: 248, jumpSlot: 21 },
  [EM_RISCV]: { relative: 3, irelative: 58, jumpSlot: 5 },
};

/** The relocation kinds of `machine`. */
export function relocKinds(machine: number): RelocKinds {
  return KINDS[machine] ?? { relative: -1, irelative: -1, jumpSlot: -1 };
}
