// Steps 1–4 of gov.sanitizer (docs/governance/sanitizer.md): decode UTF-8, unify line endings, remove
// the invisible and control code points of the rule set's classes (keeping hidden tag text aside for
// detection), and normalise to NFC. Each is linear in its input and counts what it changed.
import { REMOVAL_CLASSES, REMOVAL_RANGES, STREAM_SAFE, type RemovalClass } from './sanitizer-rules.ts';
import type { HiddenCollector, SanitizerCounts } from './sanitizer-types.ts';

/** Step 1. Invalid sequences become U+FFFD (WHATWG maximal subparts), counted apart from an encoded U+FFFD. */
export function decodeUtf8(bytes: Uint8Array, counts: SanitizerCounts): string {
  // ignoreBOM keeps a leading U+FEFF in the text, so that step 3 removes and counts it like any other.
  const text = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(bytes);
  let replacements = 0;
  for (let i = text.indexOf('\ufffd'); i >= 0; i = text.indexOf('\ufffd', i + 1)) replacements++;
  if (replacements === 0) return text;
  // EF BF BD is always decoded as itself (EF is never a continuation byte), so what is left is invalid input.
  let encoded = 0;
  for (let i = 0; i + 2 < bytes.length; i++) if (bytes[i] === 0xef && bytes[i + 1] === 0xbf && bytes[i + 2] === 0xbd) encoded++;
  counts.invalid_utf8 += replacements - encoded;
  return text;
}

/** Step 2. CRLF and a lone CR become LF. */
export function normaliseLineEndings(text: string, counts: SanitizerCounts): string {
  if (!text.includes('\r')) return text;
  return text.replace(/\r\n?/g, () => {
    counts.line_endings++;
    return '\n';
  });
}

// Step 3's class of each code point: 0 keeps it, otherwise 1 + the index in REMOVAL_CLASSES.
const BMP_CLASS = new Uint8Array(0x10000);
const ASTRAL_RANGES: [number, number, number][] = [];
const bmpClassChars: string[] = [];
REMOVAL_CLASSES.forEach((name, index) => {
  for (const [from, to] of REMOVAL_RANGES[name]) {
    if (from >= 0x10000) {
      ASTRAL_RANGES.push([from, to, index + 1]);
      continue;
    }
    BMP_CLASS.fill(index + 1, from, to + 1);
    bmpClassChars.push(`${hex4(from)}-${hex4(to)}`);
  }
});
const TAG_CLASS = REMOVAL_CLASSES.indexOf('tag_chars') + 1;
/** Anything step 3 might remove (surrogates stand for every astral code point): a text without one is returned as is. */
const MAYBE_REMOVED = new RegExp(`[${bmpClassChars.join('')}\\ud800-\\udfff]`);

function hex4(cp: number): string {
  return `\\u${cp.toString(16).padStart(4, '0')}`;
}

function classOf(cp: number): number {
  if (cp < 0x10000) return BMP_CLASS[cp]!;
  for (const [from, to, cls] of ASTRAL_RANGES) if (cp >= from && cp <= to) return cls;
  return 0;
}

/**
 * Step 3. Removes every code point of a removal class and counts it in its class. Tag characters
 * U+E0020–U+E007E spell ASCII: each run of them (other removed code points do not end a run, a kept
 * one does) is decoded into a hidden segment, for the rules to read; the text never gets it back.
 */
export function removeInvisible(text: string, counts: SanitizerCounts, hidden: HiddenCollector): string {
  if (!MAYBE_REMOVED.test(text)) return text;
  const parts: string[] = [];
  let keptFrom = 0;
  // The decoded ASCII of the current run, as code units (a string built a character at a time would be a deep rope).
  let tagUnits: number[] = [];
  let inTagRun = false;
  const endTagRun = () => {
    if (tagUnits.length > 0) {
      const chunks: string[] = [];
      for (let at = 0; at < tagUnits.length; at += 8192) chunks.push(String.fromCharCode(...tagUnits.slice(at, at + 8192)));
      hidden.add('tag_chars', chunks.join(''));
    }
    tagUnits = [];
    inTagRun = false;
  };
  const n = text.length;
  for (let i = 0; i < n;) {
    const unit = text.charCodeAt(i);
    let cp = unit;
    let width = 1;
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < n) {
      const low = text.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        cp = ((unit - 0xd800) << 10) + (low - 0xdc00) + 0x10000;
        width = 2;
      }
    }
    const cls = classOf(cp);
    if (cls === 0) {
      if (inTagRun) endTagRun();
      i += width;
      continue;
    }
    if (keptFrom < i) parts.push(text.slice(keptFrom, i));
    counts[REMOVAL_CLASSES[cls - 1] as RemovalClass]++;
    if (cls === TAG_CLASS) {
      inTagRun = true;
      if (cp >= 0xe0020 && cp <= 0xe007e) tagUnits.push(cp - 0xe0000);
    }
    i += width;
    keptFrom = i;
  }
  if (inTagRun) endTagRun();
  if (keptFrom < n) parts.push(text.slice(keptFrom));
  return parts.join('');
}

// A run member: a combining mark other than the joiner itself, or one of the listed letters.
const MEMBER = `(?:(?!\\u034f)[\\p{M}${STREAM_SAFE.also_marks.map(hex4).join('')}])`;
const LONG_RUN = new RegExp(`${MEMBER}{${STREAM_SAFE.max_run}}(?=${MEMBER})`, 'gu');
const JOINER = String.fromCodePoint(STREAM_SAFE.joiner);

/** UAX #15 stream-safe text: a joiner after every max_run members in a row (see STREAM_SAFE for why). */
export function streamSafe(text: string, counts: SanitizerCounts): string {
  return text.replace(LONG_RUN, (run) => {
    counts.combining_runs_split++;
    return run + JOINER;
  });
}

/**
 * Step 4 (and again wherever a later step joins text): stream-safe, NFC, and stream-safe once more
 * where NFC lengthened a run (a letter such as U+0958 decomposes into a base and a mark and does not
 * recompose), so that a second pass finds nothing to do. Counts the lines NFC changed.
 */
export function normaliseNfc(text: string, counts: SanitizerCounts): string {
  // ASCII is NFC already and holds no combining mark.
  if (!/[^\x00-\x7f]/.test(text)) return text;
  const safe = streamSafe(text, counts);
  const nfc = safe.normalize('NFC');
  if (nfc === safe) return nfc;
  // NFC neither makes nor removes a line feed, so the lines pair up one to one.
  const before = safe.split('\n');
  const after = nfc.split('\n');
  for (let i = 0; i < after.length; i++) if (after[i] !== before[i]) counts.nfc_lines_changed++;
  // A joiner between two marks of an NFC run leaves it NFC: nothing composes with the joiner.
  return streamSafe(nfc, counts);
}
