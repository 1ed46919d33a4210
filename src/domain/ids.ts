// Server-made ids: `<prefix>_` and 21 characters of nanoid's URL-safe alphabet, as before, but the
// first 8 count the milliseconds since 1970 in that alphabet sorted by byte value, and the other 13
// are random (78 bits). Ids made later sort later, so the index's unique event-id B-tree grows at
// its end instead of writing a random page for every event; within a millisecond they stay unique
// by their random part. An id reveals the millisecond it was made (an event's recorded_at says as
// much).
import { customAlphabet } from 'nanoid';

/** nanoid's 64 URL-safe characters in byte order, so that the time part sorts as text. */
export const SORTED_ID_ALPHABET = '-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz';
const TIME_CHARS = 8;
const RANDOM_CHARS = 13;
const randomPart = customAlphabet(SORTED_ID_ALPHABET, RANDOM_CHARS);

/** The 8-character, byte-order sortable form of a millisecond count (64^8 ms lasts ~8,900 years). */
export function timePart(ms: number): string {
  let out = '';
  let rest = Math.floor(ms);
  for (let i = 0; i < TIME_CHARS; i++) {
    out = SORTED_ID_ALPHABET[rest % 64]! + out;
    rest = Math.floor(rest / 64);
  }
  return out;
}

/** A new id `<prefix>_<8 time characters><13 random characters>`, read off `now` (milliseconds). */
export function timeOrderedId(prefix: string, now: number = Date.now()): string {
  return `${prefix}_${timePart(now)}${randomPart()}`;
}
