// Evaluations of one asset sent at once (docs/write-path.md, "Decided again in the writer"): each
// read the asset at the version it found, and every one the writer reaches after another has moved
// the asset is decided again there, on the index plus the units sealed since. So all of them are
// 201, they share batches, each supersedes the one sealed before it, and exactly one approval —
// the latest evaluation's — is left pending; the index, rebuilt from the log, says the same.
import t from 'tap';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { StoredEvent } from '../../src/domain/event.ts';
import { testApp } from '../fixtures/test-app.ts';

const HIGH = { data_sensitivity: 3, decision_impact: 3, autonomy: 2, vendor_maturity: 2, prohibited_practice: 0 };
const owner = { type: 'user', id: 'owner-1' } as const;
const requester = { type: 'user', id: 'requester-1' } as const;
const N = 40;

t.test('evaluations of one asset at once: all 201, each superseding the one before, one batch for several', async (t) => {
  const units: number[] = [];
  const { call, dataDir, service } = await testApp(t, { onBatch: (n) => units.push(n) });
  const events = (): StoredEvent[] => readFileSync(join(dataDir, 'events.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as StoredEvent);
  const registered = await call('/v1/governance/assets', { body: { asset_id: 'hot-1', name: 'Screening model', purpose: 'Rank job applications', owner, deployment_context: 'HR', models: [{ provider: 'acme', name: 'm1' }], actor: requester } });
  t.equal(registered.status, 201);
  const before = await call('/v1/risk/evaluations', { body: { asset_id: 'hot-1', risk_inputs: HIGH, actor: requester }, idempotencyKey: 'eval-0' });
  t.equal(before.status, 201);
  units.length = 0;

  const answers = await Promise.all(Array.from({ length: N }, (_, k) => call('/v1/risk/evaluations', { body: { asset_id: 'hot-1', risk_inputs: HIGH, actor: requester }, idempotencyKey: `eval-${k + 1}` })));
  t.same(answers.map((a) => a.status), Array.from({ length: N }, () => 201), 'no write_conflict: every evaluation is decided');
  t.ok(Math.max(...units) > 1, `several evaluations shared a batch (units per batch: ${units.join(' ')})`);

  // In log order, each evaluation supersedes the one before it: the first of them the evaluation made before.
  const evaluated = events().filter((e) => e.kind === 'risk.evaluated').map((e) => e.payload as { evaluation_id: string; supersedes: string | null; approval_id: string });
  t.equal(evaluated.length, N + 1);
  t.equal(evaluated[0]!.supersedes, null);
  for (let k = 1; k < evaluated.length; k++) t.equal(evaluated[k]!.supersedes, evaluated[k - 1]!.evaluation_id, `evaluation ${k} supersedes evaluation ${k - 1}`);
  const answered = new Set(answers.map((a) => a.json.evaluation.evaluation_id as string));
  t.same(new Set(evaluated.slice(1).map((e) => e.evaluation_id)), answered, 'each answer is the evaluation the log holds');
  // Each answer is the unit the writer sealed, byte for byte what a replay returns.
  const replay = await call('/v1/risk/evaluations', { body: { asset_id: 'hot-1', risk_inputs: HIGH, actor: requester }, idempotencyKey: 'eval-7' });
  t.equal(replay.status, 200);
  t.same(replay.json.evaluation, answers[6]!.json.evaluation);

  const latest = evaluated[evaluated.length - 1]!;
  const asset = await call('/v1/governance/assets/hot-1');
  t.equal(asset.json.latest_evaluation.evaluation_id, latest.evaluation_id);
  t.match(asset.json, { status: 'pending_approval', approval: { approval_id: latest.approval_id, status: 'pending' } });
  const pending = await call('/v1/approvals?status=pending');
  t.same(pending.json.approvals.map((a: { approval_id: string }) => a.approval_id), [latest.approval_id], 'one approval pending: the latest evaluation\'s');
  t.equal((await call(`/v1/approvals/${evaluated[1]!.approval_id}`)).json.status, 'superseded');

  // The index after a rebuild from the log gives the same answers.
  const risk = await call('/v1/governance/assets/hot-1/risk');
  await service.store.close();
  for (const file of ['index.sqlite', 'index.sqlite-wal', 'index.sqlite-shm']) rmSync(join(dataDir, file), { force: true });
  const reopened = await testApp(t, { dataDir, newId: (p) => `${p}_again` });
  t.same((await reopened.call('/v1/governance/assets/hot-1')).json, asset.json);
  t.same((await reopened.call('/v1/governance/assets/hot-1/risk')).json, risk.json);
});
