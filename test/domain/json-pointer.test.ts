// RFC 6901: one token escaped and read back (~ before /, so "~1" stays a literal "~1"), and pointers.
import t from 'tap';
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
