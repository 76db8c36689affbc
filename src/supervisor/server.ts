/**
 * Builds the MCP server a client talks to: the tool listing (management, meta and pinned tools),
 * tool calls routed through the supervisor, resources and prompts. One instance per connection
 * (stdio) or per request (HTTP); all state lives in the Supervisor.
 */
import { ProtocolError, Server } from "@modelcontextprotocol/server";
import { VERSION } from "../config.ts";
import { progressNote } from "../protocol/progress.ts";
import type { CallContext, Host } from "./host.ts";
import { PROMPTS, renderPrompt } from "./prompts.ts";
import { listResources, readResource, RESOURCE_TEMPLATES } from "./resources.ts";

/** What the model is told about the workflow (sent on initialize and server/discover). */
export const INSTRUCTIONS = [
  "remcp analyses binaries (ELF, PE, Mach-O, raw) for reverse engineering.",
  "1. open_database {path} (or open_data for a sample you hold), then wait_for_analysis.",
  "2. Survey with the listed tools: get_database_info, list_functions, list_imports, " +
  "list_strings, function_summary, disassemble_function, xrefs_to.",
  "3. Many more tools are hidden to save tokens: search_tools finds them, get_schema shows " +
  "their parameters, call runs one.",
  "4. For multi-step work, write one execute script: `await invoke(tool, args)` runs tools in " +
  "a sandbox and returns only what you return — far fewer round trips and tokens.",
  "Addresses accept 0x hex, decimal, names and name+0x10. Results page with offset/limit.",
  "rename and set_comment persist across sessions.",
].join("\n");

/** Creates the MCP server for one session. */
export function createServer(sup: Host, session: string): Server {
  const server = new Server(
    { name: "remcp", version: VERSION },
    {
      capabilities: { tools: { listChanged: true }, resources: {}, prompts: {} },
      instructions: INSTRUCTIONS,
    },
  );

  // Script tools come and go at run time: tell this connection's client when they do. Over the
  // HTTP daemon an instance lives for one request, so the notice reaches only a client whose
  // request is in flight; others see the change on their next tools/list.
  const unsubscribe = sup.onToolsChanged(() => void server.sendToolListChanged().catch(() => {}));
  const previousOnClose = server.onclose;
  server.onclose = () => {
    unsubscribe();
    previousOnClose?.();
  };

  server.setRequestHandler("tools/list", async () => {
    await sup.toolsReady();
    return { tools: listTools(sup) as never };
  });

  server.setRequestHandler("tools/call", async (request, ctx) => {
    const { name } = request.params;
    if (!sup.find(name)) await sup.toolsReady();
    const entry = sup.find(name);
    if (!entry) {
      throw new ProtocolError(-32602, `Unknown tool: ${name}; use search_tools to find one`);
    }
    const progressToken = request.params._meta?.progressToken;
    const cctx: CallContext = {
      session,
      signal: ctx.mcpReq.signal,
      via: "client",
      progress(done, total, message) {
        if (progressToken === undefined) return;
        void ctx.mcpReq.notify(progressNote(progressToken, done, total, message)).catch(() => {});
      },
    };
    const result = await sup.callTool(name, request.params.arguments, cctx);
    return server.projectCallToolResult(result as never, sup.outputSchema(entry)) as never;
  });

  server.setRequestHandler("resources/list", () => ({ resources: listResources(sup) as never }));
  server.setRequestHandler("resources/templates/list", () => ({
    resourceTemplates: RESOURCE_TEMPLATES as never,
  }));
  server.setRequestHandler("resources/read", async (request) => {
    const text = await readResource(sup, session, request.params.uri);
    return { contents: [{ uri: request.params.uri, mimeType: "application/json", text }] };
  });

  server.setRequestHandler("prompts/list", () => ({
    prompts: PROMPTS.map((p) => ({
      name: p.name,
      description: p.description,
      arguments: p.arguments,
    })) as never,
  }));
  server.setRequestHandler("prompts/get", (request) => {
    const prompt = PROMPTS.find((p) => p.name === request.params.name);
    if (!prompt) throw new ProtocolError(-32602, `Unknown prompt: ${request.params.name}`);
    return renderPrompt(prompt, request.params.arguments ?? {}) as never;
  });
  return server;
}

/** The tools/list entries this configuration shows. */
export function listTools(sup: Host): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const entry of sup.entries.values()) {
    if (!sup.listed(entry)) continue;
    out.push({
      name: entry.spec.name,
      description: entry.spec.description,
      inputSchema: sup.inputSchema(entry),
      outputSchema: sup.outputSchema(entry),
      annotations: entry.spec.annotations,
    });
  }
  return out;
}
