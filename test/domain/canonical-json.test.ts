// RFC 8785 canonical JSON: the published vectors byte for byte, the `canonicalize` package (a test
// oracle only) byte for byte on thousands of generated values, and every value that is not plain
// JSON refused with `not_plain_json` (the package alone would drop or coerce them).
import t from 'tap';
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { canonicalJson, canonicalSha256Uri, sortedJson } from '../../src/domain/canonical-json.ts';
import { AppError } from '../../src/errors.ts';

const VECTORS = fileURLToPath(new URL('../fixtures/vectors/rfc8785/', import.meta.url));

t.test('RFC 8785 vectors', async (t) => {
  const names = readdirSync(`${VECTORS}input`).filter((n) => n.endsWith('.json')).sort();
  t.same(names, ['arrays.json', 'french.json', 'structures.json', 'unicode.json', 'values.json', 'weird.json']);
  for (const name of names) {
    const input = readFileSync(`${VECTORS}input/${name}`, 'utf8');
    const expected = readFileSync(`${VECTORS}output/${name}`);
    t.ok(Buffer.from(canonicalJson(JSON.parse(input)), 'utf8').equals(expected), name);
  }
});

t.test('sorting, numbers and escapes in small cases', async (t) => {
  const cases: [unknown, string][] = [
    [{ b: 1, a: [true, null, 'x'] }, '{"a":[true,null,"x"],"b":1}'],
    [{ '\u20ac': 1, '\r': 2, '1': 3 }, '{"\\r":2,"1":3,"€":1}'],
    [[1e21, 1e-7, -0, 0.1 + 0.2], '[1e+21,1e-7,0,0.30000000000000004]'],
    ['\u2028\u0001"\\', '"\u2028\\u0001\\"\\\\"'],
    [Object.assign(Object.create(null), { z: {}, y: [] }), '{"y":[],"z":{}}'],
    ['\ud83d\ude02', '"\ud83d\ude02"'],
  ];
  cases.forEach(([value, text], i) => t.equal(canonicalJson(value), text, `case ${i}`));
  t.equal(canonicalSha256Uri({}), 'sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
});

t.test('the canonicalize package agrees byte for byte on generated JSON', async (t) => {
  // Any JSON text, with member names and strings from the whole of Unicode (astral characters,
  // escapes, names that look like numbers), and doubles of every magnitude.
  const json = fc.jsonValue({ depthSize: 'medium', maxDepth: 6, stringUnit: 'binary', noUnicodeString: false });
  let checked = 0;
  fc.assert(fc.property(json, (value) => {
    checked++;
    return canonicalJson(value) === canonicalize(value);
  }), { numRuns: 3000, seed: 8785 });
  t.equal(checked, 3000);
  // The cases the one-pass writer must hand to the careful walk: text that looks like an escaped
  // lone surrogate but is not, and one that is.
  t.equal(canonicalJson({ s: '\\ud800' }), canonicalize({ s: '\\ud800' }));
  t.equal(canonicalJson(['\\udfff', '\ud83d\ude00']), '["\\\\udfff","\ud83d\ude00"]');
  t.throws(() => canonicalJson({ s: '\\\ud800' }), { code: 'not_plain_json' });
});

t.test('every UTF-16 code unit is written as JSON.stringify writes it, in a string and in a name', async (t) => {
  // Most strings take the writer's quote-as-is path; the ones that need an escape (quote,
  // backslash, control characters) and the surrogates go through JSON.stringify.
  let mismatches = 0;
  let refused = 0;
  for (let unit = 0; unit <= 0xffff; unit++) {
    const ch = String.fromCharCode(unit);
    const text = `a${ch}b`;
    if (unit >= 0xd800 && unit <= 0xdfff) {
      // Alone, a surrogate is refused (pairs are written as they are: the cases above).
      for (const value of [text, { [text]: 1 }]) {
        try {
          canonicalJson(value);
        } catch (err) {
          if ((err as { code?: string }).code === 'not_plain_json') refused++;
        }
      }
      continue;
    }
    if (canonicalJson(text) !== JSON.stringify(text) || canonicalJson({ [text]: text }) !== `{${JSON.stringify(text)}:${JSON.stringify(text)}}`) mismatches++;
  }
  t.equal(mismatches, 0);
  t.equal(refused, 2 * 2048);
  t.equal(canonicalJson('\ud83d\ude00 "q" \\ \u0007 \u007f \u2028'), '"\ud83d\ude00 \\"q\\" \\\\ \\u0007 \u007f \u2028"');
  t.equal(canonicalJson([-0, 1e21, 1e-7, 0.1 + 0.2, -5e-324]), '[0,1e+21,1e-7,0.30000000000000004,-5e-324]');
});

t.test('member names sort by UTF-16 code units at every object size', async (t) => {
  // Small objects are sorted by the writer's own insertion sort, larger ones by Array.prototype.sort:
  // both must give RFC 8785's order, where an astral character (a surrogate pair, 0xD8xx first)
  // sorts before U+E000–U+FFFF although its code point is higher.
  const names = fc.uniqueArray(fc.string({ unit: 'binary', maxLength: 4 }), { minLength: 0, maxLength: 40, size: 'max' });
  let sizes = 0;
  fc.assert(fc.property(names, (keys) => {
    if (keys.length > 16) sizes++;
    const value = Object.fromEntries(keys.map((key, i) => [key, i]));
    return canonicalJson(value) === canonicalize(value);
  }), { numRuns: 500, seed: 8786 });
  t.ok(sizes > 50, 'objects of more than 16 members were among them');
  t.equal(canonicalJson({ '\uffff': 1, '\u{10000}': 2, '\ue000': 3, a: 4 }), '{"a":4,"\u{10000}":2,"\ue000":3,"\uffff":1}');
});

t.test('nesting is bounded without exhausting the stack', async (t) => {
  let deep: unknown = 1;
  for (let i = 0; i < 300; i++) deep = [deep];
  t.throws(() => canonicalJson(deep), { code: 'json_too_deep' });
  let fine: unknown = 1;
  for (let i = 0; i < 200; i++) fine = { a: fine };
  t.equal(canonicalJson(fine), `${'{"a":'.repeat(200)}1${'}'.repeat(200)}`);
});

class Point { x = 1; }
const sparse: unknown[] = [1, , 3]; // eslint-disable-line no-sparse-arrays
const cyclic: Record<string, unknown> = { a: 1 };
cyclic.self = cyclic;
const arrayWithMember = Object.assign([1, 2], { extra: 'dropped by JSON.stringify' });

const refused: [string, unknown, string][] = [
  ['undefined at the top', undefined, ''],
  ['undefined as a member', { a: 1, b: undefined }, '/b'],
  ['undefined in an array', [1, undefined], '/1'],
  ['NaN', { n: NaN }, '/n'],
  ['Infinity', [Infinity], '/0'],
  ['-Infinity', -Infinity, ''],
  ['lone high surrogate in a value', { s: 'a\ud800b' }, '/s'],
  ['lone low surrogate in a value', ['\udc00'], '/0'],
  ['lone surrogate in a key', { 'k\ud83d': 1 }, '/k\ud83d'],
  ['function', { f: () => 1 }, '/f'],
  ['Date', { at: new Date(0) }, '/at'],
  ['Map', new Map([['a', 1]]), ''],
  ['Set', { s: new Set([1]) }, '/s'],
  ['class instance', { p: new Point() }, '/p'],
  ['BigInt', { n: 10n }, '/n'],
  ['Symbol', Symbol('x'), ''],
  ['sparse array', sparse, '/1'],
  ['boxed string', { s: new String('x') }, '/s'],
  ['cycle', cyclic, '/self'],
  ['array with a named member', arrayWithMember, '/extra'],
];

t.test('values that are not plain JSON are refused', async (t) => {
  for (const [name, value, pointer] of refused) {
    try {
      canonicalJson(value);
      t.fail(`${name}: accepted`);
    } catch (err) {
      t.ok(err instanceof AppError, `${name}: AppError`);
      t.equal((err as AppError).code, 'not_plain_json', `${name}: code`);
      t.same((err as AppError).details?.map((d) => d.pointer), [pointer], `${name}: pointer`);
    }
  }
});

t.test('sortedJson: an answer in canonical member order, members without a value left out as JSON.stringify leaves them', async (t) => {
  const built = { member: { member_id: 'olivia', actor: { type: 'user', id: 'olivia' }, note: undefined }, event: { seq: 1 } };
  const stored = JSON.parse('{"event":{"seq":1},"member":{"actor":{"id":"olivia","type":"user"},"member_id":"olivia"}}');
  t.equal(sortedJson(built), sortedJson(stored), 'built and stored answer alike');
  t.equal(sortedJson(built), '{"event":{"seq":1},"member":{"actor":{"id":"olivia","type":"user"},"member_id":"olivia"}}');
  t.equal(sortedJson({ b: [1, undefined], a: new Date(0) }), '{"a":"1970-01-01T00:00:00.000Z","b":[1,null]}', 'a Date and an undefined array item as JSON.stringify writes them');
  t.equal(sortedJson({ z: 'é\u2028', a: '\\ud800 is text' }), canonicalJson({ z: 'é\u2028', a: '\\ud800 is text' }), 'strings as canonical JSON writes them');
});
