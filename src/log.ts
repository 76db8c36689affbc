/**
 * Logging to stderr (stdout belongs to the protocol), filtered by `REMCP_LOG_LEVEL`, and copied
 * to a per-run file under `REMCP_LOG_DIR` when that is set.
 */

/** Log levels, most severe first. */
export const LOG_LEVELS = ["error", "warn", "info", "debug"] as const;
/** One of {@link LOG_LEVELS}. */
export type LogLevel = typeof LOG_LEVELS[number];

/** A logger bound to a component name. */
export interface Logger {
  error(message: string, extra?: Record<string, unknown>): void;
  warn(message: string, extra?: Record<string, unknown>): void;
  info(message: string, extra?: Record<string, unknown>): void;
  debug(message: string, extra?: Record<string, unknown>): void;
  /** A file path under the log folder for raw output of `name`, or undefined without one. */
  filePath(name: string): string | undefined;
}

/** Where log lines go. */
export interface LogSink {
  level: LogLevel;
  dir?: string | undefined;
  write(line: string): void;
}

const encoder = new TextEncoder();

/** The sink for this process: stderr, plus `<dir>/<component>-<pid>.log` when `dir` is set. */
export function stderrSink(level: LogLevel, dir: string | undefined, component: string): LogSink {
  let file: Deno.FsFile | undefined;
  if (dir) {
    try {
      Deno.mkdirSync(dir, { recursive: true });
      file = Deno.openSync(`${dir}/${component}-${Deno.pid}.log`, {
        create: true,
        append: true,
      });
    } catch {
      file = undefined;
    }
  }
  return {
    level,
    dir,
    write(line: string) {
      const bytes = encoder.encode(line + "\n");
      try {
        Deno.stderr.writeSync(bytes);
      } catch {
        // stderr closed: nothing useful to do.
      }
      try {
        file?.writeSync(bytes);
      } catch {
        file = undefined;
      }
    },
  };
}

/** A logger for `component` writing to `sink`. */
export function createLogger(component: string, sink: LogSink): Logger {
  const rank = (l: LogLevel) => LOG_LEVELS.indexOf(l);
  const emit = (level: LogLevel, message: string, extra?: Record<string, unknown>) => {
    if (rank(level) > rank(sink.level)) return;
    const tail = extra && Object.keys(extra).length > 0 ? " " + safeJson(extra) : "";
    sink.write(
      `${new Date().toISOString()} ${level.toUpperCase()} [${component}] ${message}${tail}`,
    );
  };
  return {
    error: (m, e) => emit("error", m, e),
    warn: (m, e) => emit("warn", m, e),
    info: (m, e) => emit("info", m, e),
    debug: (m, e) => emit("debug", m, e),
    filePath: (name) => sink.dir ? `${sink.dir}/${name}-${Deno.pid}.log` : undefined,
  };
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

/** Parses a level name, defaulting to `info`. */
export function parseLogLevel(value: string | undefined): LogLevel {
  const v = (value ?? "").toLowerCase();
  return (LOG_LEVELS as readonly string[]).includes(v) ? v as LogLevel : "info";
}
