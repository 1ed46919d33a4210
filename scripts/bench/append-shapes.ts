// The write shapes the appends section sends, modelled on what integrators' adapters send: every
// request keyed and, where its schema allows, carrying an actor; bodies of realistic size whose
// text varies from request to request, so parsing, canonical JSON and the search index do real work.
import { createHash } from 'node:crypto';
import type { Send } from './http-load.ts';

export type Scope = { tenant_id: string; workspace_id: string; project_id: string };

export type ShapeName = 'spread' | 'no_task' | 'hot_task' | 'evidence' | 'checkpoint';

export type Shape = {
  name: ShapeName;
  /** What the shape stands for, for progress lines and the JSON results. */
  describe: string;
  /** Tasks the shape writes into; created (and never closed) before anything is measured. */
  taskIds: string[];
  /** Request i; `keyPrefix` makes its Idempotency-Key unique to one run of one server. */
  request(keyPrefix: string, i: number): Send;
};

export const SPREAD_TASKS = 64;
const SESSION_ID = 'sess-bench-1';
const ACTOR = { type: 'agent', id: 'agent-bench-1' } as const;
const CAPTURED_FROM = Date.parse('2026-11-01T09:00:00Z');

const SUBJECTS = ['the billing exporter', 'the invoice renderer', 'the search indexer', 'the canary fleet', 'the nightly backup job', 'the auth gateway', 'the webhook relay', 'the ledger reconciler', 'the report scheduler', 'the tenant provisioning worker', 'the rate limiter', 'the CSV importer', 'the audit trail writer'];
const ACTIONS = ['finished migrating', 'rolled back the last change to', 're-ran the integration suite against', 'rotated the credentials of', 'profiled', 'patched the retry logic in', 'added structured logging to', 'pinned the dependencies of', 'raised the timeouts of', 'split the configuration of', 'wrote regression tests for'];
const OUTCOMES = ['all checks green', 'two flaky tests quarantined', 'p95 latency down by a third', 'one warning left about deprecated flags', 'waiting on a reviewer', 'canary healthy for twenty minutes', 'no behaviour change expected', 'memory flat under the soak test'];
const DETAILS = [
  'The failure reproduced only when the queue held more than one batch, which points at the ordering of acknowledgements.',
  'Staging and production share the vault path, so the rotation had to happen in one window for both.',
  'The retry budget was exhausted by a single slow upstream; the fix caps each attempt instead of the total.',
  'A schema change from last week left one nullable column that the exporter still treats as required.',
  'Logs show the worker restarting every few hours; the heap grows with each tenant it provisions.',
  'The importer mis-reads quoted commas in the description column of files exported by the old tool.',
  'Two services disagreed on the time zone of the billing cut-off, shifting invoices by one day.',
  'The cache key omitted the workspace id, so two workspaces could briefly see each other’s totals.',
  'After the upgrade the TLS handshake to the payment provider takes longer; connection reuse hides most of it.',
  'A feature flag defaulted to on in the new region; it is now explicit in every environment file.',
  'The scheduler double-fired on the daylight-saving change; jobs are now keyed by their UTC start.',
];
const TOOLS = ['shell', 'editor', 'test-runner', 'browser', 'sql-console', 'log-search'];
const DIRS = ['billing', 'exporter', 'search', 'auth', 'ledger', 'reports', 'webhooks'];
const FILES = ['handler', 'retry-policy', 'schema', 'client', 'worker', 'config', 'queue'];

/** Element i of a list, cycling; callers scale i differently per field so the fields vary independently. */
function pick<T>(list: readonly T[], i: number): T {
  return list[i % list.length]!;
}

/** A ~0.8 KB note: several text fields of varied wording and a few numbers, as an agent's step log reads. */
function notePayload(i: number): Record<string, unknown> {
  return {
    summary: `Step ${i}: ${pick(ACTIONS, i)} ${pick(SUBJECTS, i * 7 + 3)}; ${pick(OUTCOMES, i * 3 + 1)}.`,
    // Offsets distinct modulo DETAILS.length: four different sentences, in an order that varies.
    detail: `${pick(DETAILS, i)} ${pick(DETAILS, i + 3)} ${pick(DETAILS, i + 7)} ${pick(DETAILS, i + 9)}`,
    next_step: `${pick(ACTIONS, i * 5 + 4)} ${pick(SUBJECTS, i * 11 + 5)} once ${pick(OUTCOMES, i * 7 + 2)}`,
    tool: pick(TOOLS, i * 13),
    file: `src/${pick(DIRS, i * 3)}/${pick(FILES, i * 5 + 1)}.ts`,
    command: `npm test -- --grep "${pick(FILES, i + 2)}" --reporter dot --seed ${(i * 7919) % 100_003}`,
    duration_ms: 40 + ((i * 7919) % 9_000),
    tokens_used: 300 + ((i * 104_729) % 6_000),
    exit_code: i % 23 === 0 ? 1 : 0,
  };
}

function evidenceRefs(i: number): unknown[] {
  const capturedAt = new Date(CAPTURED_FROM + i * 1000).toISOString();
  const common = { confidence: 'claimed', redaction: 'none', content_trust: 'trusted_internal', captured_at: capturedAt };
  return [
    { artifact_id: `ci-run-${i}`, uri: `https://ci.example.test/acme/billing/runs/${i}`, evidence_type: 'log', sha256: createHash('sha256').update(`ci log ${i}`).digest('hex'), ...common },
    { artifact_id: `pr-${1000 + (i % 5000)}-rev-${i}`, uri: `https://git.example.test/acme/billing/pull/${1000 + (i % 5000)}`, evidence_type: 'commit', etag: `W/"${(i * 2654435761 >>> 0).toString(16)}"`, ...common },
  ];
}

function checkpointBody(taskId: string, i: number): Record<string, unknown> {
  return {
    progress: `Step ${i} of ${taskId}: ${pick(ACTIONS, i)} ${pick(SUBJECTS, i * 7 + 3)}; ${pick(OUTCOMES, i * 3 + 1)}.`,
    next_actions: [`Re-run the ${pick(FILES, i)} tests for ${taskId} on the next build`, `Ask the owner of ${pick(SUBJECTS, i * 5)} to review the change`],
    context_lines: [
      `${taskId}: ${pick(DETAILS, i * 5 + 2)}`,
      `${taskId} touches src/${pick(DIRS, i * 3)}/${pick(FILES, i * 5 + 1)}.ts; build ${1000 + i} was the last green one`,
    ],
  };
}

/**
 * The five shapes. Each has its own task ids so the shapes do not share a task's state; `headers`
 * (scope and token) go on every request, to the preview and the no-op server alike.
 */
export function appendShapes(scope: Scope, headers: Record<string, string>): Shape[] {
  const write = { ...headers, 'Content-Type': 'application/json' };
  const keyed = (key: string) => ({ ...write, 'Idempotency-Key': key });
  const tasks = (shape: string, n: number) => Array.from({ length: n }, (_, t) => `task-bench-${shape}-${t}`);
  const event = (i: number, taskId: string | undefined, extra: Record<string, unknown>) => JSON.stringify({
    kind: 'ext.bench.note', ...scope, ...(taskId === undefined ? {} : { task_id: taskId }), session_id: SESSION_ID, actor: ACTOR, payload: notePayload(i), ...extra,
  });
  const spread = tasks('spread', SPREAD_TASKS);
  const hot = tasks('hot', 1);
  const evidence = tasks('evidence', SPREAD_TASKS);
  const checkpoint = tasks('checkpoint', SPREAD_TASKS);
  return [
    { name: 'spread', describe: `ext.* note, ~0.8 KB payload, over ${SPREAD_TASKS} tasks`, taskIds: spread, request: (k, i) => ({ path: '/v1/events', headers: keyed(`${k}-${i}`), body: event(i, pick(spread, i), {}) }) },
    { name: 'no_task', describe: 'ext.* note, ~0.8 KB payload, no task (session-level)', taskIds: [], request: (k, i) => ({ path: '/v1/events', headers: keyed(`${k}-${i}`), body: event(i, undefined, {}) }) },
    { name: 'hot_task', describe: 'ext.* note, ~0.8 KB payload, every event into one task', taskIds: hot, request: (k, i) => ({ path: '/v1/events', headers: keyed(`${k}-${i}`), body: event(i, hot[0], {}) }) },
    {
      name: 'evidence', describe: `evidence.attached with two evidence_refs over ${SPREAD_TASKS} tasks`, taskIds: evidence,
      request: (k, i) => ({
        path: '/v1/events',
        headers: keyed(`${k}-${i}`),
        body: JSON.stringify({ kind: 'evidence.attached', ...scope, task_id: pick(evidence, i), session_id: SESSION_ID, actor: ACTOR, payload: {}, evidence_refs: evidenceRefs(i) }),
      }),
    },
    {
      // schemas/api/checkpoint-request.json has no actor member (the route derives it), so none is sent.
      name: 'checkpoint', describe: `POST /v1/tasks/{id}/checkpoints over ${SPREAD_TASKS} tasks`, taskIds: checkpoint,
      request: (k, i) => ({ path: `/v1/tasks/${pick(checkpoint, i)}/checkpoints`, headers: keyed(`${k}-${i}`), body: JSON.stringify(checkpointBody(pick(checkpoint, i), i)) }),
    },
  ];
}

/** The POST /v1/tasks request that creates task n of a shape (never closed by the bench). */
export function createTaskRequest(headers: Record<string, string>, keyPrefix: string, taskId: string, n: number): Send {
  return {
    path: '/v1/tasks',
    headers: { ...headers, 'Content-Type': 'application/json', 'Idempotency-Key': `${keyPrefix}-${taskId}` },
    body: JSON.stringify({ task_id: taskId, title: `Benchmark: ${pick(ACTIONS, n)} ${pick(SUBJECTS, n * 7)}`, session_id: SESSION_ID }),
  };
}
