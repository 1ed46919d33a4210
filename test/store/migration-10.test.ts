// Index migration 10: gov_assets and gov_approvals become rowid tables written in place (an
// upsert). An index of version 9 was migrated in place until migration 12 added a projection only a
// replay fills (REPROJECT_BELOW_VERSION): now it is rebuilt from the log (a row only the old index
// held is gone), the answers stay the same, later writes update the rows in place, and the index
// holds what a rebuild from the log holds.
import t from 'tap';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { testApp } from '../fixtures/test-app.ts';
import { storeRebuildIndex } from '../../src/cli/commands/store.ts';
import type { CliIo } from '../../src/cli/io.ts';
import { MIGRATIONS } from '../../src/store/migrations.ts';

const HIGH = { data_sensitivity: 3, decision_impact: 3, autonomy: 2, vendor_maturity: 2, prohibited_practice: 0 };
const owner = { type: 'user', id: 'owner-1' } as const;
const requester = { type: 'user', id: 'requester-1' } as const;

const ASSET_COLUMNS = 'scope, asset_id, state, tier, status, expires_at, review_due_at, id_hash, seq';
const APPROVAL_COLUMNS = 'scope, approval_id, asset_id, state, status, current_role, due_at, seq';

/** The two tables as version 9 made them: WITHOUT ROWID, with the same rows. */
const BACK_TO_VERSION_9 = `
  CREATE TABLE gov_assets_v9 (scope TEXT NOT NULL, asset_id TEXT NOT NULL, state TEXT NOT NULL, tier TEXT, status TEXT NOT NULL, expires_at TEXT,
    review_due_at TEXT, id_hash TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (scope, asset_id)) WITHOUT ROWID;
  INSERT INTO gov_assets_v9 SELECT ${ASSET_COLUMNS} FROM gov_assets;
  DROP TABLE gov_assets;
  ALTER TABLE gov_assets_v9 RENAME TO gov_assets;
  CREATE INDEX gov_assets_by_id_hash ON gov_assets (scope, id_hash);
  CREATE INDEX gov_assets_counted ON gov_assets (scope, tier, status, expires_at, review_due_at);
  CREATE TABLE gov_approvals_v9 (scope TEXT NOT NULL, approval_id TEXT NOT NULL, asset_id TEXT NOT NULL, state TEXT NOT NULL, status TEXT NOT NULL,
    current_role TEXT, due_at TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (scope, approval_id)) WITHOUT ROWID;
  INSERT INTO gov_approvals_v9 SELECT ${APPROVAL_COLUMNS} FROM gov_approvals;
  DROP TABLE gov_approvals;
  ALTER TABLE gov_approvals_v9 RENAME TO gov_approvals;
  CREATE INDEX gov_approvals_by_asset ON gov_approvals (scope, asset_id);
  CREATE INDEX gov_approvals_counted ON gov_approvals (scope, status, current_role, due_at);
`;

type Rows = { assets: unknown[]; approvals: unknown[] };

function rowsOf(db: Database.Database): Rows {
  return {
    assets: db.prepare(`SELECT ${ASSET_COLUMNS} FROM gov_assets ORDER BY scope, asset_id`).all(),
    approvals: db.prepare(`SELECT ${APPROVAL_COLUMNS} FROM gov_approvals ORDER BY scope, approval_id`).all(),
  };
}

function tableSql(db: Database.Database, name: string): string {
  return db.prepare<[string], { sql: string }>("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?").get(name)!.sql;
}

t.test('an index of version 9 is rebuilt: rows as before, answers kept, written in place after', async (t) => {
  const first = await testApp(t);
  const { call, dataDir } = first;
  const register = async (id: string) => {
    const r = await call('/v1/governance/assets', { body: { asset_id: id, name: `Model ${id}`, purpose: 'Rank job applications', owner, deployment_context: 'HR', models: [{ provider: 'acme', name: 'm1' }], actor: requester } });
    t.equal(r.status, 201);
  };
  const evaluate = async (id: string, key: string) => {
    const r = await call('/v1/risk/evaluations', { body: { asset_id: id, risk_inputs: HIGH, actor: requester }, idempotencyKey: key });
    t.equal(r.status, 201);
    return r.json.evaluation as { evaluation_id: string; approval_id: string };
  };
  await register('asset-a');
  await register('asset-b');
  const a1 = await evaluate('asset-a', 'k1');
  await evaluate('asset-b', 'k2');
  const a2 = await evaluate('asset-a', 'k3');
  type Call = typeof call;
  const answers = async (call: Call) => ({
    assets: (await call('/v1/governance/assets')).json.assets,
    a: (await call('/v1/governance/assets/asset-a')).json,
    approvals: (await call('/v1/approvals')).json.approvals,
    superseded: (await call(`/v1/approvals/${a1.approval_id}`)).json,
  });
  const before = await answers(call);
  t.equal(before.superseded.status, 'superseded', 'the first approval of asset-a was superseded by the second evaluation');
  await first.close();

  const indexPath = join(dataDir, 'index.sqlite');
  const db = new Database(indexPath);
  const rowsBefore = rowsOf(db);
  db.exec(BACK_TO_VERSION_9);
  // A row only this index holds: a copy would keep it, a rebuild from the log does not.
  db.prepare(`INSERT INTO gov_assets (${ASSET_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`).run('t/w/p', 'only-in-the-index', '{}', null, 'registered', null, null, 'x', 1);
  db.pragma('user_version = 9');
  t.match(tableSql(db, 'gov_assets'), /WITHOUT ROWID/, 'the version-9 shape');
  db.close();

  let n = 0;
  const again = await testApp(t, { dataDir, newId: (p) => `${p}_again${String(++n).padStart(4, '0')}` });
  const migrated = again.service.store.index.db;
  t.equal(migrated.pragma('user_version', { simple: true }), MIGRATIONS.length, 'migrated to the latest version');
  for (const name of ['gov_assets', 'gov_approvals']) t.notMatch(tableSql(migrated, name), /WITHOUT ROWID/, `${name} is a rowid table`);
  const rowsAfter = rowsOf(migrated);
  t.same(rowsAfter.approvals, rowsBefore.approvals, 'every approval row as it was');
  t.same(rowsAfter.assets, rowsBefore.assets, 'every asset row as it was, and the row only the old index held is gone: rebuilt from the log');
  t.same(await answers(again.call), before, 'the same answers from the rebuilt index');

  // Writes after the migration update the copied rows in place.
  const a3 = await again.call('/v1/risk/evaluations', { body: { asset_id: 'asset-a', risk_inputs: HIGH, actor: requester }, idempotencyKey: 'k4' });
  t.equal(a3.status, 201);
  await again.service.store.settled();
  const superseded = await again.call(`/v1/approvals/${a2.approval_id}`);
  t.equal(superseded.json.status, 'superseded', 'the copied pending approval is superseded in place');
  const asset = await again.call('/v1/governance/assets/asset-a');
  t.equal(asset.json.latest_evaluation.evaluation_id, a3.json.evaluation.evaluation_id);
  const live = rowsOf(migrated);
  t.equal(live.assets.length, 2);
  t.equal(live.approvals.length, 4);
  await again.close();

  // A rebuild from the log holds exactly what the migrated index held.
  const io: CliIo = { stdout: () => {}, stderr: () => {}, env: {}, cwd: dataDir, isTty: false, onStopSignal: () => {} };
  t.equal((await storeRebuildIndex({ dataDir }, io)).exitCode, 0);
  const fresh = new Database(indexPath, { readonly: true });
  t.same(rowsOf(fresh), live, 'rebuilt from the log: the same rows');
  fresh.close();
});
