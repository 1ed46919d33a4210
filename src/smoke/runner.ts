// Runs the smoke suite against one target: reads its /health route list and its own /openapi.json,
// runs every check family in order (skipping, with the reason, what the server does not list, what
// needs a token the caller lacks, or what writes further than the run may), then the coverage
// rule, and returns the report.
import { createClient } from '../client/client.ts';
import { AppError } from '../errors.ts';
import { checkReach, reachAllows, routeKey, routeReach, SmokeFailure, summarize, type CheckOutcome, type RouteClasses, type SmokeCheck, type SmokeReport, type WriteReach } from './check.ts';
import { genericChecks, type ListedRoute } from './checks-generic.ts';
import { governanceChecks } from './checks-governance.ts';
import { proofChecks } from './checks-proofs.ts';
import { apiConsoleChecks } from './checks-api-console.ts';
import { consoleAuthChecks } from './checks-console-auth.ts';
import { consoleChecks } from './checks-console.ts';
import { publicChecks } from './checks-public.ts';
import { readChecks } from './checks-reads.ts';
import { quotaAdminChecks } from './checks-quota-admin.ts';
import { quotaEvalChecks } from './checks-quota-eval.ts';
import { quotaReadChecks } from './checks-quota-reads.ts';
import { regulatoryChecks } from './checks-regulatory.ts';
import { dashboardChecks } from './checks-dashboard.ts';
import { exportChecks } from './checks-exports.ts';
import { incidentChecks } from './checks-incidents.ts';
import { scopeReadChecks } from './checks-scope-reads.ts';
import { sessionChecks } from './checks-sessions.ts';
import { taskReadChecks } from './checks-task-reads.ts';
import { taskChecks } from './checks-tasks.ts';
import { templateChecks } from './checks-templates.ts';
import { eventChecks } from './checks-events.ts';
import { createSmokeCtx, isListed, type SmokeCtx, type SmokeTarget } from './context.ts';
import { createResponseValidator, type ResponseValidator } from './response-validator.ts';

export type RunOptions = {
  runId: string;
  /** How far the run may write (default 'forge': everything, as against the throw-away preview). */
  reach?: WriteReach;
  grep?: RegExp;
  /** Called before each check runs (the CLI draws its progress line with it). */
  progress?: (done: number, total: number, name: string) => void;
  /** Set when the user interrupts: the checks not yet run are reported as skipped. */
  interrupted?: () => boolean;
};

export const FORGE_PREFIX = '/api/v1';
export const COVERAGE_CHECK = 'coverage: every listed route has a happy-path check';

/** Every check, in the order they run: later families use what earlier ones created. */
export function smokeSuite(routes: ListedRoute[], doc: Record<string, any> | null): SmokeCheck[] {
  const quota = quotaEvalChecks();
  const family = (name: string, checks: SmokeCheck[]) => checks.map((c) => ({ ...c, family: name }));
  return [
    ...family('public', publicChecks()),
    ...family('console', consoleChecks()),
    ...family('console-auth', consoleAuthChecks()),
    ...family('templates', templateChecks()),
    ...family('reads', readChecks()),
    ...family('events', eventChecks()),
    ...family('governance', governanceChecks()),
    ...family('regulatory', regulatoryChecks()),
    ...family('incidents', incidentChecks()),
    ...family('sessions', sessionChecks()),
    ...family('exports', exportChecks()),
    ...family('dashboard', dashboardChecks()),
    ...family('tasks', [...taskChecks(), ...taskReadChecks(), ...proofChecks(), ...apiConsoleChecks()]),
    // After the families that write tenant A, so a run with writes reads what they left.
    ...family('scope reads', scopeReadChecks()),
    ...family('quota', [
      ...quota.setup, ...quotaAdminChecks(''), ...quotaAdminChecks(FORGE_PREFIX),
      ...quotaReadChecks(''), ...quotaReadChecks(FORGE_PREFIX), ...quota.teardown,
    ]),
    ...family('generic', genericChecks(routes, doc)),
  ];
}

/** The checks --grep names, plus the set-up and clean-up of every family they belong to (and its round, if it is one). */
export function selectChecks(suite: SmokeCheck[], grep: RegExp | undefined): SmokeCheck[] {
  if (!grep) return suite;
  const families = new Set(suite.filter((c) => grep.test(c.name)).map((c) => c.family));
  return suite.filter((c) => grep.test(c.name) || ((c.always === true || c.round === true) && families.has(c.family)));
}

export async function runSmoke(target: SmokeTarget, options: RunOptions): Promise<SmokeReport> {
  const client = createClient({ baseUrl: target.baseUrl, token: null });
  const health = await client.health();
  // Any server may be pointed at: its answer is checked, not trusted to be what the type says.
  if (health.status !== 200 || !Array.isArray(health.body?.routes)) {
    throw new AppError('api_error', `${target.baseUrl}/health answered ${health.status} without a route list; point --base-url at a gov server.`);
  }
  const routes: ListedRoute[] = health.body.routes;
  const openapi = await client.request('GET', '/openapi.json');
  const doc = openapi.status === 200 && openapi.body && typeof openapi.body === 'object' ? (openapi.body as Record<string, any>) : null;
  let validator: ResponseValidator | null = null;
  try {
    validator = doc ? createResponseValidator(doc) : null;
  } catch {
    validator = null; // the public check on /openapi.json reports the broken document
  }
  const listed = new Set(routes.map((r) => routeKey(`${r.method} ${r.path}`)));
  const ctx = createSmokeCtx(target, options.runId, validator, listed, options.reach ?? 'forge', health.body.mode === 'hosted');
  const suite = smokeSuite(routes, doc);
  const selected = selectChecks(suite, options.grep);
  // A pattern that names no check would pass having checked nothing.
  if (options.grep && !suite.some((c) => options.grep!.test(c.name))) {
    throw new AppError('usage_error', `No smoke check's name matches --grep ${options.grep.source}; run gov smoke --json and read the checks' names, or widen the pattern.`);
  }
  const outcomes: CheckOutcome[] = [];
  for (const [i, check] of selected.entries()) {
    options.progress?.(i, selected.length, check.name);
    outcomes.push(options.interrupted?.() ? outcome(check, 'skipped', 'interrupted') : await runOne(ctx, check));
  }
  // Coverage is a property of the whole suite, so a --grep run (a part of it) does not judge it.
  if (!options.grep) outcomes.push(coverageOutcome(suite, routes, outcomes));
  return { ...summarize(outcomes), run_id: options.runId, writes: ctx.reach, route_classes: routeClasses(health.body.routes) };
}

/** How many of the routes /health lists are live, preview and target (a route without a class is counted as target). */
export function routeClasses(routes: readonly { status?: unknown }[]): RouteClasses {
  const out: RouteClasses = { live: 0, preview: 0, target: 0 };
  for (const r of routes) {
    if (r.status === 'live') out.live++;
    else if (r.status === 'preview') out.preview++;
    else out.target++;
  }
  return out;
}

async function runOne(ctx: SmokeCtx, check: SmokeCheck): Promise<CheckOutcome> {
  for (const route of [check.route, ...(check.needs ?? [])]) {
    if (!isListed(ctx.listed, route)) return outcome(check, 'skipped', `the server does not list ${route}`);
  }
  if (check.operator && ctx.target.tokens.operator === null) {
    return outcome(check, 'skipped', 'needs the operator token; the token file holds only a customer token');
  }
  const reach = checkReach(check);
  if (!reachAllows(ctx.reach, reach)) return outcome(check, 'skipped', ctx.reach === 'none' ? readOnlySkipOf(check) : FORGE_SKIP);
  try {
    const result = await check.run(ctx);
    return result ? outcome(check, 'skipped', result.skip) : outcome(check, 'passed', '');
  } catch (err) {
    if (err instanceof SmokeFailure || err instanceof AppError) return outcome(check, 'failed', err.message);
    return outcome(check, 'failed', `unexpected error: ${(err as Error)?.message ?? String(err)}`);
  }
}

/**
 * Fails when a route the server lists has no happy-path check in the suite. Given the run's
 * outcomes, it passes only when every listed route had a happy-path check that ran and passed:
 * routes whose happy-path checks were all skipped (--read-only, forge writes not allowed, no
 * operator token) make it `skipped`, naming them, so a partial run never reads as full coverage.
 */
export function coverageOutcome(suite: SmokeCheck[], routes: ListedRoute[], outcomes?: readonly CheckOutcome[]): CheckOutcome {
  const covered = new Set(suite.filter((c) => c.kind === 'happy').map((c) => routeKey(c.route)));
  const listed = routes.map((r) => `${r.method} ${r.path}`);
  const missing = listed.filter((r) => !covered.has(routeKey(r)));
  if (missing.length > 0) return { name: COVERAGE_CHECK, route: '*', status: 'failed', detail: `no happy-path check for ${missing.join(', ')}` };
  if (outcomes === undefined) return { name: COVERAGE_CHECK, route: '*', status: 'passed', detail: '' };
  const happy = new Set(suite.filter((c) => c.kind === 'happy').map((c) => c.name));
  const called = new Set(outcomes.filter((o) => happy.has(o.name) && o.status !== 'skipped').map((o) => routeKey(o.route)));
  const uncalled = listed.filter((r) => !called.has(routeKey(r)));
  if (uncalled.length === 0) return { name: COVERAGE_CHECK, route: '*', status: 'passed', detail: '' };
  // Each route under the reason its last skipped happy-path check gave (the later families' reads
  // say more than the set-up they share), so the report says what the mode skipped and why.
  const reasonOf = new Map<string, string>();
  for (const o of outcomes) if (happy.has(o.name) && o.status === 'skipped') reasonOf.set(routeKey(o.route), o.detail);
  const byReason = new Map<string, string[]>();
  for (const r of uncalled) {
    const reason = reasonOf.get(routeKey(r)) ?? 'no happy-path check ran';
    byReason.set(reason, [...(byReason.get(reason) ?? []), r]);
  }
  return {
    name: COVERAGE_CHECK, route: '*', status: 'skipped',
    detail: `${uncalled.length} of ${listed.length} listed routes got no happy-path call in this run: ${[...byReason].map(([reason, routes]) => `${reason} — ${routes.join(', ')}`).join('; ')}`,
  };
}

export const READ_ONLY_SKIP = '--read-only: the check sends a write';
export const READ_ONLY_LOGGED_SKIP = '--read-only: reading this route appends an access.logged entry (docs/contract.md), a write';
export const READ_ONLY_SETUP_SKIP = '--read-only: the check needs what its set-up writes first';

/**
 * The GET routes whose every answer appends an access.logged entry (viewed, exported): --read-only
 * cannot call them. Their refusals (401, 400) write nothing and still run.
 */
export const ACCESS_LOGGED_READS: ReadonlySet<string> = new Set([
  'GET /v1/proof-packets/{}', 'GET /v1/proof-packets/{}/redaction-manifest', 'GET /v1/proof-packets/{}/attestation', 'GET /v1/receipts/{}',
  'GET /v1/governance/assets/{}/evidence', 'GET /v1/sessions/{}/provenance', 'GET /v1/access-log', 'GET /v1/exports/{}',
]);

/** Why --read-only skips a check: its route writes, reading its route is access-logged, or its set-up writes. */
function readOnlySkipOf(check: SmokeCheck): string {
  if (routeReach(check.route) !== 'none') return READ_ONLY_SKIP;
  return ACCESS_LOGGED_READS.has(routeKey(check.route)) ? READ_ONLY_LOGGED_SKIP : READ_ONLY_SETUP_SKIP;
}
export const FORGE_SKIP = "writes the forge's quota rules, groups or data set; --allow-forge-writes includes it (restored at the end)";

function outcome(check: SmokeCheck, status: CheckOutcome['status'], detail: string): CheckOutcome {
  return { name: check.name, route: check.route, status, detail };
}
