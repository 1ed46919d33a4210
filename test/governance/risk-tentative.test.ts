// POST /v1/risk/evaluations decides without waiting for the index writer (decide.ts, tentative):
// every stream its decision read is an expectation the log's gate checks against everything
// acknowledged. Here the index writer is blocked (another connection holds SQLite's write lock):
// an evaluation whose asset moved on in batches the index has not applied is never decided on the
// stale state — the writer decides it again on the index plus the units sealed since (redecide),
// so it supersedes the evaluation the index has not seen — a refusal decided on the stale index is
// not recorded (it waits for the index: 503 index_behind, nothing written), and once the index
// catches up the refusal is decided on what is true.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StoredEvent } from '../../src/domain/event.ts';
import { testApp } from '../fixtures/test-app.ts';

const HIGH = { data_sensitivity: 3, decision_impact: 3, autonomy: 2, vendor_maturity: 2, prohibited_practice: 0 };
const owner = { type: 'user', id: 'owner-1' } as const;
const requester = { type: 'user', id: 'requester-1' } as const;

async function until(what: string, done: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

t.test('tentative risk decisions never rest on a trailing index', async (t) => {
  const { call, service, dataDir } = await testApp(t);
  const events = (): StoredEvent[] => readFileSync(join(dataDir, 'events.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as StoredEvent);
  const registered = await call('/v1/governance/assets', { body: { asset_id: 'asset-t1', name: 'Screening model', purpose: 'Rank job applications', owner, deployment_context: 'HR', models: [{ provider: 'acme', name: 'm1' }], actor: requester } });
  t.equal(registered.status, 201);
  const evaluate = (assetId: string, key: string) => call('/v1/risk/evaluations', { body: { asset_id: assetId, risk_inputs: HIGH, actor: requester }, idempotencyKey: key });

  // Block the index writer: what is acknowledged from now on reaches the log, not the index.
  const db = service.store.index.db;
  db.exec('BEGIN IMMEDIATE');
  t.teardown(() => {
    if (db.inTransaction) db.exec('ROLLBACK');
  });

  const first = await evaluate('asset-t1', 'eval-1');
  t.equal(first.status, 201, 'decided on the index as it is: the asset has not moved since');
  const firstId = first.json.evaluation.evaluation_id as string;
  t.equal(first.json.evaluation.supersedes, null);
  const afterFirst = events().length;

  // The index does not hold the first evaluation: a second one decided on it would not supersede
  // it. The gate sees the asset moved on, and the writer decides again on the index plus what it
  // sealed since: the second evaluation supersedes the first, without waiting for the index.
  const second = await evaluate('asset-t1', 'eval-2');
  t.equal(second.status, 201, 'decided again in the writer, not on the stale index');
  t.equal(second.json.evaluation.supersedes, firstId, 'it supersedes the evaluation the index has not applied');
  const secondId = second.json.evaluation.evaluation_id as string;
  const afterSecond = events().length;
  t.equal(afterSecond, afterFirst + 3, 'one unit: the evaluation, its approval request and the access entry');
  const missing = await evaluate('asset-nowhere', 'eval-3');
  t.match(missing, { status: 503, json: { code: 'index_behind' } }, 'a refusal is not decided on the stale index');
  t.equal(events().length, afterSecond, 'nothing written for it (no denial recorded from a stale read)');

  db.exec('COMMIT');
  await until('the index to catch up', () => service.store.indexStatus().state === 'current');

  const again = await evaluate('asset-t1', 'eval-2');
  t.equal(again.status, 200, 'the second request sent again is a replay of what the writer decided');
  t.equal(again.json.evaluation.evaluation_id, secondId);
  t.equal(again.json.evaluation.supersedes, firstId);
  const risk = await call('/v1/governance/assets/asset-t1/risk');
  t.same(risk.json.history.map((e: { evaluation_id: string }) => e.evaluation_id), [secondId, firstId], 'the index holds both, newest first');
  t.equal(risk.json.latest.evaluation_id, secondId);
  const refused = await evaluate('asset-nowhere', 'eval-3');
  t.match(refused, { status: 404, json: { code: 'not_found_in_scope' } });
  const denials = events().filter((e) => e.kind === 'access.logged' && (e.payload as { outcome?: string }).outcome === 'denied');
  t.equal(denials.length, 1, 'the refusal is recorded once, from the settled index');
  const replay = await evaluate('asset-t1', 'eval-1');
  t.equal(replay.status, 200, 'the first request sent again is a replay');
  t.equal(replay.json.evaluation.evaluation_id, firstId);
});
