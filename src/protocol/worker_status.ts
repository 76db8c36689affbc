/**
 * A worker's status, as its internal `_status` tool reports it: one schema for the worker that
 * writes it and the supervisor that reads it.
 */
import { z } from "zod";

/** Where a database is in its life. */
export const ANALYSIS_STATES = ["loading", "analysing", "ready", "failed"] as const;
/** One of {@link ANALYSIS_STATES}. */
export type AnalysisState = typeof ANALYSIS_STATES[number];

/** The `_status` result. */
export const WorkerStatusSchema = z.object({
  state: z.enum(ANALYSIS_STATES),
  /** 0..1 when known. */
  progress: z.number().optional(),
  message: z.string().optional(),
  seconds: z.number().optional(),
  /** Set when `state` is `failed`: the error payload. */
  error: z.object({
    error: z.string(),
    error_type: z.string(),
    detail: z.record(z.string(), z.unknown()),
  }).optional(),
});

/** A worker's status. */
export type WorkerStatus = z.output<typeof WorkerStatusSchema>;
