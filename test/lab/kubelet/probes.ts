// kubelet's probe bookkeeping (pure): when a probe is due, and what a result does to readiness or liveness.
// Kubernetes semantics: readiness starts false and turns true after successThreshold successes in a row, false
// again after failureThreshold failures in a row; liveness starts true and, after failureThreshold failures in a
// row, kubelet restarts the container. Defaults as Kubernetes': period 10 s, failureThreshold 3, success 1,
// timeout 1 s, initial delay 0.

import type { Probe } from "./pod-env.js";

export interface ProbeSettings {
  command: string[] | null;
  periodMs: number;
  initialDelayMs: number;
  failureThreshold: number;
  successThreshold: number;
  timeoutMs: number;
}

export interface ProbeState {
  ok: boolean;
  failures: number;
  successes: number;
  lastRunAt: number | null;
  lastOutput: string;
}

/**
 * The template's probe, with its period capped at `maxPeriodMs` (the lab's LAB_PROBE_PERIOD_MAX_S): a shorter
 * period only moves the moment kubelet observes a change earlier; thresholds count probes as written.
 */
export function probeSettings(p: Probe | undefined, maxPeriodMs: number): ProbeSettings {
  const s = (v: number | undefined, d: number): number => (v ?? d) * 1000;
  return {
    command: p?.exec?.command ?? null,
    periodMs: Math.min(s(p?.periodSeconds, 10), maxPeriodMs),
    initialDelayMs: Math.min(s(p?.initialDelaySeconds, 0), maxPeriodMs),
    failureThreshold: p?.failureThreshold ?? 3,
    successThreshold: p?.successThreshold ?? 1,
    timeoutMs: s(p?.timeoutSeconds, 1),
  };
}

export function initialProbe(kind: "readiness" | "liveness"): ProbeState {
  return { ok: kind === "liveness", failures: 0, successes: 0, lastRunAt: null, lastOutput: "" };
}

export function probeDue(
  s: ProbeSettings,
  st: ProbeState,
  startedAt: number,
  now: number,
): boolean {
  if (s.command === null) return false;
  if (now - startedAt < s.initialDelayMs) return false;
  return st.lastRunAt === null || now - st.lastRunAt >= s.periodMs;
}

export function afterProbe(
  s: ProbeSettings,
  st: ProbeState,
  passed: boolean,
  output: string,
  now: number,
): ProbeState {
  const failures = passed ? 0 : st.failures + 1;
  const successes = passed ? st.successes + 1 : 0;
  let ok = st.ok;
  if (passed && successes >= s.successThreshold) ok = true;
  if (!passed && failures >= s.failureThreshold) ok = false;
  return { ok, failures, successes, lastRunAt: now, lastOutput: output.slice(0, 500) };
}
