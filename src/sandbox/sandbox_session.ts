/**
 * One sandbox's side of the line protocol (protocol.ts), wherever it runs: the `remcp sandbox`
 * process (sandbox_main.ts) or a sandbox thread (sandbox_thread_main.ts). At most one run at a
 * time.
 */
import {
  type InvokeResultMessage,
  parseParentMessage,
  type RunMessage,
  type WireError,
} from "./protocol.ts";
import type { EngineOutcome, InvokeOutcome } from "./engine_types.ts";
import type { SandboxEngine } from "./quickjs.ts";
import { shrinkValue } from "./shrink.ts";
import type { LaneHub } from "./lane_hub.ts";

/**
 * Least time between two reports of a run's lane invokes to the parent (it throttles the client's
 * progress notes further, src/meta/run_script.ts).
 */
const LANE_REPORT_EVERY_MS = 50;

interface ActiveRun {
  id: string;
  abort: AbortController;
  waiting: Map<number, (outcome: InvokeOutcome) => void>;
}

/** One child's side of the protocol: at most one run at a time. */
export class SandboxSession {
  readonly #engine: SandboxEngine;
  readonly #send: (line: string) => void;
  readonly #lanes: LaneHub | undefined;
  #active: ActiveRun | undefined;

  /** `lanes`: this process's lane socket (a sandbox process with `--lanes`), if any. */
  constructor(engine: SandboxEngine, send: (line: string) => void, lanes?: LaneHub) {
    this.#engine = engine;
    this.#send = send;
    this.#lanes = lanes;
  }

  /** Handles one line from the parent. */
  receive(line: string): void {
    if (line.trim() === "") return;
    const message = parseParentMessage(line);
    if (typeof message === "string") {
      console.error(`sandbox: ignoring a bad message: ${message}`);
      return;
    }
    switch (message.type) {
      case "run":
        this.#start(message);
        return;
      case "invoke_result":
        this.#settle(message);
        return;
      case "cancel":
        if (this.#active?.id === message.id) this.#active.abort.abort();
        return;
      case "lane":
        if (this.#active?.id === message.runId) this.#lanes?.grant(message);
        return;
    }
  }

  #start(message: RunMessage): void {
    if (this.#active) {
      const error: WireError = {
        code: "Internal",
        message: "The sandbox process is already running a script",
        detail: {},
      };
      this.#send(doneLine(message.id, { ok: false, error, stats: { invokes: 0, cpuMs: 0 } }));
      return;
    }
    const active: ActiveRun = { id: message.id, abort: new AbortController(), waiting: new Map() };
    this.#active = active;
    const runId = JSON.stringify(message.id);
    const lanes = this.#lanes;
    lanes?.begin(message.id);
    for (const lane of message.lanes ?? []) {
      lanes?.grant({ type: "lane", runId: message.id, ...lane });
    }
    let laneInvokes = 0;
    let lastReport = -Infinity;
    const onLane = () => {
      laneInvokes++;
      const now = performance.now();
      if (now - lastReport < LANE_REPORT_EVERY_MS) return;
      lastReport = now;
      this.#send(
        JSON.stringify({ type: "lane_invokes", runId: message.id, count: laneInvokes }),
      );
    };
    this.#engine.run(
      {
        code: message.code,
        globals: message.globals,
        limits: message.limits,
        signal: active.abort.signal,
      },
      {
        invoke: (callId, name, argsJson) => {
          const viaParent = () => {
            const waiting = new Promise<InvokeOutcome>((resolve) => {
              active.waiting.set(callId, resolve);
            });
            this.#send(
              `{"type":"invoke","runId":${runId},"callId":${callId},"name":${
                JSON.stringify(name)
              },"args":${argsJson}}`,
            );
            return waiting;
          };
          return lanes?.invoke(name, argsJson, viaParent, onLane) ?? viaParent();
        },
        log: (level, text) => {
          this.#send(JSON.stringify({ type: "log", runId: message.id, level, text }));
        },
      },
    ).catch((err): EngineOutcome => ({
      ok: false,
      error: { code: "Internal", message: `Sandbox engine failed: ${String(err)}`, detail: {} },
      stats: { invokes: 0, cpuMs: 0 },
      clean: false,
    })).then((outcome) => {
      this.#active = undefined;
      lanes?.end();
      if (laneInvokes > 0) outcome = { ...outcome, stats: { ...outcome.stats, laneInvokes } };
      this.#send(doneLine(message.id, fitResult(outcome, message.fitBytes)));
    });
  }

  #settle(message: InvokeResultMessage): void {
    const active = this.#active;
    if (!active || active.id !== message.runId) return;
    const resolve = active.waiting.get(message.callId);
    if (!resolve) return;
    active.waiting.delete(message.callId);
    resolve(
      message.ok ? { ok: true, valueJson: message.valueJson } : { ok: false, error: message.error },
    );
  }
}

type DoneOutcome =
  & Pick<EngineOutcome, "stats">
  & ({ ok: true; resultJson: string; cut?: string[] } | { ok: false; error: WireError });

/**
 * Cuts a result over `fitBytes` to fit, here rather than in the host: parsing and cutting 15 MiB
 * costs a second or more, which on the host's side would stall every other session. A JSON text's
 * UTF-8 size is at least its length, so only a result that is surely too big is parsed; the host
 * trims the few that are close.
 */
function fitResult(outcome: DoneOutcome, fitBytes: number | undefined): DoneOutcome {
  if (!outcome.ok || fitBytes === undefined || outcome.resultJson.length <= fitBytes) {
    return outcome;
  }
  const cut: string[] = [];
  const value = shrinkValue(JSON.parse(outcome.resultJson), fitBytes, cut);
  return { ...outcome, resultJson: JSON.stringify(value) ?? "null", cut };
}

/** The `done` line; the result is the guest's own JSON text, spliced in without a re-parse. */
function doneLine(id: string, outcome: DoneOutcome): string {
  const head = `{"type":"done","id":${JSON.stringify(id)},"stats":${JSON.stringify(outcome.stats)}`;
  if (!outcome.ok) return `${head},"ok":false,"error":${JSON.stringify(outcome.error)}}`;
  const cut = outcome.cut?.length ? `,"cut":${JSON.stringify(outcome.cut)}` : "";
  return `${head},"ok":true${cut},"result":${outcome.resultJson}}`;
}
