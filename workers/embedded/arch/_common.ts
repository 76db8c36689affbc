/** Helpers shared by the iced-x86 and Capstone decoders. */

import type { Flow, InsnText } from "./types.ts";

/** Whether decoding stops after an instruction with this flow when `stopAtFlowEnd` is set. */
export function endsFlow(flow: Flow): boolean {
  return flow === "jump" || flow === "ret" || flow === "ijump" || flow === "trap" ||
    flow === "invalid";
}

/** Text for bytes that do not decode: IDA's `db`. */
export function invalidText(bytes: Uint8Array): InsnText {
  return {
    mnemonic: "db",
    opStr: Array.from(bytes, (b) => `0x${b.toString(16).padStart(2, "0")}`).join(", "),
  };
}
