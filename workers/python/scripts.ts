/**
 * The Python worker scripts, shipped inside remcp as text (raw imports) and written to a cache
 * folder on first use by `src/supervisor/python_workers.ts`. Keys are paths relative to that
 * folder; a file missing here is missing at run time, so every module is listed.
 */
import worker from "./remcp_worker.py" with { type: "text" };
import pkg from "./remcp/__init__.py" with { type: "text" };
import address from "./remcp/address.py" with { type: "text" };
import backend from "./remcp/backend.py" with { type: "text" };
import cli from "./remcp/cli.py" with { type: "text" };
import errors from "./remcp/errors.py" with { type: "text" };
import generic from "./remcp/generic.py" with { type: "text" };
import linearRe from "./remcp/linear_re.py" with { type: "text" };
import probe from "./remcp/probe.py" with { type: "text" };
import results from "./remcp/results.py" with { type: "text" };
import schema from "./remcp/schema.py" with { type: "text" };
import server from "./remcp/server.py" with { type: "text" };
import engines from "./remcp/engines/__init__.py" with { type: "text" };
import ghidraEngine from "./remcp/engines/ghidra_engine.py" with { type: "text" };
import ghidraTools from "./remcp/engines/ghidra_tools.py" with { type: "text" };
import idaEngine from "./remcp/engines/ida_engine.py" with { type: "text" };
import idaTools from "./remcp/engines/ida_tools.py" with { type: "text" };
import binjaEngine from "./remcp/engines/binja_engine.py" with { type: "text" };
import binjaTools from "./remcp/engines/binja_tools.py" with { type: "text" };

/** The entry script, relative to the cache folder. */
export const ENTRY_SCRIPT = "remcp_worker.py";

/** The engine probe (run with `python3 -c`; imports no engine). */
export const PROBE_SCRIPT: string = probe;

/** Every script by relative path. */
export const PYTHON_SCRIPTS: Readonly<Record<string, string>> = {
  [ENTRY_SCRIPT]: worker,
  "remcp/__init__.py": pkg,
  "remcp/address.py": address,
  "remcp/backend.py": backend,
  "remcp/cli.py": cli,
  "remcp/errors.py": errors,
  "remcp/generic.py": generic,
  "remcp/linear_re.py": linearRe,
  "remcp/probe.py": probe,
  "remcp/results.py": results,
  "remcp/schema.py": schema,
  "remcp/server.py": server,
  "remcp/engines/__init__.py": engines,
  "remcp/engines/ghidra_engine.py": ghidraEngine,
  "remcp/engines/ghidra_tools.py": ghidraTools,
  "remcp/engines/ida_engine.py": idaEngine,
  "remcp/engines/ida_tools.py": idaTools,
  "remcp/engines/binja_engine.py": binjaEngine,
  "remcp/engines/binja_tools.py": binjaTools,
};
