/** Function hints from ELF unwind tables: `.eh_frame` (or via `.eh_frame_hdr`) and `.ARM.exidx`. */

import type { ElfLayout } from "./_elf_layout.ts";
import {
  type ElfContext,
  EM_ARM,
  MAX_TABLE_ENTRIES,
  PT_GNU_EH_FRAME,
  SHT_NOBITS,
} from "./_elf_types.ts";
import { optionalPart } from "./_optional_part.ts";
import { parseEhFrame, parseEhFrameHdr } from "./eh_frame.ts";
import type { FunctionHint } from "./image.ts";

/** Function starts (and ends) from the unwind tables the file has. */
export function readUnwindHints(ctx: ElfContext, layout: ElfLayout): FunctionHint[] {
  const { r, warnings, ptrSize } = ctx;
  const hints: FunctionHint[] = [];
  const eh = layout.sections.find((s) => s.name === ".eh_frame" && s.type !== SHT_NOBITS);
  if (eh && eh.addr !== 0) {
    hints.push(
      ...parseEhFrame(
        r,
        { fileOffset: eh.offset, addr: eh.addr, size: eh.size, ptrSize },
        warnings,
      ),
    );
  } else {
    const hdrPh = layout.phdrs.find((p) => p.type === PT_GNU_EH_FRAME);
    if (hdrPh && hdrPh.filesz > 0) {
      optionalPart(warnings, ".eh_frame_hdr", undefined, () => {
        const hdr = parseEhFrameHdr(r, {
          fileOffset: hdrPh.offset,
          addr: hdrPh.vaddr,
          size: hdrPh.filesz,
          ptrSize,
        });
        const ehAddr = hdr.ehFrameAddr;
        const off = ehAddr === undefined ? undefined : ctx.vaToOff(ehAddr);
        const seg = layout.segments.find((s) =>
          ehAddr !== undefined && ehAddr >= s.start && ehAddr < s.start + s.fileSize
        );
        if (ehAddr !== undefined && off !== undefined && seg) {
          const size = seg.start + seg.fileSize - ehAddr;
          hints.push(
            ...parseEhFrame(r, { fileOffset: off, addr: ehAddr, size, ptrSize }, warnings),
          );
        }
        if (hints.length === 0) {
          for (const s of hdr.starts) hints.push({ start: s, source: "eh_frame" });
        }
      });
    }
  }
  // ARM EHABI: each .ARM.exidx entry starts with a prel31 offset to its function.
  const exidx = layout.sections.find((s) => s.name === ".ARM.exidx" && s.type !== SHT_NOBITS);
  if (exidx && layout.machine === EM_ARM) {
    optionalPart(warnings, ".ARM.exidx", undefined, () => {
      const n = Math.min(Math.floor(exidx.size / 8), MAX_TABLE_ENTRIES);
      r.check(exidx.offset, n * 8, ".ARM.exidx runs past the end of the file");
      for (let i = 0; i < n; i++) {
        const w = r.u32(exidx.offset + i * 8);
        const rel = (w << 1) >> 1;
        const start = (exidx.addr + i * 8 + rel) >>> 0;
        if (start !== 0) hints.push({ start: start - (start % 2), source: "arm_exidx" });
      }
    });
  }
  return hints;
}
