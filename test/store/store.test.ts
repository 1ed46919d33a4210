// The store: appends, the hash chain, recovery of a torn tail and of an incomplete unit, index
// catch-up and rebuild giving identical answers, a corrupt index, and the data-dir lock.
import t, { type Test } from 'tap';
import { appendFileSync, constants, readdirSync, readFileSync, readlinkSync, realpathSync, truncateSync, writeFileSync, statSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { canonicalJson } from '../../src/domain/canonical-json.ts';
import { eventHash } from '../../src/domain/event-hash.ts';
import type { PendingEvent } from '../../src/store/event-log.ts';
import { createQueries } from '../../src/store/queries.ts';
import { registerSearchFunctions } from '../../src/store/projections/core.ts';
import { openStore, indexPathOf, logPathOf, type Store } from '../../src/store/store.ts';
import { verifyLog } from '../../src/store/verify-log.ts';
import { fixedClock, tempDir } from '../fixtures/test-app.ts';

const scope = { tenant_id: 'tenant-a', workspace_id: 'ws-1', project_id: 'proj-1' };
let id = 0;
function pending(extra: Partial<PendingEvent> = {}): PendingEvent {
  return { event_id: `evt_${++id}`, kind: 'ext.acme.note', ...scope, transport: 'customer', idempotency_key: null, request_sha256: null, payload: { text: `note ${id}` }, ...extra };
}

async function open(t: Test, dataDir: string, clock = fixedClock()): Promise<{ store: Store; warnings: string[] }> {
  const warnings: string[] = [];
  const store = await openStore({ dataDir, clock, warn: (m) => warnings.push(m) });
  t.teardown(() => store.close().catch(() => {}));
  return { store, warnings };
}

function lines(dataDir: string): any[] {
  return readFileSync(logPathOf(dataDir), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

t.test('appends are gapless, hash-chained, canonical, and recorded_at never decreases', async (t) => {
  const dir = tempDir(t);
  // A clock that goes backwards must not make recorded_at decrease.
  const times = ['2026-11-01T10:00:05.000Z', '2026-11-01T10:00:01.000Z', '2026-11-01T10:00:09.000Z'];
  let i = 0;
  const { store } = await open(t, dir, () => new Date(times[Math.min(i++, times.length - 1)]!));
  await store.append([pending()]);
  await store.append([pending()]);
  await store.append([pending(), pending()]);
  const events = lines(dir);
  t.same(events.map((e) => e.seq), [1, 2, 3, 4]);
  t.same(events.map((e) => e.recorded_at), ['2026-11-01T10:00:05.000Z', '2026-11-01T10:00:05.000Z', '2026-11-01T10:00:09.000Z', '2026-11-01T10:00:09.000Z']);
  for (let k = 0; k < events.length; k++) {
    t.equal(events[k].event_hash, eventHash(events[k]), `event ${k + 1} hash recomputes`);
    if (k > 0) t.equal(events[k].prev_hash, events[k - 1].event_hash);
  }
  t.same(events[2].unit, { index: 0, size: 2 });
  t.same(events[3].unit, { index: 1, size: 2 });
  t.notOk('unit' in events[0], 'single events carry no unit');
  const raw = readFileSync(logPathOf(dir), 'utf8').split('\n')[0]!;
  t.equal(raw, canonicalJson(JSON.parse(raw)), 'lines are RFC 8785 canonical');
});

t.test('concurrent appends are batched and each resolves with its own events', async (t) => {
  const dir = tempDir(t);
  const { store } = await open(t, dir);
  const results = (await Promise.all(Array.from({ length: 200 }, (_, k) => store.append(k % 10 === 0 ? [pending(), pending(), pending()] : [pending()])))).map((r) => r.events);
  const seqs = results.flat().map((e) => e.seq).sort((a, b) => a - b);
  t.same(seqs, Array.from({ length: 240 }, (_, k) => k + 1));
  for (const unit of results.filter((r) => r.length === 3)) {
    t.same(unit.map((e) => e.seq), [unit[0]!.seq, unit[0]!.seq + 1, unit[0]!.seq + 2], 'a unit has consecutive seqs');
  }
  t.ok(verifyLog(dir).ok);
});

t.test('the log is written through a descriptor opened for synchronized data writes (O_DSYNC)', { skip: process.platform === 'linux' ? false : 'reads /proc/self/fdinfo, which only Linux has' }, async (t) => {
  const dir = tempDir(t);
  const { store } = await open(t, dir);
  await store.append([pending()]);
  const log = realpathSync(logPathOf(dir));
  // Every descriptor of this process open on events.jsonl, with its open flags (octal in fdinfo).
  const flags = readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) !== log) return [];
      return [Number.parseInt(/^flags:\s*([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))![1]!, 8)];
    } catch {
      return [];
    }
  });
  // The access mode is the low two bits (Node's constants have no O_ACCMODE).
  const writable = flags.filter((f) => (f & 3) !== constants.O_RDONLY);
  t.equal(writable.length, 1, 'one descriptor writes the log');
  t.equal(writable[0]! & constants.O_DSYNC, constants.O_DSYNC, 'and every write through it is durable when it returns');
});

t.test('a torn last line is cut off with a warning, and the store goes on', async (t) => {
  const dir = tempDir(t);
  {
    const { store } = await open(t, dir);
    await store.append([pending()]);
    await store.append([pending()]);
    await store.close();
  }
  appendFileSync(logPathOf(dir), '{"seq":3,"kind":"ext.acme.no');
  const { store, warnings } = await open(t, dir);
  t.match(warnings.join('\n'), /torn last line/);
  t.equal(store.tail().seq, 2);
  const [e] = (await store.append([pending()])).events;
  t.equal(e!.seq, 3, 'the next event takes the torn seq');
  t.ok(verifyLog(dir).ok);
});

t.test('a line that ends but does not parse at the tail is cut too', async (t) => {
  const dir = tempDir(t);
  {
    const { store } = await open(t, dir);
    await store.append([pending()]);
    await store.close();
  }
  appendFileSync(logPathOf(dir), '\u0000\u0000\u0000\n');
  const { store, warnings } = await open(t, dir);
  t.equal(warnings.length, 1);
  t.equal(store.tail().seq, 1);
});

t.test('an incomplete multi-event unit is cut off whole', async (t) => {
  const dir = tempDir(t);
  {
    const { store } = await open(t, dir);
    await store.append([pending()]);
    await store.append([pending(), pending(), pending()]);
    await store.close();
  }
  // Simulate a crash after two of the unit's three lines reached the disk. The unit was never
  // durable, so the index never held it: an index that did would prove the log lost events.
  const all = readFileSync(logPathOf(dir), 'utf8').split('\n').filter(Boolean);
  writeFileSync(logPathOf(dir), `${all.slice(0, 3).join('\n')}\n`);
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${indexPathOf(dir)}${suffix}`, { force: true });
  const { store, warnings } = await open(t, dir);
  t.equal(warnings.filter((w) => /incomplete/.test(w)).length, 2);
  t.equal(store.tail().seq, 1, 'all or none');
  t.equal(lines(dir).length, 1);
});

t.test('the index catches up, and a deleted or corrupt index is rebuilt with identical answers', async (t) => {
  const dir = tempDir(t);
  const snapshot = (store: Store) => {
    const q = createQueries(store.index.db);
    return {
      task: q.task(scope, 'task-1'),
      timeline: q.timeline(scope, 'task-1', 0, 1000),
      search: q.search(scope, { match: '"note"', kind: null, taskId: null, beforeSeq: Number.MAX_SAFE_INTEGER, limit: 100 }),
      idem: store.idempotency('tenant-a', 'key-1'),
      rows: store.index.db.prepare('SELECT * FROM events ORDER BY seq').all(),
    };
  };
  let before;
  {
    const { store } = await open(t, dir);
    await store.append([pending({ kind: 'task.created', task_id: 'task-1', session_id: 'sess-1', payload: { title: 'Ship the release notes' } })]);
    await store.append([pending({ task_id: 'task-1', idempotency_key: 'key-1', request_sha256: `sha256:${'a'.repeat(64)}` })]);
    await store.append([pending({ task_id: 'task-1' }), pending({ task_id: 'task-1' })]);
    await store.settled();
    before = snapshot(store);
    await store.close();
  }
  t.equal(before.task?.last_seq, 4);
  t.equal(before.timeline.length, 4);
  t.equal(before.search.length, 3);
  t.same(before.idem, { first_seq: 2, size: 1, request_sha256: `sha256:${'a'.repeat(64)}` });

  rmSync(indexPathOf(dir));
  rmSync(`${indexPathOf(dir)}-wal`, { force: true });
  rmSync(`${indexPathOf(dir)}-shm`, { force: true });
  {
    const { store, warnings } = await open(t, dir);
    t.match(warnings.join("\n"), /is missing/);
    t.same(snapshot(store), before, 'rebuilt from a deleted index');
    await store.close();
  }
  writeFileSync(indexPathOf(dir), 'this is not a database at all, just garbage bytes'.repeat(200));
  rmSync(`${indexPathOf(dir)}-wal`, { force: true });
  rmSync(`${indexPathOf(dir)}-shm`, { force: true });
  {
    const { store, warnings } = await open(t, dir);
    t.match(warnings.join('\n'), /rebuilding/);
    t.same(snapshot(store), before, 'rebuilt from a corrupt index');
    await store.close();
  }
  // An index behind the log (a crash between the fsync and the index commit) catches up.
  const extra = { ...lines(dir)[3] };
  {
    const { store } = await open(t, dir);
    await store.append([pending({ task_id: 'task-1' })]);
    await store.close();
  }
  const db = (await import('better-sqlite3')).default;
  const handle = new db(indexPathOf(dir));
  // The full-text row first: FTS5 reads the text it removes through the view over the event row.
  registerSearchFunctions(handle);
  handle.prepare('DELETE FROM search WHERE rowid = 5').run();
  handle.prepare('DELETE FROM events WHERE seq = 5').run();
  handle.prepare("UPDATE meta SET value = '4' WHERE key = 'last_seq'").run();
  handle.prepare('UPDATE meta SET value = ? WHERE key = ?').run(extra.event_hash, 'last_hash');
  const offset = statSync(logPathOf(dir)).size - readFileSync(logPathOf(dir), 'utf8').split('\n').filter(Boolean)[4]!.length - 1;
  handle.prepare("UPDATE meta SET value = ? WHERE key = 'log_offset'").run(String(offset));
  handle.close();
  {
    const { store, warnings } = await open(t, dir);
    t.same(warnings, [], 'caught up without a rebuild');
    t.equal(store.index.lastSeq(), 5);
    t.equal(createQueries(store.index.db).timeline(scope, 'task-1', 4, 10).length, 1);
  }
});

t.test('a corrupt line in the middle of the log stops the start (exit-3 class error)', async (t) => {
  const dir = tempDir(t);
  {
    const { store } = await open(t, dir);
    await store.append([pending()]);
    await store.append([pending()]);
    await store.close();
  }
  const all = readFileSync(logPathOf(dir), 'utf8').split('\n');
  all[0] = '{broken';
  writeFileSync(logPathOf(dir), all.join('\n'));
  rmSync(indexPathOf(dir));
  await t.rejects(openStore({ dataDir: dir, clock: fixedClock(), warn: () => {} }), { code: 'store_corrupt' });
  const result = verifyLog(dir);
  t.equal(result.ok, false);
  t.equal(result.first_bad_seq, 1);
});

t.test('verify finds a changed event, a gap, and an index that disagrees', async (t) => {
  const dir = tempDir(t);
  {
    const { store } = await open(t, dir);
    for (let k = 0; k < 5; k++) await store.append([pending()]);
    await store.close();
  }
  const good = readFileSync(logPathOf(dir), 'utf8');
  t.equal(verifyLog(dir).ok, true);
  t.equal(verifyLog(dir).index.status, 'agrees');
  const rows = good.split('\n');
  rows[2] = rows[2]!.replace(/"text":"note \d+"/, '"text":"note X"');
  writeFileSync(logPathOf(dir), rows.join('\n'));
  t.match(verifyLog(dir), { ok: false, first_bad_seq: 3, problem: /event_hash/ });
  const gap = good.split('\n').filter((_, k) => k !== 2).join('\n');
  writeFileSync(logPathOf(dir), gap);
  t.match(verifyLog(dir), { ok: false, first_bad_seq: 3 });
  writeFileSync(logPathOf(dir), good.split('\n').slice(0, 3).join('\n') + '\n');
  t.match(verifyLog(dir), { ok: false, index: { status: 'disagrees' } }, 'the index holds more than the log');
});

t.test('the data-dir lock: a live holder refuses, a dead holder is taken over', async (t) => {
  const dir = tempDir(t);
  const { store } = await open(t, dir);
  await t.rejects(openStore({ dataDir: dir, clock: fixedClock(), warn: () => {} }), { code: 'data_dir_locked', extra: { pid: process.pid } });
  await store.close();

  // A lock left by a killed process: the lock dir and the pid of a process that no longer exists.
  const child = spawn(process.execPath, ['-e', '']);
  const deadPid = await new Promise<number>((resolve) => child.on('exit', () => resolve(child.pid!)));
  mkdirSync(join(dir, 'writer.lock'));
  writeFileSync(join(dir, 'writer.pid'), `${deadPid}\n`);
  const warnings: string[] = [];
  const taken = await openStore({ dataDir: dir, clock: fixedClock(), warn: (m) => warnings.push(m) });
  t.match(warnings.join('\n'), new RegExp(`left by process ${deadPid}`));
  t.equal(readFileSync(join(dir, 'writer.pid'), 'utf8').trim(), String(process.pid));
  await taken.close();
});

t.test('a lock whose holder is a zombie (killed, not yet reaped) is taken over at once', { skip: process.platform !== 'linux' && 'zombies are read from /proc/<pid>/stat, which only Linux has' }, async (t) => {
  const dir = tempDir(t);
  // sh starts a child, then becomes sleep, which never reaps it: once the child exits, a zombie. The
  // child lives a moment first: one that exited at once could be reaped by sh before its exec.
  const parent = spawn('sh', ['-c', 'sleep 0.3 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
  t.teardown(() => void parent.kill('SIGKILL'));
  const zombie = Number(await new Promise<string>((resolve) => parent.stdout!.once('data', (d) => resolve(String(d).trim()))));
  const isZombie = () => /\) Z /.test(readFileSync(`/proc/${zombie}/stat`, 'utf8'));
  for (let i = 0; i < 100 && !isZombie(); i++) await new Promise((r) => setTimeout(r, 20));
  t.ok(isZombie(), `process ${zombie} is a zombie`);
  mkdirSync(join(dir, 'writer.lock'));
  writeFileSync(join(dir, 'writer.pid'), `${zombie}\n`);
  const warnings: string[] = [];
  const taken = await openStore({ dataDir: dir, clock: fixedClock(), warn: (m) => warnings.push(m) });
  t.match(warnings.join('\n'), new RegExp(`left by process ${zombie}, which is no longer running`));
  await taken.close();
});

t.test('a torn unit never leaves a partial file behind after truncation', async (t) => {
  const dir = tempDir(t);
  const { store } = await open(t, dir);
  await store.append([pending()]);
  const size = statSync(logPathOf(dir)).size;
  await store.close();
  appendFileSync(logPathOf(dir), 'garbage-without-newline');
  const again = await open(t, dir);
  t.equal(statSync(logPathOf(dir)).size, size);
  await again.store.close();
  truncateSync(logPathOf(dir), 0);
  await t.rejects(open(t, dir), { code: 'store_corrupt' }, 'an emptied log beside an index that holds its event: lost events, refused');
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${indexPathOf(dir)}${suffix}`, { force: true });
  const empty = await open(t, dir);
  t.equal(empty.store.tail().seq, 0, 'an empty log without an index is a fresh store');
});

t.test('the spliced line equals the canonical form of the sealed event', async (t) => {
  const dir = tempDir(t);
  const { store } = await open(t, dir);
  const tricky = [
    pending({ actor: { type: 'agent', id: 'agent-7' } }),
    pending({ payload: { note: 'a string with "event_id": inside and \u00e9 and \ud83d\ude00', event_id: 'nested' } }),
    pending({ session_id: 'sess-1', occurred_at: '2026-11-01T09:00:00Z', evidence_refs: [{ artifact_id: 'a1', uri: 'x:y', evidence_type: 'log', etag: 'e', confidence: 'claimed', redaction: 'none', content_trust: 'trusted_internal', captured_at: '2026-11-01T09:00:00Z' }] }),
  ];
  await store.append(tricky);
  for (const raw of readFileSync(logPathOf(dir), 'utf8').split('\n').filter(Boolean)) {
    const event = JSON.parse(raw);
    t.equal(raw, canonicalJson(event), 'canonical line');
    t.equal(event.event_hash, eventHash(event), 'hash recomputes');
  }
});

t.test('a last line whose unit is null (a malformed envelope) does not crash the start', async (t) => {
  const dir = tempDir(t);
  {
    const { store } = await open(t, dir);
    await store.append([pending()]);
    await store.close();
  }
  const [first] = lines(dir);
  appendFileSync(logPathOf(dir), `${JSON.stringify({ ...first, seq: 2, unit: null })}\n`);
  const started = await openStore({ dataDir: dir, clock: fixedClock(), warn: () => {} }).then((s) => s.close().then(() => 'opened'), (err: Error) => `refused: ${err.message}`);
  t.notMatch(started, /TypeError|Cannot read/, 'a clear outcome, never a TypeError');
});

t.test('settledAsOf waits for a batch recorded by then that is still being written; settled does not', async (t) => {
  const dir = tempDir(t);
  const { store } = await open(t, dir, () => new Date());
  await store.append([pending()]);
  await store.settled();
  // The append's batch is sealed in the turn after it is queued, and its write is then in libuv's
  // pool: its completion needs a poll phase, which has not come when this continuation runs.
  const appended = store.append([pending()]);
  await new Promise((resolve) => setImmediate(resolve));
  const asOf = Date.now(); // at or after the batch's recorded_at
  const durable = store.tail().seq;
  await store.settled();
  t.equal(store.indexedSeq(), durable, 'settled stops at what was durable when it was called: the batch in flight is not in it');
  t.equal(durable, 1);
  await store.settledAsOf(asOf);
  t.equal(store.indexedSeq(), 2, 'settledAsOf waited for the batch recorded at or before as_of to be written and indexed');
  t.equal((await appended).events[0]!.seq, 2);
  t.ok(Date.parse((await appended).events[0]!.recorded_at) <= asOf);
});
