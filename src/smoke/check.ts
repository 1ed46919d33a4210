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
  /**
   * A step of a round that creates, reads, edits and deletes its own objects: every step relies on
   * the ones before it and the last ones clean up, so --grep of any step runs its family's round whole.
   */
  round?: boolean;
  /** Checks that share state (a task, a packet, the quota policy); set by the suite. */
  family?: string;
  /**
   * What the check (with the set-up it relies on) writes, when its route and `needs` do not say it
   * (a read that only makes sense after a forge write, for instance). See `checkReach`.
   */
  writes?: WriteReach;
  run: (ctx: SmokeCtx) => Promise<void | Skip>;
};

/**
 * How far a run may write, in order: nothing (`--read-only`), only in the run's own `smoke-<run id>`
 * tenants (the default against a server smoke did not start), or also the forge's shared state —
 * quota rules, groups, assignments and the forge data set, restored at the end
 * (`--allow-forge-writes`, and the throw-away preview).
 */
export type WriteReach = 'none' | 'smoke_tenant' | 'forge';
const REACH_ORDER: WriteReach[] = ['none', 'smoke_tenant', 'forge'];

export function reachAllows(allowed: WriteReach, needed: WriteReach): boolean {
  return REACH_ORDER.indexOf(needed) <= REACH_ORDER.indexOf(allowed);
}

/** POSTs under /v1/ that compute an answer and write nothing (docs/contract.md §2). */
export const COMPUTE_ONLY = new Set(['POST /v1/templates/validate', 'POST /v1/signatures/verify']);
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The console's sign-in routes: they keep an in-memory code or session, never anything stored. */
const SESSION_ONLY = new Set(['POST /admin/console/login-codes', 'POST /console/logout']);

/** What a request on this route may write: /v1/ writes land in the caller's scope, the rest is forge state. */
export function routeReach(route: string): WriteReach {
  const [method = '', path = ''] = route.split(' ');
  if (SAFE_METHODS.has(method) || COMPUTE_ONLY.has(`${method} ${path}`) || SESSION_ONLY.has(`${method} ${path}`)) return 'none';
  return path.startsWith('/v1/') ? 'smoke_tenant' : 'forge';
}

/** A check reaches as far as its route, the set-up routes it needs, or its declared `writes` (which only widens). */
export function checkReach(check: Pick<SmokeCheck, 'route' | 'needs' | 'writes'>): WriteReach {
  const reaches = [...[check.route, ...(check.needs ?? [])].map(routeReach), check.writes ?? 'none'];
  return REACH_ORDER[Math.max(...reaches.map((r) => REACH_ORDER.indexOf(r)))]!;
}

export type CheckStatus = 'passed' | 'failed' | 'skipped';
export type CheckOutcome = { name: string; route: string; status: CheckStatus; detail: string };
export type SmokeCounts = { passed: number; failed: number; skipped: number; checks: CheckOutcome[] };
/** The counts, the run id (its tenants are `smoke-<run_id>…`) and how far the run was allowed to write. */
/** The classes of the routes the server listed: every served route is live or preview once nothing is target. */
export type RouteClasses = { live: number; preview: number; target: number };

export type SmokeReport = SmokeCounts & { run_id: string; writes: WriteReach; route_classes?: RouteClasses };

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
  return route.replace(/\{[^{}]*\}/g, '{}');
}

export function summarize(checks: CheckOutcome[]): SmokeCounts {
  const count = (s: CheckStatus) => checks.filter((c) => c.status === s).length;
  return { passed: count('passed'), failed: count('failed'), skipped: count('skipped'), checks };
}

/** Short, single-line text for any JSON value (failure details must stay one line). */
export function brief(value: unknown, max = 160): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  const line = text.replace(/\s+/g, ' ');
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
