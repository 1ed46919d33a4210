// The fuzz run: for every operation of the served /openapi.json, one fast-check property whose
// cases are sent one at a time (so "a 4xx wrote nothing" can compare the log's event count before
// and after), checked against the invariants, and shrunk to a small counterexample on failure.
// Each operation's seed derives from the run's seed and the operation's key, so `--seed` replays.
import fc from 'fast-check';
import { eventCount, send, type Answer, type FuzzRequest } from './exchange.ts';
import { checkAnswer, type Violation } from './invariants.ts';
import { operationsOf, type OpenApiDoc } from './openapi-model.ts';
import { requestArb } from './request-arbitrary.ts';
import type { FuzzTarget } from './targets.ts';
import { buildWorld } from './world.ts';

export type FuzzOptions = {
  seed: number;
  /** Cases per operation. */
  runs: number;
  only?: RegExp;
  /** fast-check's replay path of one case (with --only naming one operation). */
  path?: string;
  /** The whole run stops sending after this many seconds (the operations left are reported). */
  maxSeconds: number;
  /** Shrinking one failure stops after this many seconds; the smallest failing case so far is reported. */
  shrinkSeconds: number;
  allowForgeWrites: boolean;
  progress?: (line: string) => void;
  /** One line per case (status, code, what was broken), e.g. to see why an operation answers 400 so often. */
  trace?: (line: string) => void;
};

export type Finding = {
  op: string;
  opSeed: number;
  path: string | null;
  shrinks: number;
  request: FuzzRequest;
  status: number;
  requestId: string | null;
  answer: string;
  violations: Violation[];
  /** The server's stderr record of the 5xx (its stack), when the fuzzer can read the server's stderr. */
  serverError: string | null;
};

export type OperationStats = { op: string; cases: number; statuses: Record<string, number> };

export type FuzzReport = {
  seed: number;
  runs: number;
  requests: number;
  operations: OperationStats[];
  findings: Finding[];
  /** Operations not run: the time budget ran out, or /health stopped answering. */
  notRun: string[];
  stoppedBecause: 'done' | 'time_budget' | 'health_down';
  elapsedMs: number;
};

/** 32-bit FNV-1a of the operation key, mixed with the run's seed. */
export function operationSeed(seed: number, key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return (h ^ seed) | 0;
}

export async function runFuzz(target: FuzzTarget, options: FuzzOptions): Promise<FuzzReport> {
  const started = Date.now();
  const deadline = started + options.maxSeconds * 1000;
  const progress = options.progress ?? (() => {});
  const docRes = await fetch(`${target.baseUrl}/openapi.json`, { signal: AbortSignal.timeout(30_000) });
  if (docRes.status !== 200) throw new Error(`GET /openapi.json answered ${docRes.status}`);
  const doc = (await docRes.json()) as OpenApiDoc;
  const forgeWrites = (target.own || options.allowForgeWrites) && target.forge !== false;
  // On a server of its own the tenants are fixed, so a seed replays the same requests; elsewhere
  // unique, unless the target names them (a hosted token must grant them before the run).
  const run = target.run ?? (target.own ? 'run' : `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`);
  const world = await buildWorld(target, run, forgeWrites);
  const ops = operationsOf(doc).filter((op) => (!options.only || options.only.test(op.key)) && (forgeWrites || op.family !== 'forge' || op.method === 'GET'));

  const report: FuzzReport = { seed: options.seed, runs: options.runs, requests: 0, operations: [], findings: [], notRun: [], stoppedBecause: 'done', elapsedMs: 0 };
  let count: number | null = null;
  for (const op of ops) {
    if (report.stoppedBecause !== 'done') {
      report.notRun.push(op.key);
      continue;
    }
    if (Date.now() > deadline) {
      report.stoppedBecause = 'time_budget';
      report.notRun.push(op.key);
      continue;
    }
    if (op.family === 'forge') await world.restoreForge();
    const stats: OperationStats = { op: op.key, cases: 0, statuses: {} };
    report.operations.push(stats);
    let shrinkUntil = Infinity;
    let last: { request: FuzzRequest; answer: Answer; violations: Violation[] } | null = null;
    const opSeed = operationSeed(options.seed, op.key);
    count = await eventCount(target);
    const property = fc.asyncProperty(requestArb(op, world, doc), async (request) => {
      // Past a budget, or with the server gone, every case "passes" unsent: fast-check then ends,
      // keeping the smallest failing case it had.
      if (Date.now() > shrinkUntil || report.stoppedBecause === 'health_down') return true;
      if (Date.now() > deadline) {
        report.stoppedBecause = 'time_budget';
        return true;
      }
      const before = count ?? (await eventCount(target));
      const answer = await send(target, request);
      // A request fetch itself refuses (an invalid header) is not a case: fast-check draws another.
      fc.pre(answer.status !== -1);
      count = await eventCount(target);
      report.requests++;
      stats.cases++;
      stats.statuses[answer.status] = (stats.statuses[answer.status] ?? 0) + 1;
      options.trace?.(`${answer.status} ${codeOf(answer.text)} ${request.method} ${request.path}${request.query.length ? `?${request.query.map(([k, v]) => `${k}=${v.slice(0, 40)}`).join('&')}` : ''} — ${request.notes.join('; ')}`);
      const violations = checkAnswer(op.family, answer, { before, after: count, appended: () => (before === null ? null : target.eventsAfter(before)) });
      if (violations.length === 0) return true;
      if (shrinkUntil === Infinity) shrinkUntil = Date.now() + options.shrinkSeconds * 1000;
      last = { request, answer, violations };
      if (count === null) report.stoppedBecause = 'health_down';
      return false;
    });
    // With a path, fast-check replays that one case (and the shrink steps the path names) alone.
    const result = await fc.check(property, { seed: opSeed, numRuns: options.path ? 1 : options.runs, ...(options.path ? { path: options.path } : {}) });
    const failure = last as { request: FuzzRequest; answer: Answer; violations: Violation[] } | null;
    if (result.failed && failure) {
      const requestId = failure.answer.headers?.get('x-request-id') ?? null;
      report.findings.push({
        op: op.key,
        opSeed,
        path: result.counterexamplePath,
        shrinks: result.numShrinks,
        request: failure.request,
        status: failure.answer.status,
        requestId,
        answer: failure.answer.status === 0 ? (failure.answer.error ?? '') : failure.answer.text.slice(0, 500),
        violations: failure.violations,
        serverError: failure.answer.status >= 500 ? await serverErrorOf(target, requestId) : null,
      });
    } else if (result.failed) {
      throw new Error(`${op.key}: fast-check failed outside a request: ${String(result.errorInstance)}`);
    }
    progress(`${failure && result.failed ? '✗' : '✓'} ${op.key}  ${summarize(stats)}`);
  }
  report.elapsedMs = Date.now() - started;
  return report;
}

async function serverErrorOf(target: FuzzTarget, requestId: string | null): Promise<string | null> {
  for (let i = 0; i < 5; i++) {
    const record = target.serverError(requestId);
    if (record !== null) return record;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return null;
}

function codeOf(text: string): string {
  try {
    const body = JSON.parse(text) as { code?: unknown; message?: unknown };
    return typeof body.code === 'string' ? body.code : typeof body.message === 'string' ? JSON.stringify(body.message.slice(0, 60)) : '';
  } catch {
    return '';
  }
}

export function summarize(stats: OperationStats): string {
  return Object.entries(stats.statuses).sort(([a], [b]) => a.localeCompare(b)).map(([status, n]) => `${status}×${n}`).join(' ');
}

