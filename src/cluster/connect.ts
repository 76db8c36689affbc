/**
 * Connecting to NATS for `remcp node` and `remcp run --nats`: the flags both take (server,
 * credentials, TLS), the refusal of an unauthenticated non-loopback server, and errors that say
 * what to do when the server is unreachable, refuses us, or has JetStream off.
 */
import {
  type Authenticator,
  connect,
  credsAuthenticator,
  type NatsConnection,
  nkeyAuthenticator,
  type NodeConnectionOptions,
} from "@nats-io/transport-node";
import { RemcpError } from "../errors.ts";
import type { NatsFlags } from "./flags.ts";

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[?::1\]?)$/i;

/** The servers of `--nats`, each as a URL. */
export function serverUrls(spec: string): URL[] {
  return spec.split(",").map((s) => s.trim()).filter((s) => s.length > 0).map((s) => {
    try {
      return new URL(/^[a-z]+:\/\//i.test(s) ? s : `nats://${s}`);
    } catch {
      throw new RemcpError(
        "InvalidArgument",
        `"${s}" is not a NATS server URL: write nats://host:4222`,
        {
          param: "nats",
        },
      );
    }
  });
}

/**
 * Refuses a server that is not on this machine when nothing authenticates us: anyone who can
 * reach an open NATS server can read the binaries and feed the nodes jobs.
 */
export function checkServerSecurity(flags: NatsFlags): URL[] {
  if (!flags.nats) {
    throw new RemcpError("InvalidArgument", "--nats URL is required (e.g. nats://127.0.0.1:4222)", {
      param: "nats",
    });
  }
  const urls = serverUrls(flags.nats);
  if (urls.length === 0) {
    throw new RemcpError("InvalidArgument", "--nats names no server", { param: "nats" });
  }
  if ((flags.user === undefined) !== (flags.password === undefined)) {
    throw new RemcpError("InvalidArgument", "--user and --password go together", {
      param: "user",
    });
  }
  if ((flags["tls-cert"] === undefined) !== (flags["tls-key"] === undefined)) {
    throw new RemcpError("InvalidArgument", "--tls-cert and --tls-key go together", {
      param: "tls-cert",
    });
  }
  const authenticated = flags.user !== undefined || flags.token !== undefined ||
    flags.creds !== undefined || flags.nkey !== undefined || flags["tls-cert"] !== undefined;
  for (const u of urls) {
    const remote = !LOOPBACK.test(u.hostname);
    if (remote && !authenticated && !u.username && !flags["allow-insecure"]) {
      throw new RemcpError(
        "InvalidArgument",
        `Refusing to use ${u.host} without authentication: anyone who reaches it can read the ` +
          `binaries and queue jobs. Pass --creds FILE, --nkey FILE, --user/--password, --token ` +
          `or a client certificate, or --allow-insecure on a network you trust`,
        { param: "nats", server: u.host },
      );
    }
  }
  return urls;
}

/** Connects with the flags' credentials and TLS; `name` shows in the server's monitoring. */
export async function connectNats(flags: NatsFlags, name: string): Promise<NatsConnection> {
  const urls = checkServerSecurity(flags);
  const authenticator: Authenticator[] = [];
  if (flags.creds !== undefined) {
    authenticator.push(credsAuthenticator(await readSecret(flags.creds, "--creds")));
  }
  if (flags.nkey !== undefined) {
    const seed = new TextDecoder().decode(await readSecret(flags.nkey, "--nkey")).trim();
    authenticator.push(nkeyAuthenticator(new TextEncoder().encode(seed)));
  }
  const tls = flags["tls-ca"] !== undefined || flags["tls-cert"] !== undefined ||
      urls.some((u) => u.protocol === "tls:")
    ? {
      ...(flags["tls-ca"] !== undefined ? { caFile: flags["tls-ca"] } : {}),
      ...(flags["tls-cert"] !== undefined ? { certFile: flags["tls-cert"] } : {}),
      ...(flags["tls-key"] !== undefined ? { keyFile: flags["tls-key"] } : {}),
    }
    : undefined;
  const opts: NodeConnectionOptions = {
    servers: flags.nats!.split(",").map((s) => s.trim()).filter((s) => s.length > 0),
    name,
    // A cluster outlives restarts of its server: keep trying instead of failing every job.
    maxReconnectAttempts: -1,
    ...(flags.user !== undefined ? { user: flags.user, pass: flags.password ?? "" } : {}),
    ...(urls[0]?.username && flags.user === undefined
      ? { user: decodeURIComponent(urls[0].username), pass: decodeURIComponent(urls[0].password) }
      : {}),
    ...(flags.token !== undefined ? { token: flags.token } : {}),
    ...(authenticator.length ? { authenticator } : {}),
    ...(tls ? { tls } : {}),
  };
  try {
    return await connect(opts);
  } catch (err) {
    const msg = (err as Error).message;
    if (/authori[sz]ation|authentication|permissions/i.test(msg)) {
      throw new RemcpError(
        "Unavailable",
        `The NATS server at ${flags.nats} refused the connection (${msg}): it requires ` +
          `credentials; pass --creds FILE, --nkey FILE, --user/--password or --token`,
        { server: flags.nats },
      );
    }
    throw new RemcpError(
      "Unavailable",
      `Cannot connect to NATS at ${flags.nats}: ${msg}. Is nats-server running there ` +
        `(nats-server -js)?`,
      { server: flags.nats },
    );
  }
}

async function readSecret(path: string, flag: string): Promise<Uint8Array> {
  try {
    return await Deno.readFile(path);
  } catch (err) {
    throw new RemcpError(
      "InvalidArgument",
      `Cannot read ${flag} ${path}: ${(err as Error).message}`,
      {
        param: flag.slice(2),
      },
    );
  }
}
