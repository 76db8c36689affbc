/**
 * The daemon's front door: DNS-rebinding defence (Host and Origin must name this machine's
 * loopback, or the bound address when remote access was allowed) and the bearer token every
 * request must carry. A rebinding page fails on Host/Origin (403) before the token is looked at.
 */
import {
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
} from "@modelcontextprotocol/server";

/** A fresh 256-bit token as 64 hex digits. */
export function newToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

const encoder = new TextEncoder();

/** Compares two strings in time that depends only on their lengths. */
export function constantTimeEqual(a: string, b: string): boolean {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  // Compare against itself on a length mismatch, so the work done stays the same.
  const other = x.length === y.length ? y : x;
  let diff = x.length ^ y.length;
  for (let i = 0; i < x.length; i++) diff |= x[i]! ^ other[i]!;
  return diff === 0;
}

/** Which Host names the daemon answers to. */
export interface GuardOptions {
  token: string;
  /** The address the daemon is bound to. */
  host: string;
}

/** Hosts that are this machine's loopback. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/** Builds the check every request passes: a rejection Response, or undefined to go on. */
export function createGuard(options: GuardOptions): (request: Request) => Response | undefined {
  const bound = options.host.includes(":") ? `[${options.host}]` : options.host;
  const wildcard = bound === "0.0.0.0" || bound === "[::]";
  const hosts = [...localhostAllowedHostnames(), ...(wildcard ? [] : [bound])];
  const origins = [...localhostAllowedOrigins(), ...(wildcard ? [] : [bound])];
  const expected = `Bearer ${options.token}`;
  return (request) => {
    // Bound to every interface, the Host can be any of this machine's names: the token guards.
    if (!wildcard) {
      const badHost = hostHeaderValidationResponse(request, hosts);
      if (badHost) return badHost;
    }
    const badOrigin = originValidationResponse(request, origins);
    if (badOrigin) return badOrigin;
    const auth = request.headers.get("authorization") ?? "";
    if (!constantTimeEqual(auth, expected)) {
      return Response.json(
        {
          jsonrpc: "2.0",
          id: null,
          error: { code: -32001, message: "Unauthorized: send Authorization: Bearer <token>" },
        },
        { status: 401, headers: { "www-authenticate": 'Bearer realm="remcp"' } },
      );
    }
    return undefined;
  };
}
