// The record gov.sanitizer keeps while it works (docs/governance/sanitizer.md): one counter per kind
// of change, in the order the steps make them, and the hidden text it took out for detection only.
import type { RuleId } from './sanitizer-rules.ts';

export const COUNT_NAMES = [
  'invalid_utf8',
  'line_endings',
  'controls',
  'zero_width',
  'bidi',
  'tag_chars',
  'variation_selectors',
  'private_use',
  'noncharacters',
  'combining_runs_split',
  'nfc_lines_changed',
  'html_comments_removed',
  'html_elements_dropped',
  'html_tags_stripped',
  'html_entities_decoded',
  'images_neutralised',
  'url_secrets_cut',
  'role_tokens_broken',
  'lines_flagged',
  'delimiter_lines_quoted',
  'hidden_segments',
  'flags_omitted',
] as const;
export type CountName = (typeof COUNT_NAMES)[number];
export type SanitizerCounts = Record<CountName, number>;

export function zeroCounts(): SanitizerCounts {
  return Object.fromEntries(COUNT_NAMES.map((name) => [name, 0])) as SanitizerCounts;
}

/** Where hidden text came from: tag characters (step 3) or an HTML comment (step 5). */
export type HiddenSource = 'tag_chars' | 'html_comment';

/**
 * Receives text removed from the projection (never output). The rules read each segment as it
 * arrives and the text is dropped: what is kept is the count and the flags, at most MAX_FLAGS.
 */
export type HiddenCollector = {
  add(source: HiddenSource, text: string): void;
  /** Segments received, in order (a flag's `segment` is its 1-based place). */
  readonly segments: number;
  readonly flags: readonly HiddenFlag[];
  /** Flags left out once MAX_FLAGS were kept. */
  readonly omitted: number;
};

/** A rule that fired on a visible line (1-based, in the projection before truncation). */
export type LineFlag = { line: number; rule_id: RuleId };
/** A rule that fired on a hidden segment (1-based, in the order the segments were taken out). */
export type HiddenFlag = {
  rule_id: RuleId;
  hidden: true;
  source: HiddenSource;
  segment: number;
  /** HT-01 only: how many characters the tag text decodes to, and the hex SHA-256 of that ASCII. */
  hidden_chars?: number;
  hidden_sha256?: string;
};
export type SanitizerFlag = LineFlag | HiddenFlag;
