// Small formatting rules the views share: short hashes, times, actors, and the one-item-per-line
// lists the forms use for the API's string arrays.

/** `sha256:4f1c…` → `4f1c2a9b`: enough to tell two hashes apart by eye; the full value is in the title. */
export function shortHash(hash: string | null | undefined): string {
  if (!hash) return '—';
  return hash.replace(/^sha256:/, '').slice(0, 8);
}

// One formatter for every row: toLocaleString builds a new one per call, too slow for 1,000 rows.
const TIME = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** An RFC 3339 time as the reader's local date and time (the full value stays in a title or datetime). */
export function formatTime(value: string | null | undefined): string {
  if (!value) return '—';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : TIME.format(date);
}

export type ActorLike = { type?: string; id?: string } | null | undefined;

export function actorLabel(actor: ActorLike): string {
  if (!actor || typeof actor.id !== 'string') return '—';
  return actor.type ? `${actor.id} (${actor.type.replace('_', ' ')})` : actor.id;
}

/** A textarea's lines as a list: trimmed, blank lines dropped (the gates judge what is left). */
export function linesOf(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}
