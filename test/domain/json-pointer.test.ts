// RFC 6901: one token escaped and read back (~ before /, so "~1" stays a literal "~1"), and pointers.
import t from 'tap';
import fc from 'fast-check';
import { escapePointer, pointerFrom, unescapePointer } from '../../src/domain/json-pointer.ts';

t.test('tokens round-trip, with the RFC 6901 examples', async (t) => {
  const cases: Array<[string, string]> = [['a/b', 'a~1b'], ['m~n', 'm~0n'], ['~1', '~01'], ['', ''], ['plain', 'plain']];
  for (const [raw, escaped] of cases) {
    t.equal(escapePointer(raw), escaped, raw);
    t.equal(unescapePointer(escaped), raw, escaped);
  }
  t.equal(pointerFrom([]), '', 'the root');
  t.equal(pointerFrom(['foo', '0', 'a/b']), '/foo/0/a~1b');
});

t.test('the plain-token shortcut escapes and unescapes exactly as the RFC 6901 replacements do', async (t) => {
  const pieces = ['~', '/', '0', '1', '~0', '~1', 'a', 'é', '\ud83d\ude00', ''];
  let checked = 0;
  fc.assert(fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 8 }), (parts) => {
    const token = parts.join('');
    checked++;
    return escapePointer(token) === token.replace(/~/g, '~0').replace(/\//g, '~1')
      && unescapePointer(token) === token.replace(/~1/g, '/').replace(/~0/g, '~')
      && unescapePointer(escapePointer(token)) === token;
  }), { numRuns: 3000, seed: 20261202 });
  t.equal(checked, 3000);
});
