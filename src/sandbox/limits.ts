/**
 * Per-run limits of the `execute` sandbox and their defaults (docs/ARCHITECTURE.md).
 */

/** The limits one sandbox run is held to. */
export interface Limits {
  /** CPU time the script itself may use (time spent waiting for invokes is not counted). */
  cpuMs: number;
  /** Linear memory of the run's WebAssembly instance, and so of everything the script allocates. */
  memoryBytes: number;
  /** How many `invoke` calls the script may make; the next one rejects inside the script. */
  maxInvokes: number;
  /** Console output kept; the rest is dropped after a "[log truncated]" notice. */
  maxLogBytes: number;
  /** Size of the result serialized as JSON (UTF-8 bytes). */
  maxOutputBytes: number;
}

const KIB = 1024;
const MIB = 1024 * KIB;

/** WebAssembly page size. */
/** Longest script run (execute, script tools, remcp run), in seconds. */
export const MAX_EXECUTE_SECONDS = 600;

export const WASM_PAGE_BYTES = 64 * KIB;

/** The QuickJS build declares 256 pages as its initial memory, so no run gets less. */
export const MIN_MEMORY_BYTES = 256 * WASM_PAGE_BYTES + 4 * MIB;

/**
 * The C stack QuickJS may use. Larger values let deep recursion overflow the host's own stack
 * before QuickJS notices, so this is fixed rather than a per-run limit.
 */
export const MAX_STACK_BYTES = 256 * KIB;

/** Defaults for every limit. */
export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  cpuMs: 10_000,
  memoryBytes: 64 * MIB,
  maxInvokes: 10_000,
  maxLogBytes: 64 * KIB,
  maxOutputBytes: 1 * MIB,
});

const LIMIT_KEYS = [
  "cpuMs",
  "memoryBytes",
  "maxInvokes",
  "maxLogBytes",
  "maxOutputBytes",
] as const satisfies readonly (keyof Limits)[];

const BOUNDS: Readonly<Record<keyof Limits, readonly [number, number]>> = {
  cpuMs: [1, 3_600_000],
  memoryBytes: [MIN_MEMORY_BYTES, 1024 * MIB],
  maxInvokes: [0, 10_000_000],
  maxLogBytes: [0, 64 * MIB],
  maxOutputBytes: [2, 256 * MIB],
};

/**
 * Fills in defaults and checks every limit is an integer within its bounds.
 *
 * @throws {RangeError} when a limit is out of bounds (a caller bug, not a user error)
 */
export function resolveLimits(partial: Partial<Limits> = {}): Limits {
  const limits: Limits = { ...DEFAULT_LIMITS };
  for (const key of LIMIT_KEYS) {
    const value = partial[key];
    if (value === undefined) continue;
    const [min, max] = BOUNDS[key];
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new RangeError(`Sandbox limit ${key} must be an integer in [${min}, ${max}]: ${value}`);
    }
    limits[key] = value;
  }
  return limits;
}
