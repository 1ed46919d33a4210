// The state the fuzzer's requests aim at, made through the API before the first fuzzed request:
// an open and a closed task with a checkpoint and evidence, a signed and receipted packet, the same
// in a second scope (for "an id of another scope"), and quota rules and groups — plus a corpus of
// known-good bodies per operation, which the fuzzer mutates alongside schema-generated ones.
import { callJson, type Target } from './exchange.ts';
import type { Pools } from './schema-arbitrary.ts';

export type Scope = { tenant_id: string; workspace_id: string; project_id: string };

/** Path parameter name → ids that exist in scope A, ids that exist only in scope B. */
export type KnownIds = Record<string, { own: string[]; other: string[] }>;

export type World = {
  scopeA: Scope;
  scopeB: Scope;
  ids: KnownIds;
  pools: Pools;
  /** "METHOD /path" (forge paths without /api/v1) → bodies that pass the route's schema. */
  corpus: Record<string, unknown[]>;
  /** Whether the fuzzer may write the forge's shared state (rules, groups, the forge data set). */
  forgeWrites: boolean;
  /**
   * Puts the forge state the ids name back (rules, the group, its members, the data set) after the
   * cases of an operation deleted or replaced it, so that the next operation's known ids exist.
   */
  restoreForge: () => Promise<void>;
};

export function scopeHeaders(scope: Scope): Record<string, string> {
  return { 'X-Tenant-Id': scope.tenant_id, 'X-Workspace-Id': scope.workspace_id, 'X-Project-Id': scope.project_id };
}

const SHA = 'a3f1c2d4e5b60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90';
const TEXTS = [
  'The exporter reads its key from vault path billing/exporter/signing',
  'Rotating without re-signing pending exports breaks the nightly upload',
  'Exporter test suite: 41 of 41 pass after the rotation',
  'Staging and production share the vault path billing/exporter',
  'Rotate the production signing key after the staging soak',
  'The staging key was rotated through the API and checked by CI',
];

const evidenceRef = (artifactId: string) => ({
  artifact_id: artifactId, uri: `https://ci.example.test/runs/${artifactId}`, evidence_type: 'log', sha256: SHA,
  confidence: 'claimed', redaction: 'none', content_trust: 'trusted_internal', captured_at: '2025-11-01T09:00:00Z',
});

const closeoutBody = (artifactId: string) => ({
  outcome: 'completed',
  summary: 'Rotated the exporter signing key and re-signed the pending exports.',
  verification: [TEXTS[2]],
  evidence_refs: [evidenceRef(artifactId)],
  context_lines: [TEXTS[0]],
  future_agent_traps: [TEXTS[1]],
});

async function expectStatus(what: string, call: Promise<{ status: number; json: any }>, ok: number[]): Promise<any> {
  const res = await call;
  if (!ok.includes(res.status)) throw new Error(`fuzz setup: ${what} answered ${res.status}: ${JSON.stringify(res.json).slice(0, 500)}`);
  return res.json;
}

/** `run` names this run's tenants: fixed on a preview of its own, unique on a shared server. */
export async function buildWorld(target: Target, run: string, forgeWrites: boolean): Promise<World> {
  const scopeA: Scope = { tenant_id: `fuzz-${run}-a`, workspace_id: 'ws-fuzz', project_id: 'proj-fuzz' };
  const scopeB: Scope = { tenant_id: `fuzz-${run}-b`, workspace_id: 'ws-fuzz', project_id: 'proj-fuzz' };
  const call = (scope: Scope, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    callJson(target, method, path, { headers: { ...scopeHeaders(scope), ...headers }, body });

  const seedScope = async (scope: Scope, prefix: string) => {
    const open = `${prefix}-task-open`;
    const closed = `${prefix}-task-closed`;
    const artifact = `${prefix}-artifact-1`;
    await expectStatus('create the open task', call(scope, 'POST', '/v1/tasks', { task_id: open, title: 'Rotate the exporter signing key', session_id: `${prefix}-session-1`, labels: ['fuzz'] }), [201]);
    await expectStatus('checkpoint', call(scope, 'POST', `/v1/tasks/${open}/checkpoints`, { progress: 'Rotated in staging', next_actions: [TEXTS[4]], context_lines: [TEXTS[3]] }), [201]);
    await expectStatus('attach evidence', call(scope, 'POST', '/v1/events', { kind: 'evidence.attached', ...scope, task_id: open, payload: {}, evidence_refs: [evidenceRef(artifact)] }, { 'Idempotency-Key': `${prefix}-attach-1` }), [201]);
    await expectStatus('create the closed task', call(scope, 'POST', '/v1/tasks', { task_id: closed, title: 'Re-sign the archived exports', session_id: `${prefix}-session-1` }), [201]);
    await expectStatus('close it', call(scope, 'POST', `/v1/tasks/${closed}/closeout`, closeoutBody(`${prefix}-artifact-2`)), [201]);
    const packet = await expectStatus('assemble a packet', call(scope, 'POST', '/v1/proof-packets', {
      task_ids: [open, closed], integrity_class: 'signed_and_receipted',
      claims: [{ claim: TEXTS[5], evidence: [artifact] }, { claim: 'We make no statement about production systems.', kind: 'non_claim' }],
    }), [201]);
    return { tasks: [open, closed], sessions: [`${prefix}-session-1`], artifacts: [artifact, `${prefix}-artifact-2`], packetId: packet.packet_id as string, receiptId: packet.receipt_id as string, packet };
  };
  const a = await seedScope(scopeA, 'fz');
  const b = await seedScope(scopeB, 'fzb');

  const rules = ['fz-rule-1', 'fz-rule-2'];
  const groups = ['fz-group-1'];
  const op = (method: string, path: string, body?: unknown) => callJson(target, method, path, { auth: 'operator', body });
  const forgeData: unknown = forgeWrites ? await expectStatus('read the forge data', op('GET', '/admin/forge/data'), [200]) : null;
  // 409: it is there already. Each step is idempotent, so restoring is running them again.
  const restoreForge = async () => {
    if (!forgeWrites) return;
    const now = await expectStatus('read the forge data', op('GET', '/admin/forge/data'), [200]);
    if (JSON.stringify(now) !== JSON.stringify(forgeData)) await expectStatus('restore the forge data', op('PUT', '/admin/forge/data', forgeData), [204]);
    await expectStatus('create a quota rule', op('POST', '/admin/quota/rules', { name: rules[0], limit: 1_048_576, subjects: ['size:all'] }), [201, 409]);
    await expectStatus('create a quota rule', op('POST', '/admin/quota/rules', { name: rules[1], limit: 0, subjects: ['size:git:lfs'] }), [201, 409]);
    await expectStatus('create a quota group', op('POST', '/admin/quota/groups', { name: groups[0] }), [201, 409]);
    for (const rule of rules) await expectStatus('add a rule to the group', op('PUT', `/admin/quota/groups/${groups[0]}/rules/${rule}`), [204, 409]);
    await expectStatus('add a user to the group', op('PUT', `/admin/quota/groups/${groups[0]}/users/alice`), [204, 409]);
  };
  await restoreForge();

  const ids: KnownIds = {
    task_id: { own: a.tasks, other: b.tasks },
    packet_id: { own: [a.packetId], other: [b.packetId] },
    receipt_id: { own: [a.receiptId], other: [b.receiptId] },
    template_id: { own: ['task_closeout.v1', 'closeout', 'task.create.v1', 'checkpoint.write.v1', 'evidence.attach.v1', 'risk.evaluate.v1'], other: ['task-closeout'] },
    quotarule: { own: rules, other: ['no-such-rule'] },
    quotagroup: { own: groups, other: ['no-such-group'] },
    username: { own: ['alice', 'bob', 'carol', 'forge-admin'], other: ['acme-org', 'nobody'] },
    org: { own: ['acme-org'], other: ['alice', 'no-such-org'] },
  };
  const pools: Pools = {
    ids: [...new Set([...Object.values(scopeA), ...a.tasks, ...a.sessions, ...a.artifacts, ...b.tasks, ...rules, ...groups, 'alice', 'acme-org', 'task_closeout.v1'])],
    texts: TEXTS,
  };
  const claims = [{ claim: TEXTS[5], evidence: [a.artifacts[0]] }, { claim: 'We make no statement about production systems.', kind: 'non_claim' }];
  const corpus: Record<string, unknown[]> = {
    'POST /v1/tasks': [{ title: 'Re-sign the archived exports', session_id: a.sessions[0], description: 'The archived exports were signed with the old key', labels: ['fuzz', 'exports'] }, { task_id: 'fz-task-new', title: 'Rotate the staging key', session_id: a.sessions[0] }],
    'POST /v1/tasks/{task_id}/checkpoints': [{ progress: 'Rotated in production', blockers: [], next_actions: [TEXTS[4]], context_lines: [TEXTS[3]], evidence_refs: [evidenceRef('fz-artifact-3')] }],
    'POST /v1/tasks/{task_id}/closeout': [closeoutBody('fz-artifact-4'), { outcome: 'blocked', summary: 'Blocked on the production change window.', blockers: [TEXTS[4]], next_actions: [TEXTS[4]], context_lines: [TEXTS[0]], future_agent_traps: [TEXTS[1]] }],
    'POST /v1/events': [
      { kind: 'evidence.attached', ...scopeA, task_id: a.tasks[0], payload: {}, evidence_refs: [evidenceRef('fz-artifact-5')] },
      { kind: 'session.bound', ...scopeA, session_id: 'fz-session-2', payload: { principal: { type: 'user', id: 'fz-user-1' }, agent: 'fuzz-agent' } },
      { kind: 'ext.fuzz.note', ...scopeA, task_id: a.tasks[0], actor: { type: 'agent', id: 'fz-agent' }, payload: { text: TEXTS[3], n: 1, nested: { list: [1, 'two', null] } } },
    ],
    'POST /v1/templates/validate': [{ template_id: 'task_closeout.v1', payload: closeoutBody('fz-artifact-6') }, { template_id: 'checkpoint', payload: { progress: 'TODO' } }],
    'POST /v1/claim-boundaries/evaluate': [{ task_ids: [a.tasks[0]], claims }, { task_ids: a.tasks, claims: [{ claim: TEXTS[4], depends_on: [1] }, { claim: TEXTS[5], depends_on: [0] }], stale_after_days: 1 }],
    'POST /v1/proof-packets': [{ task_ids: [a.tasks[0]], integrity_class: 'signed', claims }, { task_ids: a.tasks, integrity_class: 'hash_bound', non_claims: ['We make no statement about production systems.'] }],
    'POST /v1/signatures/verify': [{ packet: a.packet }],
  };
  if (forgeWrites) {
    Object.assign(corpus, {
      'POST /admin/quota/rules': [{ name: 'fz-rule-new', limit: 4096, subjects: ['size:all'] }],
      'PATCH /admin/quota/rules/{quotarule}': [{ limit: 2048 }, { subjects: ['size:git:lfs', 'size:repos:all'] }],
      'POST /admin/quota/groups': [{ name: 'fz-group-new', rules: [{ name: 'fz-rule-3', limit: 1, subjects: ['size:all'] }] }],
      'POST /admin/users/{username}/quota/groups': [{ groups: groups }],
      'PUT /admin/forge/data': [forgeData],
    });
  }
  return { scopeA, scopeB, ids, pools, corpus, forgeWrites, restoreForge };
}
