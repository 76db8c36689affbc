/**
 * The daemon's listening socket: a byte relay in front of `Deno.serve` that closes a connection
 * on which nothing has moved for a while. `Deno.serve` has no idle or header timeout (measured on
 * Deno 2.9: a connection that sent half a request and went silent, or an idle keep-alive one,
 * stayed open for good). The HTTP server itself listens on a Unix socket in a private folder,
 * so the bound cannot be gone around; on Windows it listens on another loopback port.
 *
 * Live calls are not idle: a slow answer streams heartbeats (see `stream_when_slow.ts`), and the
 * daemon keeps those more frequent than this bound.
 */
import { makeOwnedTempDir } from "../owned_temp_dir.ts";

/** Name prefix of the private folder holding the HTTP server's socket. */
export const SOCKET_DIR_PREFIX = "remcp-http-";

/** Where to listen and how long a connection may stay silent. */
export interface IdleFrontOptions {
  hostname: string;
  port: number;
  /** A connection on which no byte moved either way for this long is closed. */
  idleMs: number;
}

/** The running server. */
export interface IdleFrontServer {
  /** The address clients connect to. */
  addr: Deno.NetAddr;
  /** Connections open now. */
  readonly connections: number;
  /** Stops accepting, waits for the HTTP server's answers (bounded), closes every connection. */
  shutdown(graceMs: number): Promise<void>;
}

interface Relay {
  last: number;
  close(): void;
}

/** Serves `handler` on `hostname:port` behind the idle-closing relay. */
export async function serveBehindIdleFront(
  opts: IdleFrontOptions,
  handler: (request: Request) => Promise<Response>,
): Promise<IdleFrontServer> {
  const inner = await listenInner(handler);
  const listener = Deno.listen({ hostname: opts.hostname, port: opts.port });
  const relays = new Set<Relay>();
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const r of relays) if (now - r.last >= opts.idleMs) r.close();
  }, Math.max(20, Math.min(1000, opts.idleMs / 4)));

  const relay = async (outer: Deno.Conn) => {
    let back: Deno.Conn;
    try {
      back = await inner.connect();
    } catch {
      outer.close();
      return;
    }
    let closed = false;
    const r: Relay = {
      last: Date.now(),
      close() {
        if (closed) return;
        closed = true;
        relays.delete(r);
        for (const c of [outer, back]) {
          try {
            c.close();
          } catch {
            // Closed already.
          }
        }
      },
    };
    relays.add(r);
    const pump = async (from: Deno.Conn, to: Deno.Conn) => {
      const buf = new Uint8Array(64 * 1024);
      for (;;) {
        const n = await from.read(buf);
        // End of input: pass the half-close on; the other direction may still be answering.
        if (n === null) return await to.closeWrite();
        r.last = Date.now();
        for (let at = 0; at < n;) at += await to.write(buf.subarray(at, n));
        r.last = Date.now();
      }
    };
    try {
      await Promise.all([pump(outer, back), pump(back, outer)]);
    } catch {
      // A reset or a close from the sweep: both sides go.
    } finally {
      r.close();
    }
  };

  const accepting = (async () => {
    for await (const conn of listener) void relay(conn);
  })().catch(() => {});

  return {
    addr: listener.addr as Deno.NetAddr,
    get connections() {
      return relays.size;
    },
    async shutdown(graceMs) {
      clearInterval(sweep);
      try {
        listener.close();
      } catch {
        // Closed already.
      }
      await accepting;
      await Promise.race([inner.server.shutdown(), new Promise((r) => setTimeout(r, graceMs))]);
      for (const r of [...relays]) r.close();
      await inner.cleanup();
    },
  };
}

interface Inner {
  server: Deno.HttpServer;
  connect(): Promise<Deno.Conn>;
  cleanup(): Promise<void>;
}

async function listenInner(handler: (request: Request) => Promise<Response>): Promise<Inner> {
  if (Deno.build.os === "windows") {
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler);
    const port = server.addr.port;
    return {
      server,
      connect: () => Deno.connect({ hostname: "127.0.0.1", port }),
      cleanup: async () => {},
    };
  }
  // A fresh private folder: short enough for a socket path, and no one else's to connect to. A
  // daemon killed by SIGKILL leaves its folder behind; the next daemon removes it.
  const dir = await makeOwnedTempDir(SOCKET_DIR_PREFIX);
  const path = `${dir}/http.sock`;
  const server = Deno.serve(
    { path, onListen: () => {} },
    // Over a Unix socket the URL reads http+unix://HOST/…; the handler expects the client's view.
    (request) => handler(new Request(request.url.replace(/^http\+unix:/, "http:"), request)),
  );
  return {
    server,
    connect: () => Deno.connect({ transport: "unix", path }),
    cleanup: () => Deno.remove(dir, { recursive: true }).catch(() => {}),
  };
}
