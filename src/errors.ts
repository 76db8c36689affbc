/**
 * The closed set of tool-failure types (docs/ARCHITECTURE.md) and the error class that carries one.
 *
 * A caller branches on `error_type`, so a new code is added only when a caller would branch on it.
 */

/** Every error type a tool failure may carry. */
export const ERROR_CODES = [
  "InvalidArgument",
  "InvalidAddress",
  "NotFound",
  "NoDatabase",
  "Busy",
  "AmbiguousFatBinary",
  "Unsupported",
  "Unavailable",
  "OpenFailed",
  "WriteFailed",
  "OutputTooLarge",
  "Timeout",
  "Cancelled",
  "WorkerCrashed",
  "SandboxError",
  "SandboxTimeout",
  "SandboxMemory",
  "Internal",
] as const;

/** One member of {@link ERROR_CODES}. */
export type ErrorCode = typeof ERROR_CODES[number];

/** A JSON-serializable detail object attached to an error. */
export type ErrorDetail = Record<string, unknown>;

/** Whether `value` is one of the closed error codes. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && (ERROR_CODES as readonly string[]).includes(value);
}

/**
 * A tool failure: a code from the closed set, a sentence saying what was wrong and what to do
 * instead, and a JSON detail object.
 */
export class RemcpError extends Error {
  readonly code: ErrorCode;
  readonly detail: ErrorDetail;

  constructor(code: ErrorCode, message: string, detail: ErrorDetail = {}) {
    super(message);
    this.name = "RemcpError";
    this.code = code;
    this.detail = detail;
  }
}

/** The wire shape of a tool failure's structured content. */
export interface ErrorPayload {
  error: string;
  error_type: ErrorCode;
  detail: ErrorDetail;
}

/**
 * Turns anything thrown into the wire payload. A `RemcpError` keeps its code; anything else is
 * `Internal` with its message, so no engine message is swallowed.
 */
export function toErrorPayload(err: unknown): ErrorPayload {
  if (err instanceof RemcpError) {
    return { error: err.message, error_type: err.code, detail: err.detail };
  }
  const message = err instanceof Error ? err.message : String(err);
  return {
    error:
      `Internal error: ${message}; this is a bug in remcp, please report it with the call that caused it`,
    error_type: "Internal",
    detail: {},
  };
}

/** Rebuilds a `RemcpError` from a wire payload (for errors relayed from a worker). */
export function fromErrorPayload(payload: unknown): RemcpError | undefined {
  if (typeof payload !== "object" || payload === null) return undefined;
  const p = payload as Record<string, unknown>;
  if (typeof p.error !== "string" || !isErrorCode(p.error_type)) return undefined;
  const detail = typeof p.detail === "object" && p.detail !== null && !Array.isArray(p.detail)
    ? p.detail as ErrorDetail
    : {};
  return new RemcpError(p.error_type, p.error, detail);
}
