// An asset's history is read from its own rows (asset_events, index migration 9): the evaluations,
// attached evidence and reviews whose payload names the asset, by kind. GET …/risk lists the asset's evaluations and nobody else's,
// the index holds exactly the asset's events, and an index made before the table existed is
// rebuilt from the log at start, with the same answers.
import t from 'tap';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { rawEvent, SCOPE_A, testApp } from '../fixtures/test-app.ts';

const HIGH = { data_sensitivity: 3, decision_impact: 3, autonomy: 2, vendor_maturity: 2, prohibited_practice: 0 };
const owner = { type: 'user', id: 'owner-1' } as const;
const requester = { type: 'user', id: 'requester-1' } as const;

t.test('an asset\'s evaluations come from its own rows; an older index is rebuilt with them', async (t) => {
  const first = await testApp(t);
  const { call, service, dataDir } = first;
  for (const id of ['asset-a', 'asset-b']) {
    const r = await call('/v1/governance/assets', { body: { asset_id: id, name: `Model ${id}`, purpose: 'Rank job applications', owner, deployment_context: 'HR', models: [{ provider: 'acme', name: 'm1' }], actor: requester } });
    t.equal(r.status, 201);
  }
  const evaluate = async (id: string, key: string) => {
    const r = await call('/v1/risk/evaluations', { body: { asset_id: id, risk_inputs: HIGH, actor: requester }, idempotencyKey: key });
    t.equal(r.status, 201);
    return r.json.evaluation.evaluation_id as string;
  };
  const a1 = await evaluate('asset-a', 'k1');
  const b1 = await evaluate('asset-b', 'k2');
  const a2 = await evaluate('asset-a', 'k3');

  const riskA = await call('/v1/governance/assets/asset-a/risk');
  t.same(riskA.json.history.map((e: { evaluation_id: string }) => e.evaluation_id), [a2, a1], 'asset-a: its own two, newest first');
  t.equal(riskA.json.latest.evaluation_id, a2);
  const riskB = await call('/v1/governance/assets/asset-b/risk');
  t.same(riskB.json.history.map((e: { evaluation_id: string }) => e.evaluation_id), [b1]);

  await service.store.settled();
  const rows = service.store.index.db.prepare<[], { asset_id: string; kind: string; seq: number }>('SELECT asset_id, kind, seq FROM asset_events ORDER BY seq').all();
  const evaluated = (id: string) => rows.filter((r) => r.asset_id === id && r.kind === 'risk.evaluated').length;
  t.equal(evaluated('asset-a'), 2);
  t.equal(evaluated('asset-b'), 1);
  t.same([...new Set(rows.map((r) => r.kind))], ['risk.evaluated'], 'only the kinds an asset\'s history is read by');
  // An extension event that names an asset in its payload is no part of the asset's history.
  const note = await call('/v1/events', { body: rawEvent(SCOPE_A, { payload: { asset_id: 'asset-a', text: 'a note about asset-a' } }), idempotencyKey: 'note-1' });
  t.equal(note.status, 201, note.text);
  await service.store.settled();
  t.equal(service.store.index.db.prepare<[], { n: number }>('SELECT count(*) AS n FROM asset_events').get()!.n, rows.length, 'nothing indexed for it');
  const evidence = await call('/v1/governance/assets/asset-a/evidence');
  t.equal(evidence.status, 200);
  await first.close();

  // What an index of version 8 looked like: no asset_events or task_access table.
  const db = new Database(join(dataDir, 'index.sqlite'));
  db.exec('DROP TABLE asset_events; DROP TABLE task_access');
  db.pragma('user_version = 8');
  db.close();
  const again = await testApp(t, { dataDir, newId: (p) => `${p}_again` });
  t.same((await again.call('/v1/governance/assets/asset-a/risk')).json, riskA.json, 'rebuilt from the log: the same answer');
  t.same((await again.call('/v1/governance/assets/asset-b/risk')).json, riskB.json);
  t.same((await again.call('/v1/governance/assets/asset-a/evidence')).json, evidence.json);
});
