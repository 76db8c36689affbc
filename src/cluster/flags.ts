/**
 * The connection flags `remcp node` and `remcp run --nats` share, in a leaf module with no NATS
 * import so `remcp --help` can show them without loading the client.
 */
import type { ParseArgsConfig } from "node:util";

/** parseArgs options for the connection, shared by the node and the submitter. */
export const NATS_OPTIONS = {
  nats: { type: "string" },
  user: { type: "string" },
  password: { type: "string" },
  token: { type: "string" },
  creds: { type: "string" },
  nkey: { type: "string" },
  "tls-ca": { type: "string" },
  "tls-cert": { type: "string" },
  "tls-key": { type: "string" },
  "allow-insecure": { type: "boolean" },
} as const satisfies ParseArgsConfig["options"];

/** The parsed connection flags. */
export interface NatsFlags {
  nats?: string | undefined;
  user?: string | undefined;
  password?: string | undefined;
  token?: string | undefined;
  creds?: string | undefined;
  nkey?: string | undefined;
  "tls-ca"?: string | undefined;
  "tls-cert"?: string | undefined;
  "tls-key"?: string | undefined;
  "allow-insecure"?: boolean | undefined;
}

/** The connection help lines for `remcp --help`. */
export const NATS_HELP = [
  "  --nats URL        NATS server(s), comma-separated (nats://host:4222, tls://…)",
  "  --creds FILE      NATS credentials file   --nkey FILE   NKEY seed file",
  "  --user U --password P | --token T         user/password or token authentication",
  "  --tls-ca FILE     CA for the server   --tls-cert FILE --tls-key FILE   client cert",
  "  --allow-insecure  connect to a non-loopback server without authentication",
];
