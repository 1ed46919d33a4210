// Evaluations of one asset sent at once (docs/write-path.md, "Decided again in the writer"): each
// read the asset at the version it found, and every one the writer reaches after another has moved
// the asset is decided again there, on the index plus the units sealed since. So all of them are
// 201, they share batches, each supersedes the one sealed before it, and exactly one approval —
// the latest evaluation's — is left pending; the index, rebuilt from the log, says the same. An
// evaluation queued behind the asset's retirement is not evaluated in the writer: it is refused
// the slow way, 409 asset_retired with its denial recorded. Re-posts of one asset are consecutive
// revisions, and ones naming the same If-Match version are one 201 and 412s.
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

t.test('evaluations queued behind the asset\'s retirement: decided again, refused as retired, each denial recorded', async (t) => {
  const { call, dataDir, service } = await testApp(t);
  const events = (): StoredEvent[] => readFileSync(join(dataDir, 'events.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as StoredEvent);
  const teamOwner = { type: 'user', id: 'olivia' } as const;
  const reviewer = { type: 'user', id: 'rita' } as const;
  t.equal((await call('/v1/team/owner', { body: { actor: teamOwner, email: 'olivia@example.com' } })).status, 201);
  const invite = await call('/v1/team/invites', { body: { email: 'rita@example.com', role: 'governance_reviewer', actor: teamOwner } });
  t.equal((await call(`/v1/team/invites/${invite.json.invite_id}/accept`, { body: { token: invite.json.token, actor: reviewer } })).status, 201);
  t.equal((await call('/v1/governance/assets', { body: { asset_id: 'bot-1', name: 'Notes bot', purpose: 'Summarise meeting notes', owner, deployment_context: 'internal', models: [{ provider: 'acme', name: 'm1' }], actor: requester } })).status, 201);
  const MINIMAL = { data_sensitivity: 0, decision_impact: 0, autonomy: 0, vendor_maturity: 0, prohibited_practice: 0 };
  t.equal((await call('/v1/risk/evaluations', { body: { asset_id: 'bot-1', risk_inputs: MINIMAL, actor: requester } })).status, 201);
  const review = (await call('/v1/reviews?asset_id=bot-1')).json.reviews[0].review_id as string;

  // Ten evaluations sent the moment the retirement is handed to the log: each decides on the index,
  // where the asset is not retired yet, and reaches the writer after the retirement.
  const evaluate = (k: number) => call('/v1/risk/evaluations', { body: { asset_id: 'bot-1', risk_inputs: MINIMAL, actor: requester }, idempotencyKey: `race-${k}` });
  const append = service.store.append;
  let racing: ReturnType<typeof evaluate>[] = [];
  service.store.append = (unit, expect, options) => {
    const appended = append(unit, expect, options);
    if (racing.length === 0 && unit.some((e) => e.kind === 'review.completed')) racing = Array.from({ length: 10 }, (_, k) => evaluate(k));
    return appended;
  };
  const retired = await call(`/v1/reviews/${review}/complete`, { body: { outcome: 'retire', notes: 'No longer used', actor: reviewer } });
  t.equal(retired.status, 201, 'the retirement is recorded');
  const answers = await Promise.all(racing);
  service.store.append = append;
  t.same(answers.map((a) => [a.status, a.json.code]), Array.from({ length: 10 }, () => [409, 'asset_retired']), 'each is refused: the asset is retired');
  const log = events();
  const retiredAt = log.find((e) => e.kind === 'review.completed')!.seq;
  t.notOk(log.some((e) => e.kind === 'risk.evaluated' && e.seq > retiredAt), 'no evaluation of the asset is sealed after its retirement');
  const denied = log.filter((e) => e.kind === 'access.logged' && e.seq > retiredAt && (e.payload as { outcome?: string }).outcome === 'denied');
  t.equal(denied.length, 10, 'each refusal left one denied access entry (recorded on the settled index, not in the writer)');
});

t.test('re-posts of one asset at once: each the next revision; with one If-Match, one 201 and the rest 412', async (t) => {
  const { call, dataDir } = await testApp(t);
  const events = (): StoredEvent[] => readFileSync(join(dataDir, 'events.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as StoredEvent);
  const body = (n: number) => ({ asset_id: 'hot-2', name: `Screening model, take ${n}`, purpose: 'Rank job applications', owner, deployment_context: 'HR', models: [{ provider: 'acme', name: 'm1' }], actor: requester });
  t.equal((await call('/v1/governance/assets', { body: body(0) })).status, 201);
  const answers = await Promise.all(Array.from({ length: 10 }, (_, k) => call('/v1/governance/assets', { body: body(k + 1), idempotencyKey: `repost-${k}` })));
  t.same(answers.map((a) => a.status), Array.from({ length: 10 }, () => 201), 'every re-post is a revision: none is refused');
  const revisions = () => events().filter((e) => e.kind === 'governance.asset.registered').map((e) => (e.payload as { revision: number }).revision);
  t.same(revisions(), Array.from({ length: 11 }, (_, k) => k + 1), 'revisions 1 to 11, in log order, none twice');
  const asset = await call('/v1/governance/assets/hot-2');
  t.equal(asset.json.revision, 11);

  // Five re-posts naming the version they read: the first one sealed wins, the others are stale.
  const etag = asset.headers.get('etag')!;
  const before = events().length;
  const guarded = await Promise.all(Array.from({ length: 5 }, (_, k) => call('/v1/governance/assets', { body: body(20 + k), headers: { 'If-Match': etag }, idempotencyKey: `guarded-${k}` })));
  t.same(guarded.map((a) => a.status).sort(), [201, 412, 412, 412, 412], 'one 201, four 412');
  for (const a of guarded.filter((x) => x.status === 412)) t.equal(a.json.code, 'precondition_failed');
  t.same(events().slice(before).map((e) => e.kind), ['governance.asset.registered', 'access.logged'], 'only the winner wrote');
});
