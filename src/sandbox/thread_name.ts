/**
 * The name a sandbox thread is started with (sandbox_thread.ts); src/main.ts checks it. A module of
 * its own so that src/main.ts reads it without loading the thread's launcher, whose `node:` imports
 * would set up Deno's Node.js compatibility in every process (a sandbox process does without).
 */
export const SANDBOX_THREAD_NAME = "remcp-sandbox";
