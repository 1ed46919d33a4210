// Progress of a long index replay (an upgrade's rebuild at start, gov store rebuild-index): a line at
// most every two seconds saying how far the replay got, none for a replay that ends sooner, and the
// replay reports every batch it applied up to the log's last seq.
import t from 'tap';
import { replayProgress } from '../../src/store/index-db.ts';
import { logPathOf, openStore, rebuildIndex, recoverTail } from '../../src/store/store.ts';
import { fixedClock, tempDir } from '../fixtures/test-app.ts';

t.test('a line at most every 2 s, with the seq and the share of the tail', async (t) => {
  let clock = 0;
  const lines: string[] = [];
  const progress = replayProgress(1000, (line) => lines.push(line), 2000, () => clock);
  progress(100);
  clock = 1999;
  progress(200);
  t.same(lines, [], 'nothing before two seconds');
  clock = 2000;
  progress(300);
  clock = 3000;
  progress(400);
  clock = 4100;
  progress(999);
  clock = 9000;
  progress(1000);
  t.same(lines, ['rebuilding the index: 300 of 1000 events (30 %)', 'rebuilding the index: 999 of 1000 events (99 %)'], 'then one line per two seconds; the end itself is not a progress line');
});

t.test('a rebuild reports the seqs it applied, up to the last', async (t) => {
  const dir = tempDir(t);
  const store = await openStore({ dataDir: dir, clock: fixedClock(), warn: () => {} });
  for (let i = 0; i < 30; i++) {
    await store.append([{ event_id: `evt_${i}`, kind: 'ext.acme.note', tenant_id: 't1', workspace_id: 'w1', project_id: 'p1', actor: { type: 'agent', id: 'agent-1' }, payload: { n: i }, transport: 'customer', idempotency_key: null, request_sha256: null }]);
  }
  await store.close();
  const seen: number[] = [];
  const index = rebuildIndex(dir, recoverTail(logPathOf(dir), () => {}), undefined, (seq) => seen.push(seq));
  t.equal(index.lastSeq(), 30);
  index.close();
  t.ok(seen.length >= 1, 'told at least once');
  t.same(seen, [...seen].sort((a, b) => a - b), 'in increasing order');
  t.equal(seen.at(-1), 30, 'the last report is the last seq');
});
