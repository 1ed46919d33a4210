// A member named twice in one object: JSON.parse keeps the last, other readers the first, so the
// body means two things. I-JSON (RFC 7493 §2.3), which RFC 8785 canonicalizes, has none: every
// route that takes a body refuses it with 422 not_plain_json at the second occurrence (a forge
// route with 400, its bad request) and writes nothing; `gov packet verify` refuses such a file (a
// packet whose packet_status is named twice verified before, as whichever status JSON.parse kept).
import t from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findDuplicateMember } from '../../src/domain/json-duplicates.ts';
import { expectRefusedByEveryBodyRoute } from '../fixtures/body-routes.ts';
import { tempDir, testApp } from '../fixtures/test-app.ts';
import { runGov } from '../fixtures/spawn-preview.ts';

t.test('the first member named twice, at its pointer; text that only looks like one is no duplicate', async (t) => {
  const found = (text: string) => findDuplicateMember(text, JSON.parse(text));
  t.same(found('{"a":1,"a":2}'), { pointer: '/a', name: 'a' });
  t.same(found('{"a":1,"b":{"c":[1,{"d":2,"d":3}]},"a":4}'), { pointer: '/b/c/1/d', name: 'd' }, 'the first in document order');
  t.same(found(' { "x" : [ ] , "y" : { } , "x" : null } '), { pointer: '/x', name: 'x' }, 'blanks anywhere');
  t.same(found('{"\\u0061":1,"a":2}'), { pointer: '/a', name: 'a' }, 'names compared as read, escapes decoded');
  t.same(found('{"a/b~c":1,"a/b~c":2}'), { pointer: '/a~1b~0c', name: 'a/b~c' }, 'the pointer escapes ~ and /');
  t.same(found('{"__proto__":1,"__proto__":2}'), { pointer: '/__proto__', name: '__proto__' });
  for (const text of ['{}', '[]', '"a"', '[{"k":1},{"k":2}]', '{"k":{"k":{"k":1}}}', '{"s":"\\"a\\":1,\\"a\\":2","t":"x:y","u":"\\\\","v":":"}', '{"a":1,"A":2,"a ":3}']) {
    t.equal(found(text), null, `${text}: no duplicate`);
  }
});

t.test('a body with a member named twice is 422 not_plain_json (forge: 400) on every body route and writes nothing', async (t) => {
  const app = await testApp(t, { forgeData: 'fixture' });
  const problems = await expectRefusedByEveryBodyRoute(t, app, {
    body: '{"title":"First","title":"Second"}', keyPrefix: 'dup', code: 'not_plain_json',
    errors: [{ pointer: '/title', detail: 'a member named twice in one object' }], forgeMessage: /names the member "title" twice/,
  });
  for (const { what, json } of problems) {
    t.match(json.detail, /^The body names the member "title" twice in one object \(at \/title\); JSON readers disagree on which one counts, so send each member once\.$/, what);
  }
});

t.test('gov packet verify refuses a packet file that names a member twice', async (t) => {
  const { call } = await testApp(t);
  t.equal((await call('/v1/tasks', { body: { task_id: 'dup-1', title: 'Ship the parser', session_id: 's-1' } })).status, 201);
  const packet = await call('/v1/proof-packets', { body: { task_ids: ['dup-1'] } });
  t.equal(packet.status, 201, packet.text);
  const dir = tempDir(t);
  const text = JSON.stringify(packet.json.packet ?? packet.json);
  const plain = join(dir, 'packet.json');
  writeFileSync(plain, text);
  const doubled = join(dir, 'doubled.json');
  writeFileSync(doubled, text.replace('{', '{"packet_status":"revoked",'));
  const keys = join(dir, 'keys.json');
  writeFileSync(keys, (await call('/v1/keys')).text);
  const ok = await runGov(['packet', 'verify', plain, '--keys', keys]);
  t.equal(ok.code, 0, `the file as answered verifies: ${ok.stdout}${ok.stderr}`);
  const refused = await runGov(['packet', 'verify', doubled, '--keys', keys]);
  t.equal(refused.code, 2, 'a bad input file: exit 2');
  t.match(refused.stderr, /names the member "packet_status" twice in one object \(at \/packet_status\); readers disagree on which one counts, so it is not verified/);
});
