/**
 * An exclusive advisory lock on a file, so that proxies started together spawn exactly one
 * daemon. Polls `tryLock` rather than blocking in `lock`, so the wait has a deadline.
 */

/** Runs `fn` holding the exclusive lock on `path`; fails after `timeoutMs` without it. */
export async function withFileLock<T>(
  path: string,
  timeoutMs: number,
  fn: () => Promise<T>,
): Promise<T> {
  const file = await Deno.open(path, { create: true, write: true, mode: 0o600 });
  try {
    const deadline = Date.now() + timeoutMs;
    let delay = 10;
    while (!(await file.tryLock(true))) {
      if (Date.now() >= deadline) {
        throw new Error(`Cannot lock ${path}: another remcp process held it for ${timeoutMs} ms`);
      }
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 100);
    }
    try {
      return await fn();
    } finally {
      await file.unlock().catch(() => {});
    }
  } finally {
    file.close();
  }
}
