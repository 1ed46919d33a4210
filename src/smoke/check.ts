// What a smoke check is (data: a name, the route it exercises, and what it runs), how it fails or
// skips, and the report the suite produces. Every check family in src/smoke/ builds these.
import type { SmokeCtx } from './context.ts';

/**
 * `route` is "METHOD /path/{param}" as in /health's route list; placeholder names do not matter
 * (the server may call `{task_id}` what a check calls `{id}`). A `happy` check counts towards the
 * coverage rule: every route the server lists gets at least one happy-path call.
 */
export type SmokeCheck = {
  name: string;
  route: string;
  kind: 'happy' | 'negative';
  /** Needs the operator token (skipped, with the reason, when the token file has only a customer token). */
  operator?: boolean;
  /** Other routes the check relies on (set-up calls); skipped when the server does not list them. */
  needs?: string[];
  /**
   * Set-up or clean-up that later checks of its family depend on: it runs whenever any check of the
   * family does, even when --grep does not select it.
   */
  always?: boolean;
  /** Checks that share state (a task, a packet, the quota policy); set by the suite. */
  family?: string;
  run: (ctx: SmokeCtx) => Promise<void | Skip>;
};

export type CheckStatus = 'passed' | 'failed' | 'skipped';
export type CheckOutcome = { name: string; route: string; status: CheckStatus; detail: string };
export type SmokeReport = { passed: number; failed: number; skipped: number; checks: CheckOutcome[] };

/** A check's expectation did not hold; `message` is the one-line detail printed after the name. */
export class SmokeFailure extends Error {
  override readonly name = 'SmokeFailure';
}

export type Skip = { skip: string };

export function fail(message: string): never {
  throw new SmokeFailure(message);
}

export function skip(reason: string): Skip {
  return { skip: reason };
}

export function check(condition: unknown, message: string): asserts condition {
  if (!condition) fail(message);
}

/** Builds a check; `kind` defaults to happy for a 2xx expectation and is explicit for negatives. */
export function happy(name: string, route: string, run: SmokeCheck['run'], extra: Partial<SmokeCheck> = {}): SmokeCheck {
  return { name, route, kind: 'happy', run, ...extra };
}

export function negative(name: string, route: string, run: SmokeCheck['run'], extra: Partial<SmokeCheck> = {}): SmokeCheck {
  return { name, route, kind: 'negative', run, ...extra };
}

/** "GET /v1/tasks/{task_id}" → "GET /v1/tasks/{}": the form routes are compared in. */
export function routeKey(route: string): string {
  return route.replace(/\{[^}]*\}/g, '{}');
}

export function summarize(checks: CheckOutcome[]): SmokeReport {
  const count = (s: CheckStatus) => checks.filter((c) => c.status === s).length;
  return { passed: count('passed'), failed: count('failed'), skipped: count('skipped'), checks };
}

/** Short, single-line text for any JSON value (failure details must stay one line). */
export function brief(value: unknown, max = 160): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  const line = text.replace(/\s+/g, ' ');
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
