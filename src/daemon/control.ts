/**
 * The daemon's control endpoints as a client calls them (health, detach, stop), each an
 * authenticated request with a deadline, and the header that names a proxy's session.
 */
import { z } from "zod";
import { type DaemonState, daemonUrl } from "./state.ts";

/** The header a proxy names its session with; plain HTTP clients share one default session. */
export const SESSION_HEADER = "x-remcp-session";

/** The session of requests without {@link SESSION_HEADER}. */
export const DEFAULT_SESSION = "http";

/** What a session id may look like. */
export const SESSION_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;

/** What `/remcp/health` answers. */
export const HealthSchema = z.object({
  ok: z.literal(true),
  pid: z.number().int(),
  version: z.string(),
  started: z.string(),
  auto: z.boolean(),
  sessions: z.number().int(),
  requests: z.number().int(),
  calls_in_flight: z.number().int(),
  databases: z.number().int(),
  idle_ms: z.number(),
  idle_timeout_s: z.number().nullable(),
});

/** A daemon's health report. */
export type Health = z.infer<typeof HealthSchema>;

/** Sends an authenticated request to a control endpoint, bounded by `timeoutMs`. */
export function controlRequest(
  state: DaemonState,
  path: string,
  init: { method?: string; session?: string; timeoutMs?: number } = {},
): Promise<Response> {
  return fetch(daemonUrl(state, path), {
    method: init.method ?? "GET",
    headers: {
      authorization: `Bearer ${state.token}`,
      ...(init.session ? { [SESSION_HEADER]: init.session } : {}),
    },
    signal: AbortSignal.timeout(init.timeoutMs ?? 2000),
  });
}

/**
 * Asks the daemon of `state` for its health: the report when it answers as that daemon (same
 * pid, token accepted), undefined when it does not answer in time or is someone else.
 */
export async function checkHealth(
  state: DaemonState,
  timeoutMs = 2000,
): Promise<Health | undefined> {
  try {
    const r = await controlRequest(state, "/remcp/health", { timeoutMs });
    if (!r.ok) {
      await r.body?.cancel();
      return undefined;
    }
    const parsed = HealthSchema.safeParse(await r.json());
    return parsed.success && parsed.data.pid === state.pid ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
