// Every write route of the preview as a fault-script workload: what to create first, the i-th
// write (each unique), and how to find that write's event in the log afterwards — so a script can
// check that every acknowledged write survived a SIGKILL or a full disk.
import { callJson, type Target } from '../fuzz/exchange.ts';

export type LogEvent = { seq: number; kind: string; idempotency_key?: string | null; payload?: Record<string, any> };

export type WriteRequest = { method: string; path: string; auth: 'customer' | 'operator'; headers: Record<string, string>; body?: unknown };

export type WriteRoute = {
  name: string;
  /** Makes what `count` writes need (tasks to close, rules to delete…), before any fault. */
  prepare(target: Target, count: number): Promise<void>;
  request(i: number): WriteRequest;
  /** Whether the log holds the i-th write's event. */
  inLog(events: LogEvent[], i: number): boolean;
};

const SCOPE = { tenant_id: 'fault', workspace_id: 'ws-fault', project_id: 'proj-fault' };
const SCOPE_HEADERS = { 'X-Tenant-Id': SCOPE.tenant_id, 'X-Workspace-Id': SCOPE.workspace_id, 'X-Project-Id': SCOPE.project_id };
const SHA = 'a3f1c2d4e5b60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90';
const LINE = 'The exporter reads its key from vault path billing/exporter/signing';
const TRAP = 'Rotating without re-signing pending exports breaks the nightly upload';

async function must(what: string, call: Promise<{ status: number; json: unknown }>, ok: number[]): Promise<void> {
  const res = await call;
  if (!ok.includes(res.status)) throw new Error(`prepare: ${what} answered ${res.status}: ${JSON.stringify(res.json).slice(0, 300)}`);
}

const customer = (target: Target, method: string, path: string, body: unknown, key: string) =>
  callJson(target, method, path, { headers: { ...SCOPE_HEADERS, 'Idempotency-Key': key }, body });
const operator = (target: Target, method: string, path: string, body?: unknown) => callJson(target, method, path, { auth: 'operator', body });

const createTask = (target: Target, id: string) =>
  must(`create task ${id}`, customer(target, 'POST', '/v1/tasks', { task_id: id, title: 'Rotate the exporter signing key', session_id: 'sess-fault' }, `${id}-create`), [201]);

async function createTasks(target: Target, prefix: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) await createTask(target, `${prefix}-${i}`);
}

/** A /v1 write: the customer transport, the fault scope, and an Idempotency-Key that its event keeps. */
function v1(name: string, path: (i: number) => string, body: (i: number) => unknown, prepare: WriteRoute['prepare'] = async () => {}): WriteRoute {
  const key = (i: number) => `fault-${name.replace(/\W+/g, '-')}-${i}`;
  return {
    name,
    prepare,
    request: (i) => ({ method: 'POST', path: path(i), auth: 'customer', headers: { ...SCOPE_HEADERS, 'Idempotency-Key': key(i) }, body: body(i) }),
    inLog: (events, i) => events.some((e) => e.idempotency_key === key(i)),
  };
}

function forge(name: string, request: (i: number) => Omit<WriteRequest, 'auth' | 'headers'>, kind: string, match: (payload: Record<string, any>, i: number) => boolean, prepare: WriteRoute['prepare'] = async () => {}): WriteRoute {
  return {
    name,
    prepare,
    request: (i) => ({ ...request(i), auth: 'operator', headers: {} }),
    inLog: (events, i) => events.some((e) => e.kind === kind && match(e.payload ?? {}, i)),
  };
}

/** A registration of asset `id` (the n-th): a governance write of two events (the asset and its access entry). */
const assetBody = (id: string, n: number) => ({
  asset_id: id, name: `Fault assistant ${n}`, purpose: 'Summarise support tickets for the fault team', owner: { type: 'user', id: 'owner-fault' },
  deployment_context: 'support, internal, EU only', models: [{ provider: 'acme', name: 'chat-4' }], actor: { type: 'user', id: 'requester-fault' },
});
/** Assets the evaluations spread over: each evaluation supersedes the asset's previous one. */
const EVALUATED_ASSETS = 8;
/** gov.risk.default: tier high, so each evaluation is a unit of three events (evaluation, approval request, access entry). */
const HIGH_INPUTS = { data_sensitivity: 3, decision_impact: 3, autonomy: 2, vendor_maturity: 2, prohibited_practice: 0 };

const rule = (i: number) => `fault-rule-${i}`;
const group = (i: number) => `fault-group-${i}`;

async function createRules(target: Target, count: number): Promise<void> {
  for (let i = 0; i < count; i++) await must('create a rule', operator(target, 'POST', '/admin/quota/rules', { name: rule(i), limit: 1024, subjects: ['size:all'] }), [201]);
}
async function createGroups(target: Target, count: number, withRule: boolean, withUser: boolean): Promise<void> {
  for (let i = 0; i < count; i++) {
    await must('create a group', operator(target, 'POST', '/admin/quota/groups', { name: group(i), ...(withRule ? { rules: [{ name: rule(i), limit: 1024, subjects: ['size:all'] }] } : {}) }), [201]);
    if (withUser) await must('add a user', operator(target, 'PUT', `/admin/quota/groups/${group(i)}/users/alice`), [204]);
  }
}

export const WRITE_ROUTES: WriteRoute[] = [
  v1('POST /v1/events', () => '/v1/events', (i) => ({ kind: 'ext.fault.note', ...SCOPE, payload: { n: i, text: 'x'.repeat(200) } })),
  v1('POST /v1/tasks', () => '/v1/tasks', (i) => ({ task_id: `fault-task-${i}`, title: 'Rotate the exporter signing key', session_id: 'sess-fault' })),
  v1('POST /v1/tasks/{task_id}/checkpoints', () => '/v1/tasks/fault-hot/checkpoints', (i) => ({ progress: `Step ${i} of the rotation is done`, context_lines: [LINE] }),
    (target) => createTask(target, 'fault-hot')),
  v1('POST /v1/tasks/{task_id}/closeout', (i) => `/v1/tasks/fault-close-${i}/closeout`, () => ({
    outcome: 'completed', summary: 'Rotated the exporter signing key and re-signed the pending exports.',
    verification: ['Exporter test suite: 41 of 41 pass after the rotation'], context_lines: [LINE], future_agent_traps: [TRAP],
    evidence_refs: [{ artifact_id: 'ci-run-77', uri: 'https://ci.example.test/runs/77', evidence_type: 'log', sha256: SHA, confidence: 'claimed', redaction: 'none', content_trust: 'trusted_internal', captured_at: '2025-11-01T09:00:00Z' }],
  }), (target, count) => createTasks(target, 'fault-close', count)),
  v1('POST /v1/claim-boundaries/evaluate', () => '/v1/claim-boundaries/evaluate', (i) => ({ task_ids: ['fault-claims'], claims: [{ claim: `Claim ${i}: the staging key was rotated through the API.` }] }),
    (target) => createTask(target, 'fault-claims')),
  v1('POST /v1/proof-packets', () => '/v1/proof-packets', (i) => ({ task_ids: ['fault-packets'], non_claims: [`Packet ${i} makes no statement about production systems.`] }),
    (target) => createTask(target, 'fault-packets')),
  v1('POST /v1/governance/assets', () => '/v1/governance/assets', (i) => assetBody(`fault-asset-${i}`, i)),
  v1('POST /v1/risk/evaluations', () => '/v1/risk/evaluations', (i) => ({ asset_id: `fault-evaluated-${i % EVALUATED_ASSETS}`, risk_inputs: HIGH_INPUTS, actor: { type: 'user', id: 'requester-fault' } }),
    async (target) => {
      for (let n = 0; n < EVALUATED_ASSETS; n++) await must(`register asset ${n}`, customer(target, 'POST', '/v1/governance/assets', assetBody(`fault-evaluated-${n}`, n), `fault-evaluated-${n}-register`), [201]);
    }),
  v1('POST /v1/vendors', () => '/v1/vendors', (i) => ({ vendor_id: `fault-vendor-${i}`, name: `Fault vendor ${i}`, answers: [{ question_id: 'VQ-01', value: 'listed_with_versions' }] })),
  forge('POST /admin/quota/rules', (i) => ({ method: 'POST', path: '/admin/quota/rules', body: { name: rule(i), limit: 1024, subjects: ['size:all'] } }), 'quota.rule.created', (p, i) => p.name === rule(i)),
  forge('PATCH /admin/quota/rules/{quotarule}', (i) => ({ method: 'PATCH', path: `/admin/quota/rules/${rule(i)}`, body: { limit: 2048 } }), 'quota.rule.edited', (p, i) => p.name === rule(i), (t, n) => createRules(t, n)),
  forge('DELETE /admin/quota/rules/{quotarule}', (i) => ({ method: 'DELETE', path: `/admin/quota/rules/${rule(i)}` }), 'quota.rule.deleted', (p, i) => p.name === rule(i), (t, n) => createRules(t, n)),
  forge('POST /admin/quota/groups', (i) => ({ method: 'POST', path: '/admin/quota/groups', body: { name: group(i) } }), 'quota.group.created', (p, i) => p.name === group(i)),
  forge('DELETE /admin/quota/groups/{quotagroup}', (i) => ({ method: 'DELETE', path: `/admin/quota/groups/${group(i)}` }), 'quota.group.deleted', (p, i) => p.name === group(i), (t, n) => createGroups(t, n, false, false)),
  forge('PUT /admin/quota/groups/{quotagroup}/users/{username}', (i) => ({ method: 'PUT', path: `/admin/quota/groups/${group(i)}/users/alice` }), 'quota.group.user_added', (p, i) => p.group === group(i), (t, n) => createGroups(t, n, false, false)),
  forge('DELETE /admin/quota/groups/{quotagroup}/users/{username}', (i) => ({ method: 'DELETE', path: `/admin/quota/groups/${group(i)}/users/alice` }), 'quota.group.user_removed', (p, i) => p.group === group(i), (t, n) => createGroups(t, n, false, true)),
  forge('PUT /admin/quota/groups/{quotagroup}/rules/{quotarule}', (i) => ({ method: 'PUT', path: `/admin/quota/groups/${group(i)}/rules/${rule(i)}` }), 'quota.group.rule_added', (p, i) => p.group === group(i), async (t, n) => {
    await createRules(t, n);
    await createGroups(t, n, false, false);
  }),
  forge('DELETE /admin/quota/groups/{quotagroup}/rules/{quotarule}', (i) => ({ method: 'DELETE', path: `/admin/quota/groups/${group(i)}/rules/${rule(i)}` }), 'quota.group.rule_removed', (p, i) => p.group === group(i), (t, n) => createGroups(t, n, true, false)),
  forge('POST /admin/users/{username}/quota/groups', (i) => ({ method: 'POST', path: '/admin/users/alice/quota/groups', body: { groups: [group(i)] } }), 'quota.user.groups_set', (p, i) => Array.isArray(p.groups) && p.groups.includes(group(i)), (t, n) => createGroups(t, n, false, false)),
  forge('PUT /admin/forge/data', (i) => ({ method: 'PUT', path: '/admin/forge/data', body: { users: [{ login: 'alice' }, { login: `fault-user-${i}` }] } }), 'forge.data.replaced', (p, i) => Array.isArray(p.data?.users) && p.data.users.some((u: { login?: string }) => u.login === `fault-user-${i}`)),
];

/** The log's events, whole lines only (a torn last line is what a crash may leave; start-up cuts it). */
export function parseLog(text: string): LogEvent[] {
  const events: LogEvent[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    try {
      events.push(JSON.parse(line) as LogEvent);
    } catch {
      // a torn line
    }
  }
  return events;
}
