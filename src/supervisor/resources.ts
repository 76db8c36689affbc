/**
 * Read-only resources: `remcp://databases` and, per database, `remcp://{database}/imports`,
 * `/exports`, `/entry_points`, `/statistics`.
 */
import { ProtocolError } from "@modelcontextprotocol/server";
import type { Host } from "./host.ts";

/** The per-database resource templates. */
export const RESOURCE_TEMPLATES = [
  ["imports", "Imported functions of a database"],
  ["exports", "Exported symbols of a database"],
  ["entry_points", "Entry points of a database"],
  ["statistics", "Size, format and analysis facts of a database"],
].map(([kind, description]) => ({
  uriTemplate: `remcp://{database}/${kind}`,
  name: `database ${kind}`,
  description,
  mimeType: "application/json",
}));

const KIND_TOOL: Record<string, string> = {
  imports: "list_imports",
  exports: "list_exports",
  entry_points: "list_entry_points",
  statistics: "get_database_info",
};

/** Concrete resources: the database list, and each ready database's resources. */
export function listResources(sup: Host): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [{
    uri: "remcp://databases",
    name: "databases",
    description: "Open databases and their state",
    mimeType: "application/json",
  }];
  for (const db of sup.pool.list()) {
    if (db.state !== "ready") continue;
    for (const kind of Object.keys(KIND_TOOL)) {
      out.push({
        uri: `remcp://${db.id}/${kind}`,
        name: `${db.id} ${kind}`,
        mimeType: "application/json",
      });
    }
  }
  return out;
}

/** Reads one resource as JSON text. */
export async function readResource(sup: Host, session: string, uri: string) {
  const ctx = {
    session,
    signal: new AbortController().signal,
    progress: () => {},
    via: "client" as const,
  };
  if (uri === "remcp://databases") {
    const r = await sup.callTool("list_databases", {}, ctx);
    return r.content[0]!.text;
  }
  const m = /^remcp:\/\/([^/]+)\/([a-z_]+)$/.exec(uri);
  const tool = m ? KIND_TOOL[m[2]!] : undefined;
  if (!m || !tool) throw new ProtocolError(-32602, `Unknown resource: ${uri}`);
  const args: Record<string, unknown> = { database: decodeURIComponent(m[1]!) };
  if (tool !== "get_database_info") args.limit = 10_000;
  const r = await sup.callTool(tool, args, ctx);
  if (r.isError) throw new ProtocolError(-32602, r.content[0]!.text);
  return r.content[0]!.text;
}
