/** Test helpers: open a fixture, analyse it once per test run, read its truth file. */

import { createDecoder } from "../arch/decoder.ts";
import type { BinaryImage } from "../formats/image.ts";
import { parseElf } from "../formats/elf.ts";
import { parsePe } from "../formats/pe.ts";
import type { Analysis } from "./analysis.ts";
import { analyze } from "./analyze.ts";

const BIN = new URL("../../../tests/fixtures/bin/", import.meta.url);

/** One function of a truth file. */
export interface TruthFunction {
  name: string;
  address: string;
  size?: number;
}

/** The parts of a `.truth.json` the tests read. */
export interface Truth {
  functions: TruthFunction[];
  direct_calls?: Record<string, string[]>;
}

/** Parse a fixture (ELF or PE). */
export function openFixture(name: string): BinaryImage {
  const bytes = Deno.readFileSync(new URL(name, BIN));
  return bytes[0] === 0x4d ? parsePe(bytes) : parseElf(bytes);
}

/** The truth file of a fixture. */
export function truthOf(name: string): Truth {
  return JSON.parse(Deno.readTextFileSync(new URL(`${name}.truth.json`, BIN))) as Truth;
}

const cache = new Map<string, Promise<Analysis>>();

/** Analyse a fixture (memoised across tests of one run). */
export function analyzeFixture(name: string): Promise<Analysis> {
  let p = cache.get(name);
  if (p === undefined) {
    p = (async () => {
      const image = openFixture(name);
      const decoder = await createDecoder(image.arch, { endian: image.endian });
      const thumb = image.arch === "arm"
        ? await createDecoder("arm", { thumb: true, endian: image.endian })
        : undefined;
      return analyze(image, decoder, thumb === undefined ? {} : { thumbDecoder: thumb });
    })();
    cache.set(name, p);
  }
  return p;
}
