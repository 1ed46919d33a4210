// Half a character in a body: a \uD800–\uDFFF escape without its pair parses as JSON, but no event
// can hold it (RFC 8785 refuses it). Every route that takes a body refuses it with 422
// not_plain_json at its pointer in the body (the forge routes 400 in their {message, url} shape) and
// writes nothing; a paired escape, or an escaped backslash before "u", is ordinary text. Before,
// a task title with one was 422 at the event's /payload/title, and templates/validate said ok.
import t from 'tap';
import { expectRefusedByEveryBodyRoute } from '../fixtures/body-routes.ts';
import { testApp } from '../fixtures/test-app.ts';

t.test('a lone surrogate escape is 422 not_plain_json (forge: 400) on every body route and writes nothing', async (t) => {
  const app = await testApp(t, { forgeData: 'fixture' });
  await expectRefusedByEveryBodyRoute(t, app, {
    body: '{"title":"Lone \\ud83d half"}', keyPrefix: 'lone', code: 'not_plain_json',
    errors: [{ pointer: '/title', detail: 'a lone UTF-16 surrogate' }], forgeMessage: /half of a character/,
  });
});

t.test('a task title, a closeout line and a validated payload: the same refusal at the same place', async (t) => {
  const { call } = await testApp(t);
  const task = await call('/v1/tasks', { body: '{"task_id":"sur-1","title":"Lone \\ud83d surrogate title","session_id":"s-1"}' });
  t.same([task.status, task.json.code, task.json.errors], [422, 'not_plain_json', [{ pointer: '/title', detail: 'a lone UTF-16 surrogate' }]]);
  t.match(task.json.detail, /half of a character .* at \/title; send well-formed Unicode text/);
  const validate = await call('/v1/templates/validate', { body: '{"template_id":"task.create.v1","payload":{"task_id":"sur-1","title":"Lone \\udc00 surrogate title","session_id":"s-1"}}' });
  t.same([validate.status, validate.json.code, validate.json.errors], [422, 'not_plain_json', [{ pointer: '/payload/title', detail: 'a lone UTF-16 surrogate' }]], 'validate refuses what the route refuses');
  const key = await call('/v1/tasks', { body: '{"task_id":"sur-1","title":"A title","session_id":"s-1","\\ud800":1}' });
  t.same([key.status, key.json.code, key.json.errors], [422, 'not_plain_json', [{ pointer: '/\ud800', detail: 'a lone UTF-16 surrogate' }]], 'a member name too');
});

t.test('a paired escape and an escaped backslash are ordinary text', async (t) => {
  const { call } = await testApp(t);
  const paired = await call('/v1/tasks', { body: '{"task_id":"sur-2","title":"Smile \\ud83d\\ude00 shipped","session_id":"s-1"}' });
  t.equal(paired.status, 201, paired.text);
  t.equal(paired.json.task.title, 'Smile \u{1f600} shipped');
  const literal = await call('/v1/tasks', { body: '{"task_id":"sur-3","title":"Path C:\\\\ud83d is text","session_id":"s-1"}' });
  t.equal(literal.status, 201, literal.text);
  t.equal(literal.json.task.title, 'Path C:\\ud83d is text');
});
