// Two gov serve instances on one database, in this process: an event stream on one sees what the
// other appends (NOTIFY), a read through one sees the other's acknowledged write at once (the head
// row), and connections the database drops (pg_terminate_backend, as a restart or a failover
// does) are replaced: a write meanwhile is answered 503 at worst and never lost, and the next one
// lands; the listener reconnects and streams go on.
import t, { type Test } from 'tap';
import { get } from 'node:http';
import pg from 'pg';
import { streamEvents, type StreamedEvent } from '../../src/client/event-stream.ts';
import { startHosted, type HostedHandle } from '../../src/hosted.ts';
import { migrateDatabase, verifyDatabaseLog } from '../../src/store/pg/pg-log-tools.ts';
import { testIssuer, type TestIssuer } from '../fixtures/oidc.ts';
import { testDatabase } from '../fixtures/postgres.ts';

const SCOPE = { tenant_id: 'acme', workspace_id: 'ws-1', project_id: 'proj-1' };

async function serve(t: Test, url: string, idp: TestIssuer, warnings: string[]): Promise<HostedHandle> {
  const hosted = await startHosted({ databaseUrl: url, host: '127.0.0.1', port: 0, oidc: idp.config() }, { warn: (m) => warnings.push(m), logError: (line) => warnings.push(`5xx: ${line}`) });
  t.teardown(() => hosted.stop());
  return hosted;
}

let keys = 0;
function note(base: string, token: string, text: string, key = `note-${++keys}`): Promise<Response> {
  return fetch(`${base}/v1/events`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
      'X-Tenant-Id': SCOPE.tenant_id,
      'X-Workspace-Id': SCOPE.workspace_id,
      'X-Project-Id': SCOPE.project_id,
      'Idempotency-Key': key,
    },
    body: JSON.stringify({ kind: 'ext.acme.note', ...SCOPE, payload: { text } }),
  });
}

async function until(what: string, check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

t.test('two instances: streams and reads see each other, dropped connections heal', async (t) => {
  const url = await testDatabase(t);
  if (url === null) return;
  await migrateDatabase(url);
  const idp = await testIssuer();
  t.teardown(() => idp.close());
  const token = await idp.mint({ gov_tenant: SCOPE.tenant_id, gov_roles: ['owner'] });
  const warnings: string[] = [];
  const a = await serve(t, url, idp, warnings);
  const b = await serve(t, url, idp, warnings);

  const seen: StreamedEvent[] = [];
  const stop = new AbortController();
  const streaming = streamEvents({ baseUrl: b.baseUrl, token, scope: SCOPE, afterSeq: 0, signal: stop.signal, retryMs: 100, onEvent: (e) => seen.push(e), onError: (e) => t.comment(`stream retried: ${String((e as Error)?.message ?? e)}`) });
  t.teardown(async () => {
    stop.abort();
    await streaming;
  });

  // Behind a proxy the Host is the public name: any Host reaches the hosted service (no loopback guard).
  for (const host of ['gov.example.com', 'gov.example.com:443', '10.0.0.5:8080']) {
    const status = await new Promise<number | undefined>((resolve, reject) => {
      get({ host: '127.0.0.1', port: a.port, path: '/v1/tasks', headers: { Host: host, Authorization: `Bearer ${token}`, 'X-Tenant-Id': SCOPE.tenant_id, 'X-Workspace-Id': SCOPE.workspace_id, 'X-Project-Id': SCOPE.project_id } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
      }).on('error', reject);
    });
    t.equal(status, 200, `Host: ${host} is served`);
  }

  const first = await note(a.baseUrl, token, 'written through a');
  t.equal(first.status, 201);
  const written = (await first.json()) as { event: { seq: number; event_id: string } };
  await until('b\'s stream to carry a\'s event', () => seen.some((e) => e.event.event_id === written.event.event_id));
  t.pass('an event appended through a reaches a stream open on b');

  // A read through b right after a's 201 sees it: b asks the head row before it reads.
  const second = await note(a.baseUrl, token, 'read at once through b');
  const secondSeq = ((await second.json()) as { event: { seq: number } }).event.seq;
  const health = await fetch(`${b.baseUrl}/health`, { headers: { Authorization: `Bearer ${await idp.mint({ gov_tenant: SCOPE.tenant_id, gov_roles: ['gov_operator'] })}` } });
  t.equal(health.status, 200);
  const list = await fetch(`${b.baseUrl}/v1/search?q=once`, { headers: { Authorization: `Bearer ${token}`, 'X-Tenant-Id': SCOPE.tenant_id, 'X-Workspace-Id': SCOPE.workspace_id, 'X-Project-Id': SCOPE.project_id } });
  t.equal(list.status, 200);
  const hits = (await list.json()) as { results: Array<{ seq: number }> };
  t.ok(hits.results.some((r) => r.seq === secondSeq), 'a search through b finds what a acknowledged a moment ago');

  // The database drops every gov connection, the listeners' included.
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  t.teardown(() => admin.end());
  const killed = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'gov' AND pid <> pg_backend_pid()");
  t.ok(killed.rowCount! >= 4, `${killed.rowCount} gov connections terminated (pools and listeners of both)`);

  // Writes go on: a pooled connection that died is replaced (a batch whose connection fails before
  // anything was sent is tried again on another); at worst, if a connection dies mid-transaction,
  // one answer is a 503 that a retry with the same key settles, and nothing is written twice.
  const statuses: number[] = [];
  let landed: { seq: number; event_id: string } | null = null;
  for (let attempt = 0; attempt < 5 && landed === null; attempt++) {
    const res = await note(a.baseUrl, token, 'after the connections dropped', 'after-drop-1');
    statuses.push(res.status);
    if (res.status === 201 || res.status === 200) landed = ((await res.json()) as { event: { seq: number; event_id: string } }).event;
    else await res.text();
  }
  t.ok(landed !== null, `the write lands (answers: ${statuses.join(', ')})`);
  t.ok(statuses.every((s) => s === 201 || s === 200 || s === 503), 'nothing but 201/200 or a retryable 503');
  await until('b\'s stream to carry the write made after the drop', () => seen.some((e) => e.event.event_id === landed!.event_id), 15_000);
  t.pass('the stream on b goes on after its connections dropped');

  const b2 = await note(b.baseUrl, token, 'through b after the drop');
  t.equal(b2.status, 201, 'b writes again too');

  const log = await verifyDatabaseLog(url);
  t.ok(log.ok, 'the log verifies');
  t.equal(log.event_count, log.last_seq, 'gapless');
  const keyed = await admin.query("SELECT count(*)::int AS n FROM gov_events WHERE line LIKE '%\"idempotency_key\":\"after-drop-1\"%'");
  t.equal(keyed.rows[0].n, 1, 'the retried write is in the log once');
  // Every 5xx is logged: exactly the 503s answered, each the store's retryable refusal.
  const logged = warnings.filter((w) => w.startsWith('5xx:'));
  t.equal(logged.length, statuses.filter((s) => s === 503).length, 'a 5xx is logged for each 503 answered, and for nothing else');
  for (const line of logged) t.match(line, /"code":"store_(write_failed|unavailable)"/, 'the store\'s retryable refusal');
});
