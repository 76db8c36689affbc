/** The one builder of MCP progress notifications, used by every transport and by workers. */

/** A `notifications/progress` message (without the `jsonrpc` field, which transports add). */
export interface ProgressNote {
  method: "notifications/progress";
  params: { progressToken: string | number; progress: number; total?: number; message?: string };
}

/** The progress notification for `token`; `total` and `message` only when known. */
export function progressNote(
  token: string | number,
  done: number,
  total?: number,
  message?: string,
): ProgressNote {
  return {
    method: "notifications/progress",
    params: {
      progressToken: token,
      progress: done,
      ...(total !== undefined ? { total } : {}),
      ...(message !== undefined ? { message } : {}),
    },
  };
}
