// RFC 3339 date-times as instants: the one parser behind the schema's `date-time` format and every
// as_of, captured_at and recorded_at comparison (instants, never strings: `…:00Z` sorts after
// `…:00.598Z`), and the one normal form gov writes times in.
import { AppError } from '../errors.ts';

/**
 * RFC 3339 section 5.6 `date-time`: full-date "T" partial-time[.fraction] time-offset, with T and Z
 * in either case (section 5.6, note on case) and any number of fraction digits. Nothing else: no
 * space for T, no `+0530` or `+05` offsets, no week or ordinal dates.
 */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The instants the normal form can write: four-digit years in UTC. */
const EARLIEST = utcMs(0, 1, 1, 0, 0, 0, 0);
const LATEST = utcMs(9999, 12, 31, 23, 59, 59, 999);

/**
 * The instant `text` names, in epoch milliseconds. Fraction digits past the millisecond are cut
 * (toward the past): every recorded_at is a whole millisecond, so an event is at or before the cut
 * instant exactly when it is at or before the exact one. A leap second (second 60, allowed only
 * where the UTC time is 23:59, RFC 3339 section 5.7) is the last millisecond of its minute: after
 * every 23:59:59.xxx and before the next day's 00:00:00. Anything else → 422 `invalid_date_time`.
 */
export function parseDateTime(text: string, what = 'date-time'): number {
  const ms = instantOf(text);
  if (ms === null) {
    const shown = text.length > 64 ? `${text.slice(0, 63)}…` : text;
    throw new AppError('invalid_date_time', `The ${what} "${shown}" is not an RFC 3339 date-time between the years 0000 and 9999; send e.g. 2025-01-15T09:30:00Z or 2025-01-15T10:30:00.250+01:00.`);
  }
  return ms;
}

/** Whether `text` is a date-time parseDateTime accepts (the schema's `date-time` format). */
export function isDateTime(text: string): boolean {
  return instantOf(text) !== null;
}

/** The normal form gov writes: UTC, milliseconds, `YYYY-MM-DDTHH:MM:SS.sssZ`. */
export function formatDateTime(ms: number): string {
  if (!Number.isInteger(ms) || ms < EARLIEST || ms > LATEST) {
    throw new AppError('invalid_date_time', `The instant ${ms} has no four-digit-year date-time.`);
  }
  return new Date(ms).toISOString();
}

/** `text` parsed and written back in the normal form. */
export function normalizeDateTime(text: string, what?: string): string {
  return formatDateTime(parseDateTime(text, what));
}

function instantOf(text: string): number | null {
  const m = DATE_TIME.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 60) return null;
  let offsetMinutes = 0;
  if (m[8] !== undefined) {
    const offsetHour = Number(m[9]);
    const offsetMinute = Number(m[10]);
    if (offsetHour > 23 || offsetMinute > 59) return null;
    offsetMinutes = (m[8] === '-' ? -1 : 1) * (offsetHour * 60 + offsetMinute);
  }
  const leap = second === 60;
  const millis = leap ? 999 : Number((m[7] ?? '').slice(0, 3).padEnd(3, '0'));
  const instant = utcMs(year, month, day, hour, minute, leap ? 59 : second, millis) - offsetMinutes * 60_000;
  if (leap) {
    const utc = new Date(instant);
    if (utc.getUTCHours() !== 23 || utc.getUTCMinutes() !== 59) return null;
  }
  return instant >= EARLIEST && instant <= LATEST ? instant : null;
}

function daysInMonth(year: number, month: number): number {
  const leapYear = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leapYear ? 29 : DAYS_IN_MONTH[month - 1]!;
}

/** Date.UTC reads years 0–99 as 1900–1999, so the year is set on its own. */
function utcMs(year: number, month: number, day: number, hour: number, minute: number, second: number, millis: number): number {
  const date = new Date(Date.UTC(2000, month - 1, day, hour, minute, second, millis));
  date.setUTCFullYear(year);
  return date.getTime();
}
