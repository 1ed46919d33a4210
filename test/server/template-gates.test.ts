// One gate per template: every write route with a template refuses exactly the bodies
// POST /v1/templates/validate refuses (422, the same validation body, nothing written) and takes the
// bodies it passes. Issue 11 items 5 and 14.
import t from 'tap';
import { expectNoEvents, expectResponse, spec } from '../fixtures/api-spec.ts';
import { closeout, evidence } from '../fixtures/bodies.ts';
import { assertSchema, SCOPE_A, testApp } from '../fixtures/test-app.ts';



const attach = (payload: object) => ({ kind: 'evidence.attached', ...SCOPE_A, task_id: 'task-1', payload, evidence_refs: [evidence] });
const bind = (members: object) => ({ session_id: 'sess-9', principal: { type: 'user', id: 'user-7' }, ...members });

type Case = [template: string, path: string, body: Record<string, unknown>, why: string];

// Bodies each gate refuses for its own reason, the schema included.
const REFUSED: Case[] = [
  ['task.create.v1', '/v1/tasks', { title: 'TBD', session_id: 'sess-1' }, 'a title that is only a marker'],
  ['task.create.v1', '/v1/tasks', { title: '<describe the task in one line>', session_id: 'sess-1' }, 'starter text'],
  ['task.create.v1', '/v1/tasks', { title: 'Render invoices', session_id: 'sess-1', actor: { type: 'robot', id: 'r-1' } }, 'an actor of no known type'],
  ['checkpoint.write.v1', '/v1/tasks/task-1/checkpoints', { progress: 'TODO' }, 'progress that is only a marker'],
  ['checkpoint.write.v1', '/v1/tasks/task-1/checkpoints', { progress: 'TBD' }, 'progress TBD'],
  ['checkpoint.write.v1', '/v1/tasks/task-1/checkpoints', { progress: 'Swapped the <select> for a combobox' }, 'an unquoted <…> token'],
  ['checkpoint.write.v1', '/v1/tasks/task-1/checkpoints', { progress: 'Fonts uploaded', colour: 'red' }, 'an unknown member'],
  ['task_closeout.v1', '/v1/tasks/task-1/closeout', { ...closeout, context_lines: ['TODO: write the context line'] }, 'a placeholder context line'],
  ['evidence.attach.v1', '/v1/events', attach({ note: '<describe what this evidence shows>' }), 'starter text in the note'],
  ['evidence.attach.v1', '/v1/events', attach({ note: '' }), 'the kind payload schema (note minLength 1)'],
  ['session.bind.v1', '/v1/sessions', bind({ agent: '<agent name and version>' }), 'starter text'],
  ['session.bind.v1', '/v1/sessions', bind({ ip_class: '10.0.0.1' }), 'a raw IP as ip_class'],
  ['proof_packet.assemble.v1', '/v1/proof-packets', { task_ids: ['task-1'], claims: [{ claim: '<one statement to bound, 1 to 300 characters>' }] }, 'a starter claim'],
  ['proof_packet.assemble.v1', '/v1/proof-packets', { task_ids: ['task-1'], colour: 'red' }, 'an unknown member'],
];

// Bodies each gate passes: ordinary text that only looks like a marker, quoted code, own actors.
const ACCEPTED: Case[] = [
  ['task.create.v1', '/v1/tasks', { task_id: 'task-1', title: 'Todo list sync for the invoice renderer', session_id: 'sess-1', labels: ['todo', 'examples'] }, 'marker words inside a title, tags'],
  ['checkpoint.write.v1', '/v1/tasks/task-1/checkpoints', { progress: 'Swapped the `<select>` for a combobox', blockers: [] }, 'a quoted <…> token'],
  ['checkpoint.write.v1', '/v1/tasks/task-1/checkpoints', { progress: 'Fonts uploaded', actor: { type: 'agent', id: 'font-agent' } }, 'an actor'],
  ['evidence.attach.v1', '/v1/events', attach({ note: 'Render log of the 40 sample invoices' }), 'a filled attach'],
  ['session.bind.v1', '/v1/sessions', bind({ agent: 'renderer 2.1', ip: '10.0.0.1' }), 'a filled bind, its address as ip'],
  ['task_closeout.v1', '/v1/tasks/task-1/closeout', closeout, 'a filled closeout'],
  ['proof_packet.assemble.v1', '/v1/proof-packets', { task_ids: ['task-1'], claims: [{ claim: 'The 40 sample invoices rendered with the new fonts' }] }, 'a packet with a claim'],
];

t.test('a body validate refuses is refused by its route with the same validation body; nothing is written', async (t) => {
  const app = await testApp(t);
  const { call } = app;
  t.equal((await call('/v1/tasks', { body: { task_id: 'task-1', title: 'Render invoices with the new fonts', session_id: 'sess-1' } })).status, 201);
  for (const [i, [template, path, body, why]] of REFUSED.entries()) {
    const validated = await call('/v1/templates/validate', { scope: null, body: { template_id: template, payload: body } });
    t.equal(validated.status, 200);
    t.same([validated.json.ok, validated.json.template_id], [false, template], `validate refuses ${template}: ${why}`);
    const written = await spec(t, app, `${path} refuses: ${why}`).when(path, { body, idempotencyKey: `refused-${i}` }).then(expectResponse(422), expectNoEvents());
    assertSchema(t, 'api/validation-result.json', written.json);
    t.same(written.json, validated.json, `${path} answers what validate answers: ${why}`);
  }
});

t.test('a body validate passes is written by its route', async (t) => {
  const { call, service } = await testApp(t);
  for (const [i, [template, path, body, why]] of ACCEPTED.entries()) {
    const validated = await call('/v1/templates/validate', { scope: null, body: { template_id: template, payload: body } });
    t.same([validated.json.ok, validated.json.blockers], [true, []], `validate passes ${template}: ${why}`);
    const written = await call(path, { body, idempotencyKey: `accepted-${i}` });
    t.equal(written.status, 201, `${path} writes: ${why} ${written.text}`);
  }
  // One event per write; the packet also logs its export and the session its binding (access.logged).
  t.equal(service.store.tail().seq, ACCEPTED.length + 2);
});

t.test('a refused placeholder says how to keep code: quote it', async (t) => {
  const { call } = await testApp(t);
  await call('/v1/tasks', { body: { task_id: 'task-1', title: 'Render invoices with the new fonts', session_id: 'sess-1' } });
  const res = await call('/v1/tasks/task-1/checkpoints', { body: { progress: 'Swapped the <select> for a combobox' } });
  t.same(res.json.blockers.map((b: any) => [b.code, b.pointer]), [['placeholder_text', '/progress']]);
  t.match(res.json.repair_prompt[0], /^progress is placeholder text \("<select>"\); if that is code and not a blank, quote it in backticks\./);
});

t.test('a member the template does not take: the prompt says to remove it, never to set it', async (t) => {
  const { call } = await testApp(t);
  await call('/v1/tasks', { body: { task_id: 'task-1', title: 'Render invoices with the new fonts', session_id: 'sess-1' } });
  const sent: [string, string, Record<string, unknown>][] = [
    ['task_closeout.v1', '/v1/tasks/task-1/closeout', { ...closeout, closing_note: 'All done' }],
    ['task.create.v1', '/v1/tasks', { task_id: 'task-2', title: 'Render the credit notes too', session_id: 'sess-1', closing_note: 'All done' }],
  ];
  for (const [template, path, body] of sent) {
    for (const res of [await call(path, { body }), await call('/v1/templates/validate', { scope: null, body: { template_id: template, payload: body } })]) {
      t.same([res.json.ok, res.json.missing_fields], [false, ['closing_note']], `${template}: the rejected field, parallel to its prompt`);
      t.same(res.json.repair_prompt, [`closing_note unknown member "closing_note" is not allowed. Remove closing_note from the payload: template ${template} does not take it (its request_schema lists the members it takes).`]);
    }
  }
});

t.test('a checkpoint\'s repair prompts speak of the checkpoint, not a closeout', async (t) => {
  const { call } = await testApp(t);
  await call('/v1/tasks', { body: { task_id: 'task-1', title: 'Render invoices with the new fonts', session_id: 'sess-1' } });
  const res = await call('/v1/tasks/task-1/checkpoints', { body: { progress: 'Uploaded the new fonts to the renderer', blockers: ['none'] } });
  t.same([res.status, res.json.missing_fields], [422, ['blockers']]);
  t.match(res.json.repair_prompt[0], /when nothing does, send an empty list or leave blockers out/);
  t.notMatch(res.json.repair_prompt[0], /closeout/);
});

t.test('the gate comes after existence on a closeout and before it on a checkpoint (which reads no index)', async (t) => {
  const { call } = await testApp(t);
  const closeMissing = await call('/v1/tasks/task-404/closeout', { body: { outcome: 'completed' } });
  t.same([closeMissing.status, closeMissing.json.code], [404, 'task_not_found']);
  const checkpointMissing = await call('/v1/tasks/task-404/checkpoints', { body: { progress: 'TODO' } });
  t.same([checkpointMissing.status, checkpointMissing.json.ok], [422, false]);
  const checkpointMissingGood = await call('/v1/tasks/task-404/checkpoints', { body: { progress: 'Fonts uploaded' } });
  t.same([checkpointMissingGood.status, checkpointMissingGood.json.code], [404, 'task_not_found']);
});
