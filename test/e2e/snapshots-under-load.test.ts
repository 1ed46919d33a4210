// Snapshots as of now (a Proof Packet, a claim evaluation, an export without as_of) against a real
// preview while another scope writes without pause. Each snapshot's append expects that no event
// beyond what it read was recorded at or before its as_of. Before the store waited for the batch
// being written when the snapshot was taken (`settledAsOf`), one often was: on a busy machine, where
// the index trails, most of these requests answered 409 write_conflict after eight tries (on an
// idle one they passed). test/store/store.test.ts shows the mechanism itself, deterministically.
import { Agent, request } from 'node:http';
import t from 'tap';
import { tempDir } from '../fixtures/test-app.ts';
import { scopeHeaders, spawnPreview } from '../fixtures/spawn-preview.ts';

const QUIET = { tenant_id: 't-quiet', workspace_id: 'w-1', project_id: 'p-1' };
const BUSY = { tenant_id: 't-busy', workspace_id: 'w-1', project_id: 'p-1' };
const WRITERS = 32;
const ROUNDS = 5;

t.test('packets, claim evaluations and exports as of now answer while another scope writes', async (t) => {
  const preview = await spawnPreview(tempDir(t));
  t.teardown(async () => {
    preview.child.kill('SIGTERM');
    await preview.exited;
  });
  // Keep-alive connections, as an integrator's adapter holds them: the load has to be steady.
  const agent = new Agent({ keepAlive: true, maxSockets: WRITERS + 1 });
  t.teardown(() => agent.destroy());
  const send = (scope: typeof QUIET, method: string, path: string, body?: unknown, key?: string) =>
    new Promise<{ status: number; json: any }>((resolve, reject) => {
      const headers: Record<string, string> = { Authorization: `Bearer ${preview.tokens.customer}`, ...scopeHeaders(scope) };
      if (body !== undefined) headers['Content-Type'] = 'application/json';
      if (key !== undefined) headers['Idempotency-Key'] = key;
      const req = request(`${preview.baseUrl}${path}`, { method, headers, agent }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, json: text ? JSON.parse(text) : null }));
      });
      req.on('error', reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
  t.equal((await send(QUIET, 'POST', '/v1/tasks', { task_id: 'task-1', title: 'Publish the audit trail export', session_id: 'sess-1' }, 'create')).status, 201);
  t.equal((await send(QUIET, 'POST', '/v1/tasks/task-1/checkpoints', { progress: 'Export job ran' }, 'checkpoint')).status, 201);

  let writing = true;
  let written = 0;
  const writers = Array.from({ length: WRITERS }, async (_, w) => {
    for (let i = 0; writing; i++) {
      const res = await send(BUSY, 'POST', '/v1/events', { kind: 'ext.acme.note', ...BUSY, payload: { text: `note ${w}.${i} about the deployment pipeline` } }, `note-${w}-${i}`);
      if (res.status !== 201) throw new Error(`a write of the busy scope answered ${res.status}: ${JSON.stringify(res.json)}`);
      written++;
    }
  });
  try {
    // Let the writers reach a steady load first.
    while (written < 500) await new Promise((resolve) => setTimeout(resolve, 20));
    for (let i = 0; i < ROUNDS; i++) {
      const packet = await send(QUIET, 'POST', '/v1/proof-packets', { task_ids: ['task-1'] }, `packet-${i}`);
      t.equal(packet.status, 201, `packet ${i}: ${packet.json?.code ?? 'assembled'}`);
      t.equal(packet.json?.event_range?.event_count, 2, `packet ${i} holds the task's two events`);
      const claims = await send(QUIET, 'POST', '/v1/claim-boundaries/evaluate', { task_ids: ['task-1'], claims: [{ claim: 'The export job ran.' }] }, `claims-${i}`);
      t.equal(claims.status, 200, `claim evaluation ${i}: ${claims.json?.code ?? 'evaluated'}`);
      const exported = await send(QUIET, 'GET', '/v1/exports/access-log');
      t.equal(exported.status, 200, `export ${i}: ${exported.json?.code ?? 'exported'}`);
    }
  } finally {
    writing = false;
    await Promise.all(writers);
  }
  t.ok(written > 500, `the busy scope wrote throughout (${written} events)`);
});
