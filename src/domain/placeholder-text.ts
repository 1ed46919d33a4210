// What counts as unfilled template text: `<…>` tokens, marker words (TODO, TBD, lorem ipsum, …), and
// the normal form in which free text is compared with template starter and example text.

/**
 * A `<…>` token standing on its own, as in `<describe the task>`. It must not touch an identifier
 * (so `Map<string, number>` passes), must not start with a space, digit or `=` (so `a < b` and
 * `<5ms` pass), and must close on the same line.
 */
const ANGLE_TOKEN = /(?:^|[^\w])(<[^\s<>=\d][^<>\n]{0,200}>)/gu;
// `<https://…>` and `<name@host>` are real addresses in angle brackets, not blanks to fill.
const BRACKETED_ADDRESS = /:\/\/|@/u;
// A Markdown code span quotes code (`<select>`, `<Header />`): an agent's progress note may name a
// tag or a key that way, and the gates refuse blanks, not code.
const CODE_SPAN = /`[^`\n]*`/gu;

/**
 * Markers that make any string containing them placeholder text. Used on the free-text lists the
 * contract names (context_lines, future_agent_traps). "for example" is ordinary English and
 * `example.com`-style host names are real data, so neither counts.
 */
const MARKERS: readonly RegExp[] = [
  /\b(?:todo|tbd|tbc|fixme)\b/iu,
  /\bx{3,}\b/iu,
  /\blorem\s+ipsum\b/iu,
  /\bplace[\s-]?holders?\b/iu,
  // The lookbehind comes after the word: checked first, at every position, it scanned back over
  // a whole run of blanks each time (a 40,000-blank line held the event loop for seconds).
  /\bexamples?\b(?<!\bfor\s+examples?)(?!\.[a-z])/iu,
  /(?:^|[\s("'])n\/a(?=$|[\s)"'.,;:!?])/iu,
  /\b(?:same\s+as|see|as)\s+above\b/iu,
  /\bditto\b/iu,
  /\bfill\s+(?:in|me|this)\b/iu,
  /\b(?:insert|your)\s+[\w\s]{0,40}?\s?here\b/iu,
  /\bto\s+be\s+(?:determined|decided|confirmed|filled|added|written)\b/iu,
  /\bsample\s+text\b/iu,
];

/**
 * Whole values that say nothing (compared in normal form). A value that is nothing but one of
 * these, or that opens with a TODO-style marker, is unfilled wherever it appears.
 */
const EMPTY_VALUES = new Set([
  '', 'n a', 'na', 'none', 'nil', 'null', 'todo', 'tbd', 'tbc', 'fixme', 'xxx', 'example',
  'examples', 'placeholder', 'lorem ipsum', 'same as above', 'see above', 'as above', 'ditto',
  'asdf', 'unknown', 'nothing',
]);
// Upper case only: "TODO: fill" is a blank, "Todo list sync" is a title.
const LEADING_MARKER = /^(?:TODO|TBD|TBC|FIXME|XXX)\b/u;

/** Lower case, NFKC, every run of non-letters/non-digits as one space, trimmed. */
export function normaliseText(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** The `<…>` token in `text` outside code spans, if any. */
export function findAngleToken(text: string): string | undefined {
  if (!text.includes('<')) return undefined;
  const prose = text.replace(CODE_SPAN, (span) => ' '.repeat(span.length));
  for (const match of prose.matchAll(ANGLE_TOKEN)) {
    const token = match[1]!;
    if (!BRACKETED_ADDRESS.test(token)) return token;
  }
  return undefined;
}

/**
 * Strict check for the contract's free-text lists: returns the offending token when the string is
 * or contains placeholder text, else undefined.
 */
export function findPlaceholder(text: string): string | undefined {
  const angle = findAngleToken(text);
  if (angle !== undefined) return angle;
  for (const marker of MARKERS) {
    const hit = marker.exec(text);
    if (hit) return hit[0].trim();
  }
  return findEmptyValue(text);
}

/**
 * Mild check for ordinary fields (titles, summaries, list items): only a `<…>` token, a value that
 * is nothing but a placeholder word, or one that opens with TODO/TBD/FIXME. "Add example config"
 * is a fine title; "TBD" is not.
 */
export function findEmptyValue(text: string): string | undefined {
  const angle = findAngleToken(text);
  if (angle !== undefined) return angle;
  if (mayBeEmptyValue(text) && EMPTY_VALUES.has(normaliseText(text))) return text.trim();
  const lead = LEADING_MARKER.exec(text.trim());
  return lead ? lead[0] : undefined;
}

/** The longest normal form in EMPTY_VALUES. */
const LONGEST_EMPTY_VALUE = Math.max(...[...EMPTY_VALUES].map((v) => v.length));
const ASCII = /^[\x00-\x7f]*$/;

/**
 * False when `text` cannot normalise to one of EMPTY_VALUES, decided without normalising it: ASCII
 * text normalises to its letters and digits (lower-cased, runs of anything else as one space), so
 * more of them than the longest empty value has letters rule it out. Other text is normalised.
 */
function mayBeEmptyValue(text: string): boolean {
  if (!ASCII.test(text)) return true;
  let alphanumerics = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const lower = c | 0x20;
    if ((lower >= 0x61 && lower <= 0x7a) || (c >= 0x30 && c <= 0x39)) {
      if (++alphanumerics > LONGEST_EMPTY_VALUE) return false;
    }
  }
  return true;
}

/** Length in code points after trimming: what "at least 20 characters" counts. */
export function trimmedLength(text: string): number {
  const trimmed = text.trim();
  let length = trimmed.length;
  // A surrogate pair is one code point.
  for (let i = 0; i < trimmed.length - 1; i++) {
    const c = trimmed.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = trimmed.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        length--;
        i++;
      }
    }
  }
  return length;
}

/** An excerpt of template text counts as a copy from this many characters (normal form) on. */
const MIN_EXCERPT = 20;

/**
 * The text a line may not copy, in normal form, indexed for isCopiedFrom: the sources by length,
 * and each source's MIN_EXCERPT-character windows that start a word, so a line is looked up by its
 * own first window rather than searched for in every source (hundreds of them: ~8 µs a line when
 * searched, on every checkpoint and closeout).
 */
export class CopySources {
  private readonly all = new Set<string>();
  private readonly byLength: string[];
  private readonly byWindow = new Map<string, string[]>();

  constructor(texts: Iterable<string>) {
    for (const text of texts) {
      const normal = normaliseText(text);
      if (normal !== '') this.all.add(normal);
    }
    this.byLength = [...this.all].sort((a, b) => a.length - b.length);
    for (const source of this.all) {
      for (let at = 0; at + MIN_EXCERPT <= source.length; at = source.indexOf(' ', at) + 1) {
        const window = source.slice(at, at + MIN_EXCERPT);
        const holders = this.byWindow.get(window);
        if (holders === undefined) this.byWindow.set(window, [source]);
        else if (holders[holders.length - 1] !== source) holders.push(source);
        if (source.indexOf(' ', at) < 0) break;
      }
    }
  }

  /** Whether `normal` is one of the sources exactly. */
  has(normal: string): boolean {
    return this.all.has(normal);
  }

  /** The sources whose length lies in [min, max]. */
  *ofLength(min: number, max: number): Generator<string> {
    let lo = 0;
    let hi = this.byLength.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.byLength[mid]!.length < min) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.byLength.length && this.byLength[i]!.length <= max; i++) yield this.byLength[i]!;
  }

  /** The sources holding `window` at the start of one of their words. */
  withWindow(window: string): readonly string[] {
    return this.byWindow.get(window) ?? [];
  }
}

/**
 * True when `text` repeats a source string, in normal form: equal; a piece of it (at least 20
 * characters from the start of a word: an excerpt of generic text is as generic as the whole); or
 * containing it, the source at least 80% of the text (a copied line with a word added). A short
 * common phrase inside a longer own sentence is not a copy.
 */
export function isCopiedFrom(text: string, sources: CopySources): boolean {
  const normal = normaliseText(text);
  if (normal === '') return false;
  if (sources.has(normal)) return true;
  if (normal.length >= MIN_EXCERPT) {
    for (const source of sources.withWindow(normal.slice(0, MIN_EXCERPT))) if (source.length > normal.length && source.includes(normal)) return true;
  }
  for (const source of sources.ofLength(Math.max(MIN_EXCERPT, Math.ceil(0.8 * normal.length)), normal.length)) {
    if (normal.includes(source)) return true;
  }
  return false;
}
