// The phrase matcher of step 7 (docs/governance/sanitizer.md): a shadow line is read once, left to
// right, as word and punctuation tokens; a token outside the rules' vocabulary becomes id 0 without
// any string being made, and each rule remembers only a few chain ends. Linear, with no allocation
// per token, so a megabyte of one-character tokens costs what a megabyte of prose does.
import { DETECTION_RULES, MAX_PHRASE_TOKENS } from './sanitizer-rules.ts';

/** Token ids: 0 stands for any token outside the vocabulary (it still counts towards a gap). */
const VOCAB = new Map<string, number>();
const idOf = (token: string): number => {
  let id = VOCAB.get(token);
  if (id === undefined) VOCAB.set(token, (id = VOCAB.size + 1));
  return id;
};
const BEGIN = idOf('begin');
const END = idOf('end');
const UNTRUSTED = idOf('untrusted');
const EVIDENCE = idOf('evidence');

type Entry = { bit: number; slot: number; first: boolean; last: boolean; anchored: boolean; gap: number; ids: number[] };
/** Every phrase, filed under the id of its last token; `slot` is its part's row in the chain-end table. */
const BY_LAST: Entry[][] = [];
let slots = 0;
DETECTION_RULES.forEach((rule, ruleIndex) => {
  for (const sequence of rule.sequences) {
    sequence.parts.forEach((alternatives, part) => {
      for (const phrase of alternatives) {
        const tokens = phrase.split(' ');
        if (tokens.length > MAX_PHRASE_TOKENS) throw new Error(`gov.sanitizer: phrase "${phrase}" of ${rule.id} has more than ${MAX_PHRASE_TOKENS} tokens`);
        const ids = tokens.map(idOf);
        const entry: Entry = {
          bit: 1 << ruleIndex,
          slot: slots + part,
          first: part === 0,
          last: part === sequence.parts.length - 1,
          anchored: sequence.anchored,
          gap: sequence.max_gap,
          ids,
        };
        (BY_LAST[ids[ids.length - 1]!] ??= []).push(entry);
      }
    });
    slots += sequence.parts.length;
  }
});

// Words of the vocabulary in a trie over ASCII (every rule word is ASCII); punctuation tokens by code.
const isAsciiWord = (unit: number) => (unit >= 0x61 && unit <= 0x7a) || (unit >= 0x41 && unit <= 0x5a) || (unit >= 0x30 && unit <= 0x39) || unit === 0x5f;
const trieRows: Int32Array[] = [new Int32Array(128).fill(-1)];
const trieWord: number[] = [0];
const PUNCT = new Int32Array(128);
for (const [token, id] of VOCAB) {
  if (token.length === 1 && !isAsciiWord(token.charCodeAt(0))) {
    PUNCT[token.charCodeAt(0)] = id;
    continue;
  }
  let node = 0;
  for (let k = 0; k < token.length; k++) {
    const unit = token.charCodeAt(k);
    if (trieRows[node]![unit] === -1) {
      trieRows[node]![unit] = trieRows.length;
      trieRows.push(new Int32Array(128).fill(-1));
      trieWord.push(0);
    }
    node = trieRows[node]![unit]!;
  }
  trieWord[node] = id;
}

// \p{L}\p{M}\p{N} beyond ASCII: a table of the BMP, built the first time non-ASCII text is read.
const WORD_CLASS = /[\p{L}\p{M}\p{N}]/u;
let bmpWord: Uint8Array | null = null;
function isWordCodePoint(cp: number): boolean {
  if (cp < 0x80) return isAsciiWord(cp);
  if (cp >= 0x10000) return WORD_CLASS.test(String.fromCodePoint(cp));
  if (bmpWord === null) {
    bmpWord = new Uint8Array(0x10000);
    for (let c = 0x80; c < 0x10000; c++) if ((c < 0xd800 || c > 0xdfff) && WORD_CLASS.test(String.fromCharCode(c))) bmpWord[c] = 1;
  }
  return bmpWord[cp] === 1;
}

/** JavaScript's \s: these separate tokens and are no token themselves. */
function isSpace(unit: number): boolean {
  if (unit < 0x80) return unit === 0x20 || (unit >= 0x09 && unit <= 0x0d);
  return (
    unit === 0xa0 ||
    unit === 0x1680 ||
    (unit >= 0x2000 && unit <= 0x200a) ||
    unit === 0x2028 ||
    unit === 0x2029 ||
    unit === 0x202f ||
    unit === 0x205f ||
    unit === 0x3000 ||
    unit === 0xfeff
  );
}

// A phrase has at most MAX_PHRASE_TOKENS tokens, so that many recent tokens and chain ends suffice.
const RING = MAX_PHRASE_TOKENS + 1;

/** What reading one line found: a bit per DETECTION_RULES index, and whether it opens like a delimiter. */
export type LineMatch = { fired: number; delimiterLike: boolean };

/** Reusable state of the matcher; `newMatcher` once per text, `matchLine` per line. */
export type Matcher = { recent: Int32Array; ends: Int32Array; filled: Int32Array };
export const newMatcher = (): Matcher => ({ recent: new Int32Array(RING), ends: new Int32Array(slots * RING), filled: new Int32Array(slots) });

/** Reads `shadow[from, to)` as one line: tokens are `[\p{L}\p{M}\p{N}_]+('[\p{L}\p{M}\p{N}_]+)*` or any other non-space character. */
export function matchLine(shadow: string, from: number, to: number, m: Matcher): LineMatch {
  m.filled.fill(0);
  let fired = 0;
  let count = 0;
  const firstIds = [0, 0, 0];
  for (let k = from; k < to;) {
    const unit = shadow.charCodeAt(k);
    if (isSpace(unit)) {
      k++;
      continue;
    }
    let cp = unit;
    if (unit >= 0xd800 && unit <= 0xdbff && k + 1 < to) {
      const low = shadow.charCodeAt(k + 1);
      if (low >= 0xdc00 && low <= 0xdfff) cp = ((unit - 0xd800) << 10) + (low - 0xdc00) + 0x10000;
    }
    let id = 0;
    if (unit === 0x5f || isWordCodePoint(cp)) {
      let node = 0;
      while (k < to) {
        const u = shadow.charCodeAt(k);
        let c = u;
        if (u >= 0xd800 && u <= 0xdbff && k + 1 < to) {
          const low = shadow.charCodeAt(k + 1);
          if (low >= 0xdc00 && low <= 0xdfff) c = ((u - 0xd800) << 10) + (low - 0xdc00) + 0x10000;
        }
        const word = c === 0x5f || isWordCodePoint(c);
        // An apostrophe joins two word runs: "don't" is one token, "'ignore" is two.
        const joins = !word && c === 0x27 && k + 1 < to && isWordCodePoint(shadow.codePointAt(k + 1)!);
        if (!word && !joins) break;
        node = node >= 0 && c < 0x80 ? trieRows[node]![c]! : -1;
        k += c >= 0x10000 ? 2 : 1;
      }
      id = node > 0 ? trieWord[node]! : 0;
    } else {
      id = cp < 0x80 ? PUNCT[cp]! : 0;
      k += cp >= 0x10000 ? 2 : 1;
    }
    if (count < 3) firstIds[count] = id;
    fired = feed(m, count, id, fired);
    count++;
  }
  const delimiterLike = (firstIds[0] === BEGIN || firstIds[0] === END) && firstIds[1] === UNTRUSTED && firstIds[2] === EVIDENCE;
  return { fired, delimiterLike };
}

/** Token `j` (id) of the line: extends or completes the chains whose phrase ends with it. */
function feed(m: Matcher, j: number, id: number, fired: number): number {
  m.recent[j % RING] = id;
  const entries = id === 0 ? undefined : BY_LAST[id];
  if (entries === undefined) return fired;
  for (const e of entries) {
    if ((fired & e.bit) !== 0) continue;
    const start = j - e.ids.length + 1;
    if (start < 0 || (e.anchored && e.first && start !== 0)) continue;
    let same = true;
    for (let w = 0; w < e.ids.length - 1 && same; w++) same = m.recent[(start + w) % RING] === e.ids[w];
    if (!same || (!e.first && !chainEndsBefore(m, e.slot - 1, start, e.gap))) continue;
    if (e.last) {
      fired |= e.bit;
      continue;
    }
    const n = m.filled[e.slot]!;
    if (n > 0 && m.ends[e.slot * RING + ((n - 1) % RING)] === j) continue;
    m.ends[e.slot * RING + (n % RING)] = j;
    m.filled[e.slot] = n + 1;
  }
  return fired;
}

/** Whether the previous part ended before `start` with at most `gap` tokens between (the latest such end is the best). */
function chainEndsBefore(m: Matcher, slot: number, start: number, gap: number): boolean {
  const n = m.filled[slot]!;
  for (let back = 1; back <= Math.min(n, RING); back++) {
    const end = m.ends[slot * RING + ((n - back) % RING)]!;
    if (end < start) return start - end - 1 <= gap;
  }
  return false;
}
