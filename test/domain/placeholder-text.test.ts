// The placeholder checks' shortcuts (placeholder-text.ts) decide exactly what the full checks
// decide: the `<` look-ahead of findAngleToken, the ASCII letter count before findEmptyValue
// normalises, and trimmedLength's code point count. Each is compared with the plain definition
// over generated strings built from the pieces that matter (markers, punctuation, control and
// compatibility characters, astral characters).
import t from 'tap';
import fc from 'fast-check';
import { CopySources, findEmptyValue, findPlaceholder, isCopiedFrom, normaliseText, trimmedLength } from '../../src/domain/placeholder-text.ts';

const EMPTY_NORMAL_FORMS = new Set([
  '', 'n a', 'na', 'none', 'nil', 'null', 'todo', 'tbd', 'tbc', 'fixme', 'xxx', 'example',
  'examples', 'placeholder', 'lorem ipsum', 'same as above', 'see above', 'as above', 'ditto',
  'asdf', 'unknown', 'nothing',
]);
const PIECES = ['todo', 'TBD', 'n/a', 'same as above', 'none', 'lorem', ' ipsum', 'x', ' ', '!!', '\u0010', '\u0019', '\t', 'é', '\ufb01', '\uff34\uff2f', '<b>', '`<i>`', 'a fine sentence', '\ud83d\ude00', '42'];

t.test('findEmptyValue finds every value whose normal form says nothing', async (t) => {
  let checked = 0;
  fc.assert(fc.property(fc.array(fc.constantFrom(...PIECES), { maxLength: 8 }), (parts) => {
    const text = parts.join('');
    checked++;
    return !EMPTY_NORMAL_FORMS.has(normaliseText(text)) || findEmptyValue(text) !== undefined;
  }), { numRuns: 5000, seed: 20261201 });
  t.equal(checked, 5000);
  // Control characters are no letters: twelve of them around "todo" still normalise to "todo".
  t.equal(findEmptyValue(`todo${'\u0010'.repeat(12)}`), `todo${'\u0010'.repeat(12)}`);
  t.equal(findEmptyValue(`  ${'!'.repeat(40)} n/a ${'.'.repeat(40)}`), `${'!'.repeat(40)} n/a ${'.'.repeat(40)}`);
  t.equal(findEmptyValue('Rotated the credentials of the webhook relay'), undefined);
  t.equal(findEmptyValue('TODO: fill'), 'TODO');
  t.equal(findEmptyValue('Map<string, number> stays'), undefined);
  t.equal(findEmptyValue('write <the summary>'), '<the summary>');
});

t.test('trimmedLength counts code points after trimming', async (t) => {
  fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (text) => trimmedLength(text) === [...text.trim()].length), { numRuns: 5000, seed: 8 });
  t.equal(trimmedLength('  a\ud83d\ude00b  '), 3);
  t.equal(trimmedLength('\ud800x'), 2, 'a lone surrogate counts as one');
  t.equal(trimmedLength(''), 0);
});

t.test('isCopiedFrom over CopySources: whole, an excerpt from a word on, or a source with a word added', async (t) => {
  const sources = new CopySources([
    'Hydrate the task timeline (GET /v1/tasks/{task_id}/timeline) before closing: search results are not proof.',
    'Rotate the signing key',
  ]);
  const copied = (text: string) => isCopiedFrom(text, sources);
  t.ok(copied('hydrate the TASK timeline (GET /v1/tasks/{task_id}/timeline) before closing: search results are not proof'), 'the whole, in another case and punctuation');
  t.ok(copied('search results are not proof'), 'an excerpt of 20 or more characters from the start of a word');
  t.ok(copied('the task timeline get v1 tasks'), 'an excerpt in the middle');
  t.notOk(copied('are not proof'), 'an excerpt shorter than 20 characters is no copy');
  t.ok(copied('Now rotate the signing key'), 'a source of at least 80 % of the line, with a word added');
  t.notOk(copied('We rotate the signing key every quarter and record the new key id in the vault'), 'a short source inside a longer own sentence is no copy');
  t.notOk(copied('Rotated the exporter signing key and re-signed the first archive'), 'an own line');
});

t.test('the markers read a long run of blanks once (it held the event loop for seconds)', async (t) => {
  // 400,000 blanks fit a 1 MiB closeout body; the old marker rescanned the run from every position.
  const run = ' '.repeat(400_000);
  t.equal(findPlaceholder(`a${run}a`), undefined, 'text and blanks: nothing');
  t.equal(findPlaceholder(`for${run}example`), undefined, '"for example" across the run is English');
  t.equal(findPlaceholder(`see${run}example`), 'example', 'another word before it: a placeholder');
  t.equal(findPlaceholder(`${'\t'.repeat(400_000)}`), '', 'blanks only: an empty value');
});
