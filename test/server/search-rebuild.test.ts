// Search answers the same before and after an index rebuild: live indexing reads the stored
// (canonical) event from the log, as the rebuild does, not the request's member order.
import t from 'tap';
import { rmSync } from 'node:fs';
import { indexPathOf } from '../../src/store/store.ts';
import { rawEvent, SCOPE_A, tempDir, testApp } from '../fixtures/test-app.ts';

t.test('search snippets are identical live and after a rebuild', async (t) => {
  const dataDir = tempDir(t);
  const search = async (call: Awaited<ReturnType<typeof testApp>>['call']) => {
    const res = await call('/v1/search?q=vault');
    t.equal(res.status, 200);
    return res.text;
  };
  let live: string;
  {
    const { call, service } = await testApp(t, { dataDir });
    // Members in the opposite of canonical order: a request's order must not reach the index.
    const body = `{"payload":{"zeta":"step 2 vault quokka","alpha":"vault path 2"},"project_id":"${SCOPE_A.project_id}","workspace_id":"${SCOPE_A.workspace_id}","tenant_id":"${SCOPE_A.tenant_id}","kind":"ext.acme.note"}`;
    t.equal((await call('/v1/events', { body, idempotencyKey: 'order-1' })).status, 201);
    live = await search(call);
    t.match(live, /\[vault\]/);
    await service.store.close();
  }
  for (const suffix of ['', '-wal', '-shm']) rmSync(indexPathOf(dataDir) + suffix, { force: true });
  const { call } = await testApp(t, { dataDir });
  t.equal(await search(call), live, 'the rebuilt index answers byte for byte the same');
});

t.test('a snippet stays short when the matched text holds one enormous token', async (t) => {
  const { call } = await testApp(t);
  const huge = 'x'.repeat(200_000);
  t.equal((await call('/v1/events', { body: rawEvent(SCOPE_A, { kind: 'ext.acme.note', payload: { text: `vault ${huge} after 😀${'y'.repeat(500)}` } }), idempotencyKey: 'huge-1' })).status, 201);
  t.equal((await call('/v1/events', { body: rawEvent(SCOPE_A, { kind: 'ext.acme.note', payload: { text: 'a small vault' } }), idempotencyKey: 'small-1' })).status, 201);
  const res = await call('/v1/search?q=vault');
  t.equal(res.status, 200);
  const [small, big] = res.json.results as Array<{ snippet: string }>;
  t.equal(small!.snippet, 'ext.acme.note\na small [vault]', 'a short snippet is as FTS5 made it');
  t.ok(big!.snippet.length <= 322, `the long one is cut to 320 characters and its marks (${big!.snippet.length})`);
  t.match(big!.snippet, /^ext\.acme\.note\n\[vault\] x+…$/, 'it keeps the match and says where it was cut');
  t.ok(res.text.length < 2_000, 'the answer stays small');
});
