// Walks over caller JSON keep their own stack: the depth finder, the plain-JSON guard, the string
// walkers of the closeout gates and of search, and the input-file scanner all take a value nested
// 100,000 levels without a RangeError (each overflowed the stack before), in document order.
import t from 'tap';
import { assertPlainJson, canonicalJson, MAX_CANONICAL_NESTING } from '../../src/domain/canonical-json.ts';
import { assertNesting, findTooDeep, MAX_BODY_NESTING } from '../../src/domain/json-depth.ts';
import { parseJsonInput } from '../../src/domain/quota/json-input.ts';
import { eachString } from '../../src/domain/templates.ts';
import { AppError } from '../../src/errors.ts';
import type { StoredEvent } from '../../src/domain/event.ts';
import { searchText } from '../../src/store/projections/core.ts';

const HUGE = 100_000;

/** `levels` nested containers (arrays, or objects under "a"), with `leaf` innermost; no recursion. */
function nested(levels: number, kind: 'array' | 'object', leaf: unknown = 'leaf'): unknown {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = kind === 'array' ? [value] : { a: value };
  return value;
}

function codeOf(fn: () => unknown): { code: string; pointers: string[] } | 'accepted' {
  try {
    fn();
    return 'accepted';
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { code: err.code, pointers: (err.details ?? []).map((d) => d.pointer) };
  }
}

t.test('findTooDeep: the pointer of the first container past the limit, counted in pointer steps', async (t) => {
  const cases: [string, unknown, number, string | null][] = [
    ['a scalar', 'x', 0, null],
    ['an empty object at the top is step 0', {}, 0, null],
    ['one step', { a: [] }, 0, '/a'],
    ['exactly at the limit', nested(3, 'array'), 2, null],
    ['one past the limit', nested(4, 'array'), 2, '/0/0/0'],
    ['scalars do not count', { a: { b: 1 } }, 1, null],
    ['the first in document order', { x: [[1]], y: [[[2]]], z: {} }, 2, '/y/0/0'],
    ['member names are escaped', { 'a/b': { '~': {} } }, 1, '/a~1b/~0'],
  ];
  for (const [name, value, limit, pointer] of cases) t.equal(findTooDeep(value, limit), pointer, name);
  t.equal(findTooDeep(nested(HUGE, 'array'), MAX_BODY_NESTING), `${'/0'.repeat(MAX_BODY_NESTING + 1)}`, `${HUGE} levels`);
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  t.equal(findTooDeep(cyclic, 3), '/self/self/self/self', 'a cycle ends at the limit');
  t.same(codeOf(() => assertNesting(nested(HUGE, 'object'), MAX_BODY_NESTING, 'body')), { code: 'json_too_deep', pointers: [`${'/a'.repeat(MAX_BODY_NESTING + 1)}`] });
});

t.test(`assertPlainJson checks ${HUGE} levels without a RangeError, and still refuses what is not JSON`, async (t) => {
  for (const kind of ['array', 'object'] as const) {
    t.equal(codeOf(() => assertPlainJson(nested(HUGE, kind))), 'accepted', `${kind}s: plain`);
    const step = kind === 'array' ? '/0' : '/a';
    t.same(codeOf(() => assertPlainJson(nested(HUGE, kind, Number.NaN))), { code: 'not_plain_json', pointers: [step.repeat(HUGE)] }, `${kind}s: NaN at the bottom`);
  }
  // A value shared by siblings is not a cycle; one on its own path is, however deep.
  const shared = { s: 1 };
  t.equal(codeOf(() => assertPlainJson({ x: shared, y: [shared] })), 'accepted', 'shared, not cyclic');
  const bottom: Record<string, unknown> = {};
  const top = nested(HUGE, 'object', bottom);
  bottom.back = top;
  t.same(codeOf(() => assertPlainJson(top)), { code: 'not_plain_json', pointers: [`${'/a'.repeat(HUGE)}/back`] }, 'a deep cycle');
});

t.test('canonicalJson bounds nesting explicitly, since its serialiser recurses', async (t) => {
  t.equal(typeof canonicalJson(nested(MAX_CANONICAL_NESTING, 'array')), 'string', `${MAX_CANONICAL_NESTING} levels below the top are canonicalized`);
  t.same(codeOf(() => canonicalJson(nested(MAX_CANONICAL_NESTING + 2, 'array'))), { code: 'json_too_deep', pointers: ['/0'.repeat(MAX_CANONICAL_NESTING + 1)] });
  t.same(codeOf(() => canonicalJson(nested(HUGE, 'object'))), { code: 'json_too_deep', pointers: ['/a'.repeat(MAX_CANONICAL_NESTING + 1)] }, `${HUGE} levels: refused, no RangeError`);
});

t.test('eachString and searchText walk in document order at any depth', async (t) => {
  const value = { b: ['one', { c: 'two', d: [3, 'three'] }], a: 'four', '/x': 'five' };
  const seen: [string, string][] = [];
  eachString(value, '', (text, pointer) => seen.push([text, pointer]));
  t.same(seen, [['one', '/b/0'], ['two', '/b/1/c'], ['three', '/b/1/d/1'], ['four', '/a'], ['five', '/~1x']]);

  const deep: [string, string][] = [];
  eachString(nested(HUGE, 'array', 'bottom'), '/payload', (text, pointer) => deep.push([text, pointer]));
  t.same(deep, [['bottom', `/payload${'/0'.repeat(HUGE)}`]], `${HUGE} levels`);

  const event = (payload: unknown) => ({ kind: 'ext.acme.note', payload, evidence_refs: [{ uri: 'https://x.example/a' }] }) as unknown as StoredEvent;
  t.equal(searchText(event(value)), 'ext.acme.note\none\ntwo\nthree\nfour\nfive\nhttps://x.example/a');
  t.equal(searchText(event(nested(HUGE, 'object', 'bottom'))), 'ext.acme.note\nbottom\nhttps://x.example/a', `${HUGE} levels`);
});

t.test('input files: nesting past the limit is a bad_input_file naming the pointer and line', async (t) => {
  const deep = `{\n"a":\n${'['.repeat(HUGE)}${']'.repeat(HUGE)}}`;
  t.match(codeOf(() => parseJsonInput(deep, 'deep.json')), { code: 'bad_input_file', pointers: [`/a${'/0'.repeat(MAX_BODY_NESTING)}`] });
  try {
    parseJsonInput(deep, 'deep.json');
  } catch (err) {
    t.match((err as AppError).extra, { file: 'deep.json', line: 3 }, 'the line of the first level too deep');
  }
  // Not valid JSON as well: the scanner (which recurses) stops at the limit and says so.
  const broken = `${'['.repeat(HUGE)}x`;
  t.match(codeOf(() => parseJsonInput(broken, 'broken.json')), { code: 'bad_input_file' });
  try {
    parseJsonInput(broken, 'broken.json');
  } catch (err) {
    t.match((err as AppError).message, /^broken\.json:1:66: not valid JSON: nested deeper than 64 levels/);
  }
  t.equal(codeOf(() => parseJsonInput(JSON.stringify({ a: nested(MAX_BODY_NESTING, 'array') }), 'ok.json')), 'accepted', '64 levels below the top are fine');
});
