// The governed task lifecycle through the routes: create, checkpoint, closeout gates (a failed gate
// writes nothing), projection, timeline paging, scope isolation, transport, templates.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { expectNewEvents, expectNoEvents, expectResponse, spec } from '../fixtures/api-spec.ts';
import { MAX_TIMELINE_PAGE_BYTES } from '../../src/server/routes/tasks.ts';
import { assertSchema, rawEvent, SCOPE_A, SCOPE_B, testApp } from '../fixtures/test-app.ts';

const evidence = {
  artifact_id: 'ci-run-77',
  uri: 'https://ci.internal.test/runs/77/log',
  evidence_type: 'log',
  sha256: 'a'.repeat(64),
  confidence: 'claimed',
  redaction: 'none',
  content_trust: 'trusted_internal',
  captured_at: '2026-11-01T09:00:00Z',
};

export const goodCloseout = {
  outcome: 'completed',
  summary: 'Rotated the signing key of the billing exporter and re-signed the pending exports.',
  verification: ['Ran the exporter test suite: 41 of 41 pass after the rotation'],
  evidence_refs: [evidence],
  context_lines: ['The billing exporter reads its key from vault path billing/exporter/signing', 'Old key id exp-2025-q3 stays valid for verification until January'],
  future_agent_traps: ['Rotating the key without re-signing pending exports breaks the nightly upload'],
};

async function withTask(t: Test) {
  const ctx = await testApp(t);
  const created = await ctx.call('/v1/tasks', { body: { task_id: 'task-1', title: 'Rotate the billing exporter key', session_id: 'sess-1' } });
  t.equal(created.status, 201);
  return ctx;
}

t.test('create → checkpoint → closeout, with the projection at each step', async (t) => {
  const { call } = await withTask(t);
  const task = await call('/v1/tasks/task-1');
  t.equal(task.status, 200);
  assertSchema(t, 'api/task.json', task.json);
  t.match(task.json, { task_id: 'task-1', title: 'Rotate the billing exporter key', status: 'open', session_ids: ['sess-1'], last_seq: 1 });

  const cp = await call('/v1/tasks/task-1/checkpoints', { body: { session_id: 'sess-2', progress: 'Key rotated in staging; production pending', next_actions: ['Rotate production'], context_lines: ['Staging uses the same vault path as production'], evidence_refs: [evidence] } });
  t.equal(cp.status, 201);
  assertSchema(t, 'api/event-response.json', cp.json);
  t.match(cp.json.event, { kind: 'task.checkpoint.written', task_id: 'task-1', session_id: 'sess-2', payload: { progress: 'Key rotated in staging; production pending' } });
  t.same(cp.json.event.evidence_refs, [evidence]);

  const closed = await call('/v1/tasks/task-1/closeout', { body: goodCloseout });
  t.equal(closed.status, 201);
  assertSchema(t, 'api/task-write-response.json', closed.json);
  t.match(closed.json.task, { status: 'closed', outcome: 'completed', session_ids: ['sess-1', 'sess-2'], last_seq: 3 });
  t.equal(closed.json.event.kind, 'task.closed');
  t.notOk('evidence_refs' in closed.json.event.payload, 'evidence travels in the envelope');

  const after = await call('/v1/tasks/task-1');
  t.equal(after.json.status, 'closed');
  t.equal(after.json.closed_at, closed.json.event.recorded_at);

  for (const [path, body] of [['/v1/tasks/task-1/checkpoints', { progress: 'late' }], ['/v1/tasks/task-1/closeout', goodCloseout]] as const) {
    const late = await call(path, { body });
    t.equal(late.status, 409, path);
    t.equal(late.json.code, 'task_closed');
  }
  const lateEvidence = await call('/v1/events', { body: rawEvent(SCOPE_A, { kind: 'evidence.attached', task_id: 'task-1', payload: {}, evidence_refs: [evidence] }), idempotencyKey: 'late' });
  t.equal(lateEvidence.status, 409, 'raw writes to a closed task are refused too');
});

t.test('a failed closeout answers the validation body and writes nothing', async (t) => {
  const app = await withTask(t);
  const { context_lines: _c, future_agent_traps: _f, ...missing } = goodCloseout;
  // The validation body: the spec checks it against api/validation-result.json.
  const res = await spec(t, app).when('/v1/tasks/task-1/closeout', { body: missing }).then(expectResponse(422, { ok: false }), expectNoEvents());
  t.same([...res.json.missing_fields].sort(), ['context_lines', 'future_agent_traps']);
  t.equal(res.json.repair_prompt.length, 2, 'one repair prompt per missing field');
  t.match(res.json.repair_prompt.join('\n'), /context_lines/);
  t.match(res.json.repair_prompt.join('\n'), /20 characters/);
  const timeline = await spec(t, app).when('/v1/tasks/task-1/timeline').then(expectResponse(200), expectNoEvents());
  t.equal(timeline.json.events.length, 1);
  t.equal((await spec(t, app).when('/v1/tasks/task-1').then(expectResponse(200), expectNoEvents())).json.status, 'open');
  await spec(t, app, 'an unknown member fails the gate too').when('/v1/tasks/task-1/closeout', { body: { ...goodCloseout, colour: 'red' } })
    .then(expectResponse(422, { ok: false }), expectNoEvents());
});

t.test('create conflicts, ids, validation and transport', async (t) => {
  const app = await withTask(t);
  const { call } = app;
  const dup = await call('/v1/tasks', { body: { task_id: 'task-1', title: 'Again', session_id: 'sess-1' } });
  t.equal(dup.status, 409);
  t.equal(dup.json.code, 'task_exists');
  const generated = await call('/v1/tasks', { body: { title: 'No id given', session_id: 'sess-1' } });
  t.equal(generated.status, 201);
  t.match(generated.json.task.task_id, /^task_/);
  const bad = await call('/v1/tasks', { body: { title: 'x', session_id: 'sess-1', colour: 'red' } });
  t.equal(bad.status, 422);
  assertSchema(t, 'api/validation-result.json', bad.json);
  t.same([bad.json.ok, bad.json.blockers.map((b: any) => [b.code, b.pointer])], [false, [['schema_violation', '/colour']]], 'an unknown member fails the task.create.v1 gate');
  for (const [path, body] of [['/v1/tasks', { title: 'Operator', session_id: 'sess-1' }], ['/v1/tasks/task-1/checkpoints', { progress: 'x' }], ['/v1/tasks/task-1/closeout', goodCloseout]] as const) {
    await spec(t, app, `operator ${path}`).when(path, { body, token: 'operator' }).then(expectResponse(403, { code: 'operator_transport_rejected' }), expectNoEvents());
  }
  const reads = await call('/v1/tasks/task-1', { token: 'operator' });
  t.equal(reads.status, 200, 'reads accept the operator token');
});

t.test('scope: tenant A and tenant B each have a task-1 and never see each other', async (t) => {
  const { call } = await testApp(t);
  t.equal((await call('/v1/tasks', { body: { task_id: 'task-1', title: 'Tenant A task about lighthouses', session_id: 's-a' } })).status, 201);
  t.equal((await call('/v1/tasks', { scope: SCOPE_B, body: { task_id: 'task-1', title: 'Tenant B task about submarines', session_id: 's-b' } })).status, 201);
  t.equal((await call('/v1/tasks/task-1')).json.title, 'Tenant A task about lighthouses');
  t.equal((await call('/v1/tasks/task-1', { scope: SCOPE_B })).json.title, 'Tenant B task about submarines');
  const timelineA = await call('/v1/tasks/task-1/timeline');
  t.same(timelineA.json.events.map((e: any) => e.tenant_id), ['tenant-a']);
  t.same(timelineA.json.scope, SCOPE_A);
  const searchA = await call('/v1/search?q=submarines');
  t.same(searchA.json.results, [], 'tenant A does not find tenant B');
  const searchB = await call('/v1/search?q=submarines', { scope: SCOPE_B });
  t.equal(searchB.json.results.length, 1);
  const otherWorkspace = { ...SCOPE_A, workspace_id: 'ws-2' };
  t.equal((await call('/v1/tasks/task-1', { scope: otherWorkspace })).status, 404);
  const crossCheckpoint = await call('/v1/tasks/task-9/checkpoints', { scope: SCOPE_B, body: { progress: 'x' } });
  t.equal(crossCheckpoint.status, 404);
  t.equal(crossCheckpoint.json.code, 'task_not_found');
  t.equal((await call('/v1/tasks/task-1/closeout', { scope: otherWorkspace, body: goodCloseout })).status, 404);
  t.equal((await call('/v1/tasks/task-1')).json.status, 'open', 'nothing closed across scopes');
});

t.test('evidence attached through the raw door appears in the timeline and in search', async (t) => {
  const { call } = await withTask(t);
  const attached = await call('/v1/events', {
    body: rawEvent(SCOPE_A, { kind: 'evidence.attached', task_id: 'task-1', payload: { note: 'signed exporter manifest' }, evidence_refs: [{ ...evidence, artifact_id: 'manifest-9', uri: 'https://artifacts.internal.test/exporter/manifest-nine.json' }] }),
    idempotencyKey: 'attach-9',
  });
  t.equal(attached.status, 201);
  const timeline = await call('/v1/tasks/task-1/timeline');
  t.same(timeline.json.events.map((e: any) => e.kind), ['task.created', 'evidence.attached']);
  const byUri = await call('/v1/search?q=manifest%20nine');
  t.same(byUri.json.results.map((r: any) => [r.kind, r.task_id]), [['evidence.attached', 'task-1']], 'found by a word of its uri');
  const byNote = await call('/v1/search?q=exporter%20manifest&kind=evidence.attached');
  t.equal(byNote.json.results.length, 1);
});

t.test('timeline paging and search', async (t) => {
  const { call } = await withTask(t);
  for (let i = 0; i < 5; i++) await call('/v1/tasks/task-1/checkpoints', { body: { progress: `step ${i} of the quartz migration` } });
  const page1 = await call('/v1/tasks/task-1/timeline?limit=4');
  assertSchema(t, 'api/timeline.json', page1.json);
  t.same(page1.json.events.map((e: any) => e.seq), [1, 2, 3, 4]);
  t.equal(page1.json.next_after_seq, 4);
  t.equal(page1.json.authority, 'event_truth');
  const page2 = await call('/v1/tasks/task-1/timeline?limit=4&after_seq=4');
  t.same(page2.json.events.map((e: any) => e.seq), [5, 6]);
  t.equal(page2.json.next_after_seq, null);
  const exact = await call('/v1/tasks/task-1/timeline?limit=2&after_seq=4');
  t.same([exact.json.events.map((e: any) => e.seq), exact.json.next_after_seq], [[5, 6], null], 'a page that ends with the last event says no more follow');
  const past = await call('/v1/tasks/task-1/timeline?after_seq=6');
  assertSchema(t, 'api/timeline.json', past.json);
  t.same([past.json.events, past.json.next_after_seq], [[], null], 'after the last event: an empty page');
  for (const q of ['limit=0', 'limit=1001', 'after_seq=-1', 'limit=abc']) {
    const bad = await call(`/v1/tasks/task-1/timeline?${q}`);
    t.equal(bad.status, 400, q);
    t.equal(bad.json.code, 'invalid_query');
  }
  t.equal((await call('/v1/tasks/nope/timeline')).status, 404);

  const s1 = await call('/v1/search?q=quartz&limit=3');
  assertSchema(t, 'api/search-result.json', s1.json);
  t.same(s1.json.results.map((r: any) => r.seq), [6, 5, 4], 'newest first');
  t.equal(s1.json.authority, 'discovery_only');
  t.match(s1.json.results[0].snippet, /\[quartz\]/);
  const s2 = await call(`/v1/search?q=quartz&limit=3&cursor=${s1.json.next_cursor}`);
  t.same(s2.json.results.map((r: any) => r.seq), [3, 2]);
  t.equal(s2.json.next_cursor, null);
  const title = await call('/v1/search?q=billing%20exporter');
  t.same(title.json.results.map((r: any) => r.kind), ['task.created'], 'task titles are indexed');
  const byKind = await call('/v1/search?kind=task.created');
  t.equal(byKind.json.results.length, 1);
  const operators = await call('/v1/search?q=' + encodeURIComponent('quartz" OR NEAR(*'));
  t.equal(operators.status, 200, 'FTS syntax in q is treated as words');
  for (const q of ['"', '!!!', '   ', '*']) {
    const wordless = await call(`/v1/search?q=${encodeURIComponent(q)}`);
    t.same([wordless.status, wordless.json.results, wordless.json.next_cursor], [200, [], null], `q=${q} (1–256 characters, no word): nothing found, no error`);
  }
  for (const q of ['', 'q=', `q=${'x'.repeat(257)}`, 'q=x&limit=0', 'q=x&cursor=abc']) {
    const bad = await call(`/v1/search?${q}`);
    t.equal(bad.status, 400, q);
    t.equal(bad.json.code, 'invalid_query');
  }
});

t.test('the timeline embeds the log\'s lines byte for byte, whatever their characters', async (t) => {
  const { call, dataDir } = await withTask(t);
  for (const progress of ['naïve café — 東京 step', 'emoji 😀 and a quote " and a backslash \\ step', 'plain ascii step']) {
    t.equal((await call('/v1/tasks/task-1/checkpoints', { body: { progress } })).status, 201);
  }
  const lines = readFileSync(join(dataDir, 'events.jsonl'), 'utf8').split('\n').filter((line) => line.includes('"task_id":"task-1"'));
  t.equal(lines.length, 4);
  const answer = await call('/v1/tasks/task-1/timeline');
  t.equal(answer.headers.get('content-type'), 'application/json');
  t.equal(answer.text, `{"task_id":"task-1","scope":${JSON.stringify(SCOPE_A)},"events":[${lines.join(',')}],"next_after_seq":null,"authority":"event_truth"}`);
  t.equal(answer.headers.get('content-length'), String(Buffer.byteLength(answer.text)), 'Content-Length counts UTF-8 bytes, not characters');
  const second = await call('/v1/tasks/task-1/timeline?limit=1&after_seq=2');
  t.equal(second.text, `{"task_id":"task-1","scope":${JSON.stringify(SCOPE_A)},"events":[${lines[2]}],"next_after_seq":3,"authority":"event_truth"}`);
});

t.test('templates: list, by id and alias, unknown 404, validate', async (t) => {
  const { call } = await testApp(t);
  const list = await call('/v1/templates', { scope: null });
  t.equal(list.status, 200);
  assertSchema(t, 'api/template-list.json', list.json);
  for (const name of ['task_closeout.v1', 'task.closeout.v1', 'task-closeout', 'task_closeout', 'closeout']) {
    const one = await call(`/v1/templates/${name}`, { scope: null });
    t.equal(one.status, 200, name);
    t.equal(one.json.template_id, 'task_closeout.v1');
  }
  const missing = await call('/v1/templates/nope', { scope: null });
  t.equal(missing.status, 404);
  t.equal(missing.json.code, 'template_not_found');
  const valid = await call('/v1/templates/validate', { scope: null, body: { template_id: 'closeout', payload: goodCloseout } });
  t.equal(valid.status, 200);
  assertSchema(t, 'api/validation-result.json', valid.json);
  t.match(valid.json, { ok: true, template_id: 'task_closeout.v1', missing_fields: [], repair_prompt: [] });
  const starter = list.json.templates.find((x: any) => x.template_id === 'task_closeout.v1').starter_payload;
  const invalid = await call('/v1/templates/validate', { scope: null, body: { template_id: 'task_closeout.v1', payload: starter }, token: 'operator' });
  t.equal(invalid.status, 200, 'validation writes nothing, so either token may ask');
  t.equal(invalid.json.ok, false, 'the starter payload is placeholder text');
  const unknownTemplate = await call('/v1/templates/validate', { scope: null, body: { template_id: 'nope', payload: {} } });
  t.equal(unknownTemplate.status, 404);
});

t.test('the agent flow: fetch the template, fail, follow the repair prompts, close', async (t) => {
  const { call } = await withTask(t);
  const template = (await call('/v1/templates/closeout', { scope: null })).json;
  // An agent's first try: the starter payload with only the outcome and summary filled in.
  const firstTry = { ...template.starter_payload, outcome: 'blocked', summary: 'Could not reach the production vault from the runner.' };
  const failed = await call('/v1/tasks/task-1/closeout', { body: firstTry });
  t.equal(failed.status, 422);
  t.ok(failed.json.repair_prompt.length >= 3);
  const fields = new Set<string>(failed.json.missing_fields);
  t.ok(fields.has('context_lines') && fields.has('future_agent_traps'));
  // Following the prompts: task-specific lines, blockers and next actions, no starter text.
  const fixed = {
    outcome: 'blocked',
    summary: 'Could not reach the production vault from the runner.',
    blockers: ['The runner has no network route to vault.prod; needs a firewall change'],
    next_actions: ['Ask the platform team to open the runner to vault.prod on 8200'],
    context_lines: ['Staging rotation is done and verified by the staging export job'],
    future_agent_traps: ['The staging vault answers on the same hostname from inside the VPN only'],
  };
  const closed = await call('/v1/tasks/task-1/closeout', { body: fixed });
  t.equal(closed.status, 201, JSON.stringify(closed.json));
  t.match(closed.json.task, { status: 'closed', outcome: 'blocked' });
});

t.test('task writes honour Idempotency-Key: a replay answers the original task state', async (t) => {
  const app = await testApp(t);
  const body = { task_id: 'task-7', title: 'Idempotent task creation check', session_id: 'sess-1' };
  const first = await spec(t, app).when('/v1/tasks', { body, idempotencyKey: 'create-7' }).then(expectResponse(201), expectNewEvents([{ kind: 'task.created', task_id: 'task-7' }]));
  await spec(t, app).when('/v1/tasks/task-7/checkpoints', { body: { progress: 'moved on' } }).then(expectResponse(201), expectNewEvents([{ kind: 'task.checkpoint.written', task_id: 'task-7' }]));
  const replay = await spec(t, app, 'replay').when('/v1/tasks', { body, idempotencyKey: 'create-7' }).then(expectResponse(200), expectNoEvents());
  t.equal(replay.headers.get('idempotent-replayed'), 'true');
  t.same(replay.json, first.json, 'the task as it was right after creation');
});

t.test('a long event full of the word: its snippet is cut around the first match, marked', async (t) => {
  const { call } = await testApp(t);
  t.equal((await call('/v1/tasks', { body: { task_id: 'long-1', title: 'Store the bulk export', session_id: 'sess-1' } })).status, 201);
  // ~300 KB of text holding the word 30,000 times: FTS5's own snippet() took seconds on it.
  const text = `${'x'.repeat(500)} [not a mark] ${Array.from({ length: 30_000 }, (_, i) => `Quartz w${i}`).join(' ')}`;
  const raw = await call('/v1/events', { body: rawEvent(SCOPE_A, { task_id: 'long-1', payload: { text } }), idempotencyKey: 'long-1' });
  t.equal(raw.status, 201, raw.text.slice(0, 200));
  for (const q of ['quartz', 'QUARTZ', 'w7 quartz']) {
    const res = await call(`/v1/search?q=${encodeURIComponent(q)}&task_id=long-1`);
    t.equal(res.status, 200, q);
    assertSchema(t, 'api/search-result.json', res.json);
    const [hit] = res.json.results;
    t.ok(hit.snippet.length <= 322, `${q}: at most MAX_SNIPPET characters and the two ellipses`);
    t.match(hit.snippet, /^….*\[not a mark\] \[Quartz\] w0 Quartz w1/, `${q}: cut around the first match, which is marked as the text spells it`);
  }
  const unreadable = await call('/v1/search?q=%22w29999%22&task_id=long-1');
  t.match(unreadable.json.results[0].snippet, /\[w29999\]…?$/, 'a match at the very end');
});

t.test('a timeline page holds at most 8 MiB of events; next_after_seq goes on from there', async (t) => {
  const { call } = await testApp(t);
  t.equal((await call('/v1/tasks', { body: { task_id: 'big-1', title: 'Keep the large run logs', session_id: 'sess-1' } })).status, 201);
  // Ten events of ~900 KB each: all ten would be ~9 MB, past the page's budget.
  const chunk = 'log line of the nightly run '.repeat(32_000);
  for (let i = 0; i < 10; i++) {
    const res = await call('/v1/events', { body: rawEvent(SCOPE_A, { task_id: 'big-1', payload: { text: `${i} ${chunk}` } }), idempotencyKey: `big-${i}` });
    t.equal(res.status, 201, `event ${i}`);
  }
  const first = await call('/v1/tasks/big-1/timeline?limit=1000');
  t.equal(first.status, 200);
  assertSchema(t, 'api/timeline.json', first.json);
  const seqs = first.json.events.map((e: { seq: number }) => e.seq);
  t.ok(Buffer.byteLength(first.text) <= MAX_TIMELINE_PAGE_BYTES + 2_000, `the page stays within the budget (${first.text.length} bytes)`);
  t.equal(seqs.length, 10, 'the task.created and nine events fit (~8.1 MB); the tenth would pass 8 MiB');
  t.equal(first.json.next_after_seq, seqs.at(-1), 'next_after_seq is the page\'s last seq');
  t.equal(Number(first.headers.get('content-length')), Buffer.byteLength(first.text), 'Content-Length is the body\'s');
  const second = await call(`/v1/tasks/big-1/timeline?limit=1000&after_seq=${first.json.next_after_seq}`);
  t.same([second.json.events.length, second.json.next_after_seq], [1, null], 'the rest, and no more');
});
