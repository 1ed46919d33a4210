// Server-made ids: the old shape (prefix, 21 URL-safe characters) and ids made later sort later as
// text, which keeps the index's unique event-id B-tree growing at its end.
import t from 'tap';
import { SORTED_ID_ALPHABET, timeOrderedId, timePart } from '../../src/domain/ids.ts';

t.test('the alphabet is nanoid\'s 64 URL-safe characters in byte order', async (t) => {
  t.equal(SORTED_ID_ALPHABET.length, 64);
  t.equal(new Set(SORTED_ID_ALPHABET).size, 64);
  t.equal([...SORTED_ID_ALPHABET].sort().join(''), SORTED_ID_ALPHABET);
  t.match(SORTED_ID_ALPHABET, /^[A-Za-z0-9_-]+$/);
});

t.test('an id is the prefix and 21 characters, the first 8 the millisecond', async (t) => {
  const at = Date.parse('2026-12-01T10:00:00.123Z');
  const id = timeOrderedId('evt', at);
  t.match(id, /^evt_[A-Za-z0-9_-]{21}$/);
  t.equal(id.slice(4, 12), timePart(at));
  t.equal(timePart(0), '--------');
  t.equal(timePart(63), '-------z');
  t.equal(timePart(64), '------0-');
});

t.test('later milliseconds sort later; one millisecond still gives distinct ids', async (t) => {
  const base = Date.parse('2026-12-01T10:00:00Z');
  const steps = [0, 1, 63, 64, 65, 4095, 4096, 86_400_000, 31_536_000_000];
  const ids = steps.map((d) => timeOrderedId('evt', base + d));
  t.same([...ids].sort(), ids, 'text order is time order');
  const parts = steps.map((d) => timePart(base + d));
  for (let i = 1; i < parts.length; i++) t.ok(parts[i - 1]! < parts[i]!, `${steps[i - 1]} ms before ${steps[i]} ms`);
  const same = new Set(Array.from({ length: 10_000 }, () => timeOrderedId('evt', base)));
  t.equal(same.size, 10_000, 'the random part keeps ids of one millisecond apart');
});
