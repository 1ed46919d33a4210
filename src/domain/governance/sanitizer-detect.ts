// Steps 6 and 7 of gov.sanitizer (docs/governance/sanitizer.md): break chat-template tokens, then flag
// (never delete) instruction-like lines. The rules read a shadow copy — NFKC, lower case, tokens (in
// sanitizer-match.ts) — so full-width letters, case and odd spacing do not hide a phrase.
import { createHash } from 'node:crypto';
import { matchLine, newMatcher, type LineMatch, type Matcher } from './sanitizer-match.ts';
import { DETECTION_RULES, MAX_FLAGS, ROLE_TOKENS, RULE_IDS, type RuleId } from './sanitizer-rules.ts';
import type { HiddenCollector, HiddenFlag, HiddenSource, SanitizerCounts, SanitizerFlag } from './sanitizer-types.ts';

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const ROLE_TOKEN = new RegExp(ROLE_TOKENS.map((t) => `${escapeRegex(t.open)}(?:${t.inner})${escapeRegex(t.close)}`).join('|'), 'gi');
const ROLE_TOKEN_EXACT = ROLE_TOKENS.map((t) => ({ ...t, pattern: new RegExp(`^${escapeRegex(t.open)}(?:${t.inner})${escapeRegex(t.close)}$`, 'i') }));

/** Step 6. `<|im_start|>` → `< |im_start| >` and so on; returns the 1-based lines where a token was broken. */
export function breakRoleTokens(text: string, counts: SanitizerCounts): { text: string; lines: Set<number> } {
  const lines = new Set<number>();
  const out: string[] = [];
  let kept = 0;
  let line = 1;
  let nextNewline = text.indexOf('\n');
  ROLE_TOKEN.lastIndex = 0;
  for (let match = ROLE_TOKEN.exec(text); match; match = ROLE_TOKEN.exec(text)) {
    const token = match[0];
    // Each search starts after the last line feed found, so counting lines stays linear.
    while (nextNewline >= 0 && nextNewline < match.index) {
      line++;
      nextNewline = text.indexOf('\n', nextNewline + 1);
    }
    // The first listed token that matches the whole text, as the alternation chose it.
    const kind = ROLE_TOKEN_EXACT.find((t) => t.pattern.test(token))!;
    out.push(text.slice(kept, match.index), kind.open, ' ', token.slice(kind.open.length, token.length - kind.close.length), ' ', kind.close);
    kept = match.index + token.length;
    lines.add(line);
    counts.role_tokens_broken++;
  }
  if (kept === 0) return { text, lines };
  out.push(text.slice(kept));
  return { text: out.join(''), lines };
}

/** The shadow copy the rules read: NFKC, lower case, a typographic apostrophe as a plain one. */
function shadowOf(text: string): string {
  if (!/[^\x00-\x7f]/.test(text)) return text.toLowerCase();
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\u2019/g, "'");
}

/** The ids of a rule bit set (bits index DETECTION_RULES), in RULE_IDS order. */
function ruleIdsOf(fired: number): RuleId[] {
  if (fired === 0) return [];
  const ids = new Set(DETECTION_RULES.filter((_, i) => (fired & (1 << i)) !== 0).map((rule) => rule.id));
  return RULE_IDS.filter((id) => ids.has(id));
}
const IL_07 = 1 << DETECTION_RULES.findIndex((rule) => rule.id === 'IL-07');

/** The rules that fire anywhere in a piece of text, line by line. */
export function rulesInText(text: string, matcher: Matcher = newMatcher()): RuleId[] {
  const shadow = shadowOf(text);
  let fired = 0;
  for (let start = 0; start <= shadow.length;) {
    const end = lineEnd(shadow, start);
    fired |= matchLine(shadow, start, end, matcher).fired;
    start = end + 1;
  }
  return ruleIdsOf(fired);
}

/**
 * The hidden segments of one run: each is read by the rules as it arrives; HT-01 (tag text) records
 * the decoded length and hex SHA-256, never the text. Flags come in segment order, then rule order.
 */
export function hiddenCollector(): HiddenCollector {
  const matcher = newMatcher();
  const flags: HiddenFlag[] = [];
  let segments = 0;
  let omitted = 0;
  return {
    add(source: HiddenSource, text: string) {
      segments++;
      const fired = new Set<RuleId>(rulesInText(text, matcher));
      if (source === 'tag_chars') fired.add('HT-01');
      for (const rule of RULE_IDS.filter((id) => fired.has(id))) {
        if (flags.length >= MAX_FLAGS) {
          omitted++;
          continue;
        }
        const flag: HiddenFlag = { rule_id: rule, hidden: true, source, segment: segments };
        if (rule === 'HT-01') Object.assign(flag, { hidden_chars: text.length, hidden_sha256: createHash('sha256').update(text, 'utf8').digest('hex') });
        flags.push(flag);
      }
    },
    get segments() {
      return segments;
    },
    get flags() {
      return flags;
    },
    get omitted() {
      return omitted;
    },
  };
}

function lineEnd(text: string, start: number): number {
  const end = text.indexOf('\n', start);
  return end < 0 ? text.length : end;
}

function countLines(text: string): number {
  let lines = 1;
  for (let k = text.indexOf('\n'); k >= 0; k = text.indexOf('\n', k + 1)) lines++;
  return lines;
}

// Our own prefix, as step 7 writes it: rule ids in RULE_IDS order, no repeats.
const PREFIX = /\[flagged (IL-0[1-7](?:,IL-0[1-7])*)\] /y;
function ownPrefix(text: string, at: number): { length: number; ids: RuleId[] } | null {
  if (!text.startsWith('[flagged ', at)) return null;
  PREFIX.lastIndex = at;
  const match = PREFIX.exec(text);
  if (!match) return null;
  const ids = match[1]!.split(',') as RuleId[];
  const canonical = RULE_IDS.filter((id) => ids.includes(id));
  return canonical.length === ids.length && canonical.every((id, i) => id === ids[i]) ? { length: match[0].length, ids } : null;
}

/**
 * Step 7 on the visible lines, and the hidden segments' flags. A flagged line gets `[flagged IL-…] `;
 * a line that already starts with such a prefix (ours from an earlier pass, or forged) keeps it, with
 * any newly fired ids merged in, so a second pass changes nothing and a forged prefix hides no rule.
 * A line that reads like a delimiter gets `[quoted] ` after any flag prefix. Lines are walked in
 * place; only a changed line is copied.
 */
export function flagLines(text: string, roleLines: Set<number>, hidden: HiddenCollector, counts: SanitizerCounts): { body: string; flags: SanitizerFlag[] } {
  const whole = shadowOf(text);
  // NFKC and lower-casing never add or remove a line feed; the per-line fallback is only a guard.
  const aligned = countLines(whole) === countLines(text);
  const matcher = newMatcher();
  const flags: SanitizerFlag[] = [];
  // Past MAX_FLAGS a flag is only counted: a megabyte of flagged lines must not make an event of megabytes.
  const record = (flag: SanitizerFlag) => {
    if (flags.length < MAX_FLAGS) flags.push(flag);
    else counts.flags_omitted++;
  };
  const out: string[] = [];
  let copied = 0;
  let shadowStart = 0;
  for (let start = 0, line = 1; start <= text.length; line++) {
    const end = lineEnd(text, start);
    const prefix = ownPrefix(text, start);
    const contentStart = start + (prefix?.length ?? 0);
    let found: LineMatch;
    if (aligned) {
      const shadowEnd = lineEnd(whole, shadowStart);
      // The prefix is ASCII, so it is as long in the shadow.
      found = matchLine(whole, shadowStart + (prefix?.length ?? 0), shadowEnd, matcher);
      shadowStart = shadowEnd + 1;
    } else {
      const shadow = shadowOf(text.slice(contentStart, end));
      found = matchLine(shadow, 0, shadow.length, matcher);
    }
    const fired = ruleIdsOf(found.fired | (roleLines.has(line) ? IL_07 : 0));
    if (fired.length > 0 || found.delimiterLike) {
      for (const rule of fired) record({ line, rule_id: rule });
      if (fired.length > 0) counts.lines_flagged++;
      if (found.delimiterLike) counts.delimiter_lines_quoted++;
      const ids = RULE_IDS.filter((id) => fired.includes(id) || prefix?.ids.includes(id));
      if (!prefix || ids.length !== prefix.ids.length || found.delimiterLike) {
        out.push(text.slice(copied, start), ids.length > 0 ? `[flagged ${ids.join(',')}] ` : '', found.delimiterLike ? '[quoted] ' : '');
        copied = contentStart;
      }
    }
    start = end + 1;
  }
  out.push(text.slice(copied));
  for (const flag of hidden.flags) record(flag);
  counts.flags_omitted += hidden.omitted;
  counts.hidden_segments = hidden.segments;
  return { body: out.join(''), flags };
}
