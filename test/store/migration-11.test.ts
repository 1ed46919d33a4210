// Index migration 11: the full-text index keeps no copy of the text it indexes. An index of version
// 10 (FTS5 holding each event's text itself) no longer migrates in place since version 12 added a
// projection only a rebuild fills (REPROJECT_BELOW_VERSION): it is rebuilt from the log, and the
// search table is an external-content table over the view search_source, answering byte for byte
// as before — snippets included, which FTS5 reads back through the view.
import t from 'tap';
import Database from 'better-sqlite3';
import { verifyLog } from '../../src/store/verify-log.ts';
import { MIGRATIONS } from '../../src/store/migrations.ts';
import { registerSearchFunctions } from '../../src/store/projections/core.ts';
import { indexPathOf } from '../../src/store/store.ts';
import { rawEvent, SCOPE_A, SCOPE_B, tempDir, testApp } from '../fixtures/test-app.ts';

/** The search table as version 10 made it: FTS5 with its own content, filled as the live index filled it. */
const BACK_TO_VERSION_10 = `
  DROP TABLE search;
  DROP VIEW search_source;
  CREATE VIRTUAL TABLE search USING fts5(scope_tok, body, tokenize = 'unicode61', detail = 'column');
  INSERT INTO search (rowid, scope_tok, body) SELECT seq, gov_scope_token(scope), gov_search_body(line) FROM events;
`;

const tables = (db: Database.Database) => db.prepare<[], { name: string }>("SELECT name FROM sqlite_schema WHERE name LIKE 'search%' ORDER BY name").all().map((r) => r.name);

t.test('an index of version 10 is rebuilt: the text is not stored twice, search answers the same', async (t) => {
  const dataDir = tempDir(t);
  const queries = ['/v1/search?q=vault', '/v1/search?q=quok*', '/v1/search?q=vault&kind=ext.acme.note', '/v1/search?kind=ext.acme.note'];
  type Call = Awaited<ReturnType<typeof testApp>>['call'];
  const answers = async (call: Call) => {
    const out: string[] = [];
    for (const q of queries) {
      const res = await call(q);
      t.equal(res.status, 200, q);
      out.push(res.text);
    }
    // Another scope's events never show: scope B finds its own note only.
    const other = await call('/v1/search?q=vault', { scope: SCOPE_B });
    t.same(other.json.results.map((r: { snippet: string }) => r.snippet), ['ext.acme.note\n[vault] of scope B'], 'nothing of scope A in scope B');
    return out;
  };
  let before: string[];
  {
    const { call, service } = await testApp(t, { dataDir });
    for (const [i, text] of ['step 2 vault quokka', 'the vault door, ünïcödé', 'no match here'].entries()) {
      t.equal((await call('/v1/events', { body: rawEvent(SCOPE_A, { kind: 'ext.acme.note', payload: { text, n: i } }), idempotencyKey: `note-${i}` })).status, 201);
    }
    t.equal((await call('/v1/events', { body: rawEvent(SCOPE_B, { kind: 'ext.acme.note', payload: { text: 'vault of scope B' } }), scope: SCOPE_B, idempotencyKey: 'b-1' })).status, 201);
    before = await answers(call);
    t.match(before[0], /\[vault\]/, 'snippets mark the match');
    t.equal((await call('/v1/search?q=vault')).json.results.length, 2);
    await service.store.close();
  }

  const db = new Database(indexPathOf(dataDir));
  registerSearchFunctions(db);
  t.same(tables(db), ['search', 'search_config', 'search_data', 'search_docsize', 'search_idx', 'search_source'], 'version 11: no search_content table');
  db.exec(BACK_TO_VERSION_10);
  db.pragma('user_version = 10');
  t.ok(tables(db).includes('search_content'), 'the version-10 shape keeps the text');
  db.close();

  let n = 0;
  const warnings: string[] = [];
  const { call, service } = await testApp(t, { dataDir, newId: (p) => `${p}_again${String(++n).padStart(4, '0')}`, warn: (m) => warnings.push(m) });
  t.same(warnings, [`The index at ${indexPathOf(dataDir)} was made by an older version (Index version 10 lacks projections that only a rebuild can fill.); rebuilding it from the log.`], 'the start says it rebuilds');
  const migrated = service.store.index.db;
  t.equal(migrated.pragma('user_version', { simple: true }), MIGRATIONS.length);
  t.notOk(tables(migrated).includes('search_content'), 'the text is no longer stored in the index');
  t.same(await answers(call), before, 'the same answers, byte for byte');
  // FTS5's own check, with the content compared: the index holds exactly what the view gives.
  t.doesNotThrow(() => migrated.prepare("INSERT INTO search (search, rank) VALUES ('integrity-check', 1)").run());

  // Events written after the migration are found like the others.
  t.equal((await call('/v1/events', { body: rawEvent(SCOPE_A, { kind: 'ext.acme.note', payload: { text: 'a later vault' } }), idempotencyKey: 'later' })).status, 201);
  const after = await call('/v1/search?q=later');
  t.equal(after.status, 200, after.text);
  t.equal(after.json.results.length, 1);
  t.match(after.json.results[0].snippet, /\[later\] vault/);
  await service.store.close();
  // `gov events verify` reads the migrated index (PRAGMA integrity_check includes FTS5's check).
  const verdict = verifyLog(dataDir);
  t.match(verdict, { ok: true, index: { status: 'agrees' } }, verdict.index.detail);
});
