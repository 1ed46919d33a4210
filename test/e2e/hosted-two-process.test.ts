// Two real `gov serve` processes on one PostgreSQL database under concurrent load, one of them
// SIGKILLed mid-load: five rounds, each on a fresh database. 64 keep-alive writers, half on each
// process, POST ~0.8 KB events (some into one task, some into none); after 1–1.5 s one process is
// killed while the other takes load for 0.5 s more. Then the log must verify (gapless, chained,
// head row agrees, a Merkle root), hold every acknowledged event under the seq its 201 named, and
// no two acknowledgements may share a seq: what a 201 promises survives the death of its peer.
import t, { type Test } from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrateDatabase, verifyDatabaseLog } from '../../src/store/pg/pg-log-tools.ts';
import { testIssuer, type TestIssuer } from '../fixtures/oidc.ts';
import { testDatabase } from '../fixtures/postgres.ts';
import { GOV_BIN } from '../fixtures/spawn-preview.ts';
import { tempDir } from '../fixtures/test-app.ts';

const ROUNDS = 5;
const WRITERS = 64;
const SCOPE = { tenant_id: 'acme', workspace_id: 'ws-1', project_id: 'proj-1' };
const TASK = 'task-load';

type Serve = {
  name: 'A' | 'B';
  child: ChildProcess;
  baseUrl: string;
  pid: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr: () => string;
  /** The lines it wrote on stderr that are not access-log lines (warnings, failures). */
  notes: () => string[];
};

/** Every child this file started: killed when the test process exits, whatever happened. */
const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** `gov serve … --json` on port 0: resolves once its JSON line names the base URL; SIGKILLed at teardown if still running. */
async function spawnServe(t: Test, name: Serve['name'], url: string, idp: TestIssuer): Promise<Serve> {
  const child = spawn(
    process.execPath,
    [
      GOV_BIN,
      'serve',
      '--database-url',
      url,
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--issuer',
      idp.issuer,
      '--audience',
      idp.audience,
      '--jwks-file',
      idp.jwksFile,
      '--cache-dir',
      tempDir(t, `gov-serve-${name}-`),
      '--json',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.add(child);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    children.delete(child);
  });
  let out = '';
  let err = '';
  let partial = '';
  const notes: string[] = [];
  child.stderr!.on('data', (d: Buffer) => {
    // The access log of thousands of requests: keep its tail only, and every other line.
    err = (err + d.toString()).slice(-20_000);
    const lines = (partial + d.toString()).split('\n');
    partial = lines.pop()!;
    for (const line of lines) if (line !== '' && !/^(GET|POST|PUT|PATCH|DELETE|OPTIONS|HEAD) \/\S* \d{3} /.test(line)) notes.push(line);
  });
  const line = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gov serve ${name} did not print its JSON line within 30 s: ${err}`)), 30_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        resolve(out.slice(0, nl));
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`gov serve ${name} exited (${code ?? signal}) before listening: ${err}`));
    });
  });
  const info = JSON.parse(line) as { base_url: string; pid: number; events: number; issuer: string };
  t.equal(info.pid, child.pid, `gov serve ${name}: its JSON line names its own pid`);
  t.equal(info.issuer, idp.issuer);
  t.equal(info.events, 0, `gov serve ${name} starts on an empty log`);
  return { name, child, baseUrl: info.base_url, pid: info.pid, exited, stderr: () => err, notes: () => notes };
}

type Ack = { server: 'A' | 'B'; event_id: string; seq: number; at: number; inTask: boolean };
type Tally = { acks: Ack[]; statuses: Map<string, number>; errors: Map<string, number> };

const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);

/**
 * One writer: POSTs events to its server back to back (fetch keeps the connection alive) until
 * `stop` aborts, or, once its server has been killed, at the first request that fails.
 */
async function writer(n: number, server: Serve, headers: Record<string, string>, inTask: boolean, stop: AbortSignal, dead: ReadonlySet<string>, tally: Tally): Promise<void> {
  for (let k = 0; !stop.aborted; k++) {
    const body = JSON.stringify({
      kind: 'ext.acme.note',
      ...SCOPE,
      ...(inTask ? { task_id: TASK } : {}),
      payload: { writer: n, k, text: `writer ${n} note ${k}: ${randomBytes(560).toString('base64url')}` },
    });
    try {
      const res = await fetch(`${server.baseUrl}/v1/events`, {
        method: 'POST',
        headers: { ...headers, 'Idempotency-Key': `w${n}-${k}-${randomBytes(6).toString('hex')}` },
        body,
        signal: AbortSignal.timeout(15_000),
      });
      const text = await res.text();
      if (res.status === 201) {
        const { event } = JSON.parse(text) as { event: { event_id: string; seq: number } };
        tally.acks.push({ server: server.name, event_id: event.event_id, seq: event.seq, at: Date.now(), inTask });
      } else {
        bump(tally.statuses, `${server.name}${dead.has(server.name) ? ' (killed)' : ''}: ${res.status} ${text.slice(0, 160)}`);
      }
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      if (dead.has(server.name)) return; // its server was killed: this writer is done
      bump(tally.errors, `${server.name}: ${(err as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ''}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

async function post(server: Serve, path: string, headers: Record<string, string>, body: unknown, key: string): Promise<{ status: number; json: any }> {
  const res = await fetch(`${server.baseUrl}${path}`, {
    method: 'POST',
    headers: { ...headers, 'Idempotency-Key': key },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  return { status: res.status, json: await res.json() };
}

let idp: TestIssuer;
t.before(async () => {
  idp = await testIssuer();
});
t.teardown(() => idp?.close());

for (let round = 1; round <= ROUNDS; round++) {
  t.test(`round ${round}: two gov serve processes, ${WRITERS} writers, one process SIGKILLed under load`, async (t) => {
    const url = await testDatabase(t);
    if (url === null) return;
    const started = Date.now();
    await migrateDatabase(url);
    const [a, b] = await Promise.all([spawnServe(t, 'A', url, idp), spawnServe(t, 'B', url, idp)]);
    const spawnedMs = Date.now() - started;
    const token = await idp.mint({ gov_tenant: 'acme', gov_roles: ['owner'] }, { expiresIn: '30m' });
    const headers = {
      Authorization: `Bearer ${token}`,
      'X-Tenant-Id': SCOPE.tenant_id,
      'X-Workspace-Id': SCOPE.workspace_id,
      'X-Project-Id': SCOPE.project_id,
      'Content-Type': 'application/json',
    };

    // The task is created through A; B must see it (it catches up with A's commit) before the load starts.
    const created = await post(a, '/v1/tasks', headers, { task_id: TASK, title: 'Take the two-process load', session_id: 'sess-load' }, `task-${round}`);
    t.equal(created.status, 201, `the task is created through A: ${JSON.stringify(created.json).slice(0, 300)}`);
    const seen = await fetch(`${b.baseUrl}/v1/tasks/${TASK}`, { headers, signal: AbortSignal.timeout(15_000) });
    t.equal(seen.status, 200, 'B reads the task A created');
    await seen.text();

    const [victim, survivor] = round % 2 === 1 ? [a, b] : [b, a];
    const tally: Tally = { acks: [], statuses: new Map(), errors: new Map() };
    const stop = new AbortController();
    // A failed assertion or a throw below must not leave writers looping: teardown stops them first (then the children).
    t.teardown(() => stop.abort());
    const dead = new Set<string>();
    let killedAt: number | null = null;
    const loadStarted = Date.now();
    const writers = Array.from({ length: WRITERS }, (_, n) => writer(n, n % 2 === 0 ? a : b, headers, n % 4 < 2, stop.signal, dead, tally));

    await new Promise((r) => setTimeout(r, 1_000 + Math.floor(Math.random() * 500)));
    killedAt = Date.now();
    dead.add(victim.name);
    victim.child.kill('SIGKILL');
    const victimExit = await victim.exited;
    t.equal(victimExit.signal, 'SIGKILL', `${victim.name} was SIGKILLed ${killedAt - loadStarted} ms into the load`);
    await new Promise((r) => setTimeout(r, 500));
    stop.abort();
    await Promise.all(writers);
    const loadMs = Date.now() - loadStarted;

    // The survivor's reads see every event in the task, its peer's included (it catches up before a read).
    const taskRead = await fetch(`${survivor.baseUrl}/v1/tasks/${TASK}`, { headers, signal: AbortSignal.timeout(15_000) });
    const task = (await taskRead.json()) as { last_seq?: number; status?: string };

    survivor.child.kill('SIGTERM');
    const survivorExit = await survivor.exited;
    t.same(survivorExit, { code: 0, signal: null }, `${survivor.name} stops on SIGTERM with exit 0 (stderr tail: ${survivor.stderr().slice(-600)})`);

    t.same(survivor.notes(), ['stopping: finishing in-flight requests'], `${survivor.name} wrote no warning on stderr`);
    t.same(victim.notes(), [], `${victim.name} wrote no warning on stderr before it was killed`);

    const acksOf = (s: Serve) => tally.acks.filter((x) => x.server === s.name);
    const survivorAfterKill = acksOf(survivor).filter((x) => x.at > killedAt!).length;
    t.ok(acksOf(a).length > 0, `A acknowledged writes (${acksOf(a).length})`);
    t.ok(acksOf(b).length > 0, `B acknowledged writes (${acksOf(b).length})`);
    t.ok(acksOf(victim).filter((x) => x.at <= killedAt!).length > 0, `${victim.name} acknowledged writes before it was killed`);
    t.ok(acksOf(survivor).filter((x) => x.at <= killedAt!).length > 0, `${survivor.name} acknowledged writes before the kill`);
    t.ok(survivorAfterKill > 0, `${survivor.name} kept acknowledging after its peer died (${survivorAfterKill} in the last ~0.5 s)`);
    t.ok(tally.acks.some((x) => x.inTask) && tally.acks.some((x) => !x.inTask), 'writes into the task and outside any task were both acknowledged');
    t.same(Object.fromEntries(tally.statuses), {}, 'every answer either process gave was 201');
    t.same(Object.fromEntries([...tally.errors].filter(([k]) => k.startsWith(survivor.name))), {}, `no request to ${survivor.name} failed`);
    t.same(Object.fromEntries([...tally.errors].filter(([k]) => k.startsWith(victim.name))), {}, `no request to ${victim.name} failed before it was killed`);

    const verification = await verifyDatabaseLog(url);
    t.match(
      verification,
      { ok: true, first_bad_seq: null, problem: null, head: { agrees: true }, merkle_root: /^sha256:[0-9a-f]{64}$/ },
      'the log verifies: chain intact, head row agrees',
    );
    t.equal(verification.event_count, verification.last_seq, `gapless: ${verification.event_count} events, seq 1–${verification.last_seq}`);
    t.equal(verification.head.seq, verification.last_seq);

    const seqs = new Set(tally.acks.map((x) => x.seq));
    t.equal(seqs.size, tally.acks.length, 'no two acknowledgements share a seq');
    t.equal(new Set(tally.acks.map((x) => x.event_id)).size, tally.acks.length, 'no two acknowledgements share an event_id');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    let rows: Array<{ event_id: string; seq: string; task_id: string | null }>;
    try {
      rows = (await client.query<{ event_id: string; seq: string; task_id: string | null }>("SELECT event_id, seq, line::jsonb ->> 'task_id' AS task_id FROM gov_events")).rows;
    } finally {
      await client.end();
    }
    const logged = new Map(rows.map((r) => [r.event_id, { seq: Number(r.seq), task: r.task_id }]));
    const missing = tally.acks.filter((x) => !logged.has(x.event_id));
    t.same(missing.slice(0, 5), [], `every acknowledged event is in the log (${missing.length} of ${tally.acks.length} missing)`);
    const moved = tally.acks.filter((x) => logged.has(x.event_id) && logged.get(x.event_id)!.seq !== x.seq);
    t.same(moved.slice(0, 5), [], 'each under the seq its 201 named');
    const taskSeqs = rows.filter((r) => r.task_id === TASK).map((r) => Number(r.seq));
    t.equal(taskRead.status, 200, `${survivor.name} reads the task after the load`);
    t.match(task, { status: 'open', last_seq: Math.max(...taskSeqs) }, `${survivor.name}'s task read names the task's last event in the log (${taskSeqs.length} events)`);
    const wrongTask = tally.acks.filter((x) => logged.has(x.event_id) && (logged.get(x.event_id)!.task === TASK) !== x.inTask);
    t.same(wrongTask.slice(0, 5), [], 'each in the task it was sent to, or in none');
    t.ok(
      verification.event_count >= tally.acks.length + 1,
      `the log holds the task and every acknowledged event (${verification.event_count} ≥ ${tally.acks.length} + 1; the rest were in flight to ${victim.name} when it died)`,
    );

    t.comment(
      `round ${round}: ${spawnedMs} ms to migrate and start both; load ${loadMs} ms; ${tally.acks.length} acks (A ${acksOf(a).length}, B ${acksOf(b).length}; ${victim.name} killed at ${killedAt - loadStarted} ms; ${survivor.name} ${survivorAfterKill} after); log ${verification.event_count} events; round ${Date.now() - started} ms`,
    );
  });
}
