// RFC 3339 date-times: every offset and fraction length parses to the instant it names, leap
// seconds land on the last millisecond of their minute, anything else is invalid_date_time, and the
// schema's date-time format accepts exactly what the parser does.
import t from 'tap';
import { formatDateTime, isDateTime, normalizeDateTime, parseDateTime } from '../../src/domain/date-time.ts';
import { AppError } from '../../src/errors.ts';
import { loadSchemaRegistry } from '../../src/schema-registry.ts';

const registry = loadSchemaRegistry('schemas');
const schemaAccepts = (text: string) => registry.validate('common/types.json#/$defs/date_time', text).length === 0;

/** [input, its instant in the normal form]. */
const VALID: [string, string][] = [
  ['2025-01-15T09:30:00Z', '2025-01-15T09:30:00.000Z'],
  ['2025-01-15t09:30:00z', '2025-01-15T09:30:00.000Z'],
  ['2025-01-15T09:30:00.000Z', '2025-01-15T09:30:00.000Z'],
  // Fractions of 1 to 9 digits: cut to the millisecond, never rounded up.
  ['2025-01-15T09:30:00.5Z', '2025-01-15T09:30:00.500Z'],
  ['2025-01-15T09:30:00.59Z', '2025-01-15T09:30:00.590Z'],
  ['2025-01-15T09:30:00.598Z', '2025-01-15T09:30:00.598Z'],
  ['2025-01-15T09:30:00.5989Z', '2025-01-15T09:30:00.598Z'],
  ['2025-01-15T09:30:00.59899Z', '2025-01-15T09:30:00.598Z'],
  ['2025-01-15T09:30:00.598999Z', '2025-01-15T09:30:00.598Z'],
  ['2025-01-15T09:30:00.5989999Z', '2025-01-15T09:30:00.598Z'],
  ['2025-01-15T09:30:00.59899999Z', '2025-01-15T09:30:00.598Z'],
  ['2025-01-15T09:30:00.999999999Z', '2025-01-15T09:30:00.999Z'],
  ['2025-01-15T09:30:00.000000001Z', '2025-01-15T09:30:00.000Z'],
  // Offsets: the instant is local time minus the offset.
  ['2025-01-15T00:00:00-12:00', '2025-01-15T12:00:00.000Z'],
  ['2025-01-15T00:00:00+14:00', '2025-01-14T10:00:00.000Z'],
  ['2025-01-15T05:30:00+05:30', '2025-01-15T00:00:00.000Z'],
  ['2025-01-15T09:30:00.250+01:00', '2025-01-15T08:30:00.250Z'],
  ['2025-01-15T09:30:00-00:00', '2025-01-15T09:30:00.000Z'],
  ['2025-01-15T09:30:00+00:00', '2025-01-15T09:30:00.000Z'],
  ['2025-01-15T23:30:00-01:00', '2025-01-16T00:30:00.000Z'],
  ['2025-01-15T00:00:00+23:59', '2025-01-14T00:01:00.000Z'],
  // Calendar edges.
  ['2024-02-29T12:00:00Z', '2024-02-29T12:00:00.000Z'],
  ['2000-02-29T12:00:00Z', '2000-02-29T12:00:00.000Z'],
  ['2025-12-31T23:59:59.999Z', '2025-12-31T23:59:59.999Z'],
  ['0000-01-01T00:00:00Z', '0000-01-01T00:00:00.000Z'],
  ['0099-06-01T00:00:00Z', '0099-06-01T00:00:00.000Z'],
  ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
  // Leap seconds (RFC 3339 section 5.7): at 23:59 UTC, however the offset spells it.
  ['2016-12-31T23:59:60Z', '2016-12-31T23:59:59.999Z'],
  ['2016-12-31T23:59:60.5Z', '2016-12-31T23:59:59.999Z'],
  ['1990-12-31T15:59:60-08:00', '1990-12-31T23:59:59.999Z'],
  ['2017-01-01T05:29:60+05:30', '2016-12-31T23:59:59.999Z'],
];

const INVALID: [string, string][] = [
  ['empty', ''],
  ['a word', 'later'],
  ['a date only', '2025-01-15'],
  ['no offset', '2025-01-15T09:30:00'],
  ['no seconds', '2025-01-15T09:30Z'],
  ['a space for T', '2025-01-15 09:30:00Z'],
  ['an empty fraction', '2025-01-15T09:30:00.Z'],
  ['a comma fraction', '2025-01-15T09:30:00,5Z'],
  ['an offset without colon', '2025-01-15T09:30:00+0530'],
  ['an hour-only offset', '2025-01-15T09:30:00+05'],
  ['an offset hour 24', '2025-01-15T09:30:00+24:00'],
  ['an offset minute 60', '2025-01-15T09:30:00+05:60'],
  ['month 13', '2025-13-01T00:00:00Z'],
  ['month 0', '2025-00-01T00:00:00Z'],
  ['day 0', '2025-01-00T00:00:00Z'],
  ['30 February', '2024-02-30T00:00:00Z'],
  ['29 February of a common year', '2025-02-29T00:00:00Z'],
  ['29 February 1900', '1900-02-29T00:00:00Z'],
  ['31 April', '2025-04-31T00:00:00Z'],
  ['hour 24', '2025-01-15T24:00:00Z'],
  ['minute 60', '2025-01-15T09:60:00Z'],
  ['second 61', '2025-01-15T23:59:61Z'],
  ['a leap second not at 23:59 UTC', '2016-12-31T12:59:60Z'],
  ['a leap second at 23:59 local but not UTC', '2016-12-31T23:59:60+01:00'],
  ['a five-digit year', '10000-01-01T00:00:00Z'],
  ['a signed year', '+2025-01-15T09:30:00Z'],
  ['before year 0000 in UTC', '0000-01-01T00:00:00+00:01'],
  ['after year 9999 in UTC', '9999-12-31T23:59:59-00:01'],
  ['trailing text', '2025-01-15T09:30:00Z '],
  ['a trailing newline', '2025-01-15T09:30:00Z\n'],
  ['non-ASCII digits', '２025-01-15T09:30:00Z'],
];

t.test('valid date-times parse to the instant they name, in the normal form', async (t) => {
  for (const [text, normal] of VALID) {
    t.equal(normalizeDateTime(text), normal, text);
    t.equal(parseDateTime(text), Date.parse(normal), `${text}: epoch ms`);
    t.ok(isDateTime(text), `${text}: isDateTime`);
    t.ok(schemaAccepts(text), `${text}: the schema's date-time format accepts it`);
  }
});

t.test('anything else is invalid_date_time, and the schema refuses it too', async (t) => {
  for (const [name, text] of INVALID) {
    t.throws(() => parseDateTime(text, 'as_of'), { code: 'invalid_date_time' }, name);
    t.notOk(isDateTime(text), `${name}: isDateTime`);
    t.notOk(schemaAccepts(text), `${name}: the schema refuses it`);
  }
  const err = (() => { try { parseDateTime('x'.repeat(500), 'as_of'); } catch (e) { return e; } })();
  t.ok(err instanceof AppError && err.message.length < 300, 'a long input is cut in the message');
});

t.test('instants compare where strings do not', async (t) => {
  // The string order puts "…:00Z" after "…:00.598Z" (Z > .), the instant order before.
  t.ok('2025-01-15T09:30:00.598Z' < '2025-01-15T09:30:00Z');
  t.ok(parseDateTime('2025-01-15T09:30:00.598Z') > parseDateTime('2025-01-15T09:30:00Z'));
  // -12:00 midnight is later than every event of that UTC day's morning.
  t.ok('2025-01-15T00:00:00-12:00' < '2025-01-15T05:00:00.000Z');
  t.ok(parseDateTime('2025-01-15T00:00:00-12:00') > parseDateTime('2025-01-15T05:00:00.000Z'));
  // A leap second sits between the last millisecond before it and the next day.
  t.ok(parseDateTime('2016-12-31T23:59:60Z') >= parseDateTime('2016-12-31T23:59:59.999Z'));
  t.ok(parseDateTime('2016-12-31T23:59:60.9Z') < parseDateTime('2017-01-01T00:00:00Z'));
});

t.test('formatDateTime writes the normal form and refuses what it cannot write', async (t) => {
  t.equal(formatDateTime(0), '1970-01-01T00:00:00.000Z');
  t.equal(formatDateTime(Date.parse('2025-01-15T09:30:00.5Z')), '2025-01-15T09:30:00.500Z');
  for (const ms of [Number.NaN, 1.5, Date.parse('+010000-01-01T00:00:00Z'), Date.parse('-000001-12-31T23:59:59.999Z')]) {
    t.throws(() => formatDateTime(ms), { code: 'invalid_date_time' }, String(ms));
  }
});
