// The placeholder checks' shortcuts (placeholder-text.ts) decide exactly what the full checks
// decide: the `<` look-ahead of findAngleToken, the ASCII letter count before findEmptyValue
// normalises, and trimmedLength's code point count. Each is compared with the plain definition
// over generated strings built from the pieces that matter (markers, punctuation, control and
// compatibility characters, astral characters).
import t from 'tap';
import fc from 'fast-check';
import { findEmptyValue, normaliseText, trimmedLength } from '../../src/domain/placeholder-text.ts';

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
