/**
 * A worker's MCP server: lists the backend's tools with JSON Schemas from the catalog specs,
 * checks arguments, refuses tools while the database is analysing, applies the output cap and
 * turns every failure into an `{error, error_type, detail}` result.
 */
import { progressNote } from "../src/protocol/progress.ts";
import { ProtocolError, Server } from "@modelcontextprotocol/server";
import { RemcpError } from "../src/errors.ts";
import { cappedResult, errorResult, okResult, type ToolResult } from "../src/protocol/results.ts";
import { inputJsonSchema, outputJsonSchema, parseArguments } from "../src/protocol/validate.ts";
import type { Backend, HandlerContext, ToolImpl } from "./backend.ts";
import { internalTools } from "./internal_tools.ts";
import type { ToolQueue } from "./tool_queue.ts";

/** Options for {@link createToolServer}. */
export interface ToolServerOptions {
  version: string;
  maxOutputBytes: number;
  /** Validate every result against its output schema (tests turn this on). */
  checkOutput?: boolean;
  /**
   * The worker's one queue of tool calls (every connection's). Internal tools (`_status`,
   * `_save`, `_open`) bypass it, as they bypass the supervisor's queue of the database.
   */
  queue?: ToolQueue | undefined;
}

/** Builds a fresh low-level MCP server for `backend` (the SDK factory calls this per connection). */
export function createToolServer(
  backend: Backend,
  options: ToolServerOptions,
  extra: readonly ToolImpl[] = [],
): Server {
  const tools = new Map<string, ToolImpl>();
  for (const t of [...backend.tools(), ...internalTools(backend), ...extra]) {
    tools.set(t.spec.name, t);
  }
  const listing = [...tools.values()].map((t) => ({
    name: t.spec.name,
    description: t.spec.description,
    inputSchema: inputJsonSchema(t.spec.input),
    outputSchema: outputJsonSchema(t.spec.output),
    annotations: t.spec.annotations,
  }));
  const outputSchemas = new Map(listing.map((t) => [t.name, t.outputSchema]));

  const server = new Server(
    { name: `remcp-worker-${backend.name}`, version: options.version },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler("tools/list", () => ({ tools: listing as never }));
  server.setRequestHandler("tools/call", async (request, ctx) => {
    const name = request.params.name;
    const tool = tools.get(name);
    if (!tool) throw new ProtocolError(-32602, `Unknown tool: ${name}`);
    const progressToken = request.params._meta?.progressToken;
    const hctx: HandlerContext = {
      signal: ctx.mcpReq.signal,
      progress(done, total, message) {
        if (progressToken === undefined) return;
        void ctx.mcpReq.notify(progressNote(progressToken, done, total, message)).catch(() => {});
      },
    };
    const result = await runTool(backend, tool, request.params.arguments, hctx, options);
    return server.projectCallToolResult(result as never, outputSchemas.get(name)) as never;
  });
  return server;
}

/** Runs one tool call to a result, never throwing; in its turn when the worker has a queue. */
export function runTool(
  backend: Backend,
  tool: ToolImpl,
  rawArgs: unknown,
  ctx: HandlerContext,
  options: ToolServerOptions,
): Promise<ToolResult> {
  const name = tool.spec.name;
  const now = async (): Promise<ToolResult> => {
    try {
      const args = parseArguments(name, tool.spec.input, rawArgs) as Record<string, unknown>;
      if (!tool.duringAnalysis) refuseUnlessReady(backend);
      const value = await tool.handler(args, ctx);
      if (options.checkOutput) {
        const checked = tool.spec.output.safeParse(value);
        if (!checked.success) {
          throw new Error(
            `${name} returned a result that breaks its output schema: ` +
              checked.error.issues.slice(0, 3).map((i) => `${i.path.join(".")}: ${i.message}`)
                .join("; "),
          );
        }
      }
      if (tool.textField !== undefined) return textFieldResult(value, tool.textField);
      return tool.uncapped ? okResult(value) : cappedResult(value, options.maxOutputBytes);
    } catch (err) {
      return errorResult(err, options.maxOutputBytes);
    }
  };
  const queue = options.queue;
  if (!queue || name.startsWith("_")) return now();
  // A call cancelled while it waited its turn is not run.
  return queue.run(() =>
    ctx.signal.aborted
      ? Promise.resolve(errorResult(
        new RemcpError("Cancelled", `The call to ${name} was cancelled`, { tool: name }),
        options.maxOutputBytes,
      ))
      : now()
  );
}

/** A result whose `field` is its text and the rest its structured content (ToolImpl.textField). */
export function textFieldResult(value: Record<string, unknown>, field: string): ToolResult {
  const { [field]: text, ...rest } = value;
  if (typeof text !== "string") throw new Error(`the result's ${field} is not a string`);
  return { content: [{ type: "text", text }], structuredContent: rest };
}

function refuseUnlessReady(backend: Backend): void {
  const status = backend.status();
  if (status.state === "ready") return;
  if (status.state === "failed" && status.error) {
    throw new RemcpError(
      status.error.error_type as never,
      status.error.error,
      status.error.detail,
    );
  }
  const pct = status.progress !== undefined ? ` (${Math.round(status.progress * 100)}%)` : "";
  throw new RemcpError(
    "Busy",
    `The database is still ${status.state}${pct}: call wait_for_analysis first, then retry ` +
      `this call (format, data and symbol tools already work while it analyses)`,
    {
      state: status.state,
      ...(status.progress !== undefined ? { progress: status.progress } : {}),
    },
  );
}
