// The real CLI end to end: start on port 0, health, a write, stop; a second process on the same
// data dir; SIGKILL mid-stream losing nothing acknowledged; idempotency across a restart.
import t from 'tap';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { SCOPE_A, tempDir } from '../fixtures/test-app.ts';
import { runGov, scopeHeaders, spawnPreview, type RunningPreview } from '../fixtures/spawn-preview.ts';

function post(p: RunningPreview, body: unknown, key: string) {
  return fetch(`${p.baseUrl}/v1/events`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${p.tokens.customer}`, 'Content-Type': 'application/json', 'Idempotency-Key': key, ...scopeHeaders(SCOPE_A) },
    body: JSON.stringify(body),
  });
}
/** The raw bytes of the answer to raw bytes, read until the server closes the connection. */
function rawAnswer(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (d) => (text += d));
    socket.on('error', reject);
    socket.on('close', () => resolve(text));
    socket.write(request);
  });
}
const note = (text: string) => ({ kind: 'ext.acme.note', ...SCOPE_A, payload: { text } });

t.test('start on port 0, health, a write, status, stop', async (t) => {
  const dir = tempDir(t);
  const p = await spawnPreview(dir);
  t.teardown(() => p.child.kill('SIGKILL'));
  t.match(p.baseUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
  t.equal(statSync(join(dir, 'run.json')).mode & 0o777, 0o600, 'run.json is 0600');
  for (const key of ['ed25519.pem', 'ecdsa-p256.pem', 'hmac-sha256.key']) {
    t.equal(statSync(join(dir, 'keys', key)).mode & 0o777, 0o600, `keys/${key} is 0600, made on first start`);
  }
  const health = await (await fetch(`${p.baseUrl}/health`)).json();
  t.equal(health.status, 'ok');
  const res = await post(p, note('first durable note'), 'k1');
  t.equal(res.status, 201);
  // Over real HTTP the body has a Content-Length: the 1 MiB limit is enforced before reading it.
  const huge = await post(p, note('x'.repeat(1024 * 1024)), 'k-huge');
  t.equal(huge.status, 413);
  t.equal((await huge.json()).code, 'payload_too_large');
  // Below the app, the CLI's server answers too: a missing Host reaches the guard, and headers Node
  // will not read get a problem body (test/server/node-server.test.ts has every case).
  const port = Number(new URL(p.baseUrl).port);
  t.match(await rawAnswer(port, 'GET /health HTTP/1.0\r\n\r\n'), /^HTTP\/1\.1 403 [^]*"code":"host_not_allowed"/);
  t.match(await rawAnswer(port, `GET /health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Padding: ${'a'.repeat(17 * 1024)}\r\n\r\n`), /^HTTP\/1\.1 431 [^]*application\/problem\+json[^]*"code":"request_header_fields_too_large"/);
  const status = await runGov(['preview', 'status', '--data-dir', dir, '--json']);
  t.equal(status.code, 0);
  // A fresh preview records the forge data set it loads (fixtures/forge/default.json), then our write.
  t.match(JSON.parse(status.stdout), { running: true, pid: p.pid, health: { detail: { event_count: 2 } } });
  const stop = await runGov(['preview', 'stop', '--data-dir', dir]);
  t.equal(stop.code, 0, stop.stderr);
  t.same(await p.exited, { code: 0, signal: null });
  t.notOk(existsSync(join(dir, 'run.json')), 'the run file is removed');
  t.notOk(existsSync(join(dir, 'writer.lock')), 'the lock is released');
  t.match(p.stderr(), /POST \/v1\/events 201 [\d.]+ms/, 'one access line per request');
  t.match(p.stderr(), /^- - 431 - request_header_fields_too_large req_\S+$/m, 'and one for what the parser refused');
  t.notMatch(p.stderr() + p.stdout(), new RegExp(p.tokens.customer), 'no token is ever printed');
  const verify = await runGov(['events', 'verify', '--data-dir', dir, '--json']);
  t.equal(verify.code, 0);
  t.match(JSON.parse(verify.stdout), { ok: true, event_count: 2, index: { status: 'agrees' } });
  const notRunning = await runGov(['preview', 'status', '--data-dir', dir]);
  t.equal(notRunning.code, 1);
});

t.test('a second preview on the same data dir exits 3 naming the holder', async (t) => {
  const dir = tempDir(t);
  const p = await spawnPreview(dir);
  t.teardown(() => p.child.kill('SIGKILL'));
  const second = await runGov(['preview', 'start', '--port', '0', '--data-dir', dir]);
  t.equal(second.code, 3);
  t.match(second.stderr, new RegExp(`in use by process ${p.pid}`));
  const rebuild = await runGov(['store', 'rebuild-index', '--data-dir', dir]);
  t.equal(rebuild.code, 3, 'the index of a running preview is not rebuilt under it');
  p.child.kill('SIGTERM');
  t.same(await p.exited, { code: 0, signal: null }, 'SIGTERM stops cleanly');
});

t.test('usage errors exit 2', async (t) => {
  const bad = await runGov(['preview', 'start', '--host', '0.0.0.0']);
  t.equal(bad.code, 2);
  t.match(bad.stderr, /loopback/);
  t.equal((await runGov(['preview', 'start', '--port', 'abc'])).code, 2);
  t.equal((await runGov(['no-such-command'])).code, 2);
  const help = await runGov(['--help']);
  t.equal(help.code, 0);
  t.match(help.stdout, /preview/);
  t.match(help.stdout, /Examples:\n {2}\$ npx gov preview start /, 'the first example is the README\'s first command');
});

t.test('SIGKILL mid-stream loses no acknowledged event', async (t) => {
  const dir = tempDir(t);
  const p = await spawnPreview(dir);
  // Half the writers stream into tasks (the guarded path: expectations checked in the writer).
  for (const taskId of ['task-k1', 'task-k2']) {
    const res = await fetch(`${p.baseUrl}/v1/tasks`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${p.tokens.customer}`, 'Content-Type': 'application/json', ...scopeHeaders(SCOPE_A) },
      body: JSON.stringify({ task_id: taskId, title: 'Stream evidence until the kill', session_id: 'sess-k' }),
    });
    t.equal(res.status, 201);
  }
  const acknowledged = new Set<string>();
  let killed = false;
  let sent = 0;
  const worker = async (w: number) => {
    for (let i = 0; i < 400 && !killed; i++) {
      const key = `w${w}-${i}`;
      sent++;
      try {
        const res = await post(p, w % 2 === 0 ? note(`note ${key}`) : { ...note(`note ${key}`), task_id: w % 4 === 1 ? 'task-k1' : 'task-k2' }, key);
        if (res.status === 201) acknowledged.add((await res.json()).event.event_id);
      } catch {
        return; // connection refused or reset: the server is gone
      }
      if (acknowledged.size >= 150 && !killed) {
        killed = true;
        p.child.kill('SIGKILL');
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, (_, w) => worker(w)));
  await p.exited;
  t.ok(acknowledged.size >= 150, `acknowledged ${acknowledged.size} of ${sent}`);

  // The index was written without fsync; a killed process loses nothing the OS was handed, so
  // the restart (same boot) trusts and catches up the index instead of rebuilding it.
  if (process.platform === 'linux') t.ok(existsSync(join(dir, 'index.unsynced')), 'the killed run left its unsynced-index marker');
  const restarted = await spawnPreview(dir);
  t.teardown(() => restarted.child.kill('SIGKILL'));
  const events = readFileSync(join(dir, 'events.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const stored = new Set(events.map((e) => e.event_id));
  const lost = [...acknowledged].filter((id) => !stored.has(id));
  t.same(lost, [], 'every event that got a 201 is in the log');
  t.same(events.map((e) => e.seq), events.map((_, i) => i + 1), 'seq has no gap');
  restarted.child.kill('SIGTERM');
  await restarted.exited;
  t.notMatch(restarted.stderr(), /rebuilding it from the log/, 'no rebuild after a process crash');
  t.notOk(existsSync(join(dir, 'index.unsynced')), 'a clean stop flushes the index and removes the marker');
  const verify = await runGov(['events', 'verify', '--data-dir', dir]);
  t.equal(verify.code, 0, verify.stdout + verify.stderr);
});

t.test('idempotency keys survive a restart and an index rebuild', async (t) => {
  const dir = tempDir(t);
  const first = await spawnPreview(dir);
  const created = await post(first, note('kept across restarts'), 'durable-key');
  t.equal(created.status, 201);
  const original = await created.text();
  first.child.kill('SIGTERM');
  await first.exited;
  const rebuild = await runGov(['store', 'rebuild-index', '--data-dir', dir, '--json']);
  t.equal(rebuild.code, 0);
  t.match(JSON.parse(rebuild.stdout), { rebuilt: true, events: 2 });
  const second = await spawnPreview(dir);
  t.teardown(() => second.child.kill('SIGKILL'));
  const replay = await post(second, note('kept across restarts'), 'durable-key');
  t.equal(replay.status, 200);
  t.equal(replay.headers.get('idempotent-replayed'), 'true');
  t.equal(await replay.text(), original);
  const reused = await post(second, note('another body'), 'durable-key');
  t.equal(reused.status, 422);
  second.child.kill('SIGTERM');
  await second.exited;
});

t.test('--forge-data and --config: a bad file exits 2 before locking, a good one is loaded', async (t) => {
  const dir = tempDir(t);
  const { writeFileSync } = await import('node:fs');
  writeFileSync(join(dir, 'bad-forge.json'), JSON.stringify({ repos: [{ owner: 'nobody', name: 'x', private: false, size: 1, lfs_size: 0 }] }));
  const bad = await runGov(['preview', 'start', '--port', '0', '--data-dir', join(dir, 'data'), '--forge-data', join(dir, 'bad-forge.json')]);
  t.equal(bad.code, 2);
  t.match(bad.stderr, /bad-forge\.json/);
  t.notOk(existsSync(join(dir, 'data', 'writer.lock')), 'nothing was locked');
  writeFileSync(join(dir, 'bad-config.json'), JSON.stringify({ quota: { enabled: 'yes' } }));
  const badConfig = await runGov(['preview', 'start', '--port', '0', '--data-dir', join(dir, 'data'), '--config', join(dir, 'bad-config.json')]);
  t.equal(badConfig.code, 2);

  const forge = { users: [{ login: 'zoe', full_name: 'Zoe Z.', is_admin: false }], repos: [{ owner: 'zoe', name: 'app', private: true, size: 2048, lfs_size: 0 }] };
  writeFileSync(join(dir, 'forge.json'), JSON.stringify(forge));
  const p = await spawnPreview(join(dir, 'data'), ['--forge-data', join(dir, 'forge.json')]);
  t.teardown(() => p.child.kill('SIGKILL'));
  const res = await fetch(`${p.baseUrl}/admin/forge/data`, { headers: { Authorization: `Bearer ${p.tokens.operator}` } });
  t.equal(res.status, 200);
  t.match(await res.json(), { users: [{ login: 'zoe' }], repos: [{ owner: 'zoe', name: 'app' }] });
  p.child.kill('SIGTERM');
  await p.exited;
});
