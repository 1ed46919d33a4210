// The rule set of gov.sanitizer 1.0.0 as data (docs/governance/sanitizer.md): what step 3 removes,
// the chat-template tokens step 6 breaks, the instruction-like phrases step 7 flags, the HTML vocabulary
// of step 5 and the size limit. Its RFC 8785 hash is recorded with every projection, so any change shows.
import { canonicalSha256Uri } from '../canonical-json.ts';
import { SECRET_NAME_PARTS } from '../redaction.ts';

export const SANITIZER_ID = 'gov.sanitizer';
export const SANITIZER_VERSION = '1.0.0';
export const RULESET_ID = 'gov.sanitizer.rules.v1';

export const RULE_IDS = ['IL-01', 'IL-02', 'IL-03', 'IL-04', 'IL-05', 'IL-06', 'IL-07', 'HT-01'] as const;
export type RuleId = (typeof RULE_IDS)[number];

/** The classes of step 3, in the order their counts are listed. */
export const REMOVAL_CLASSES = ['controls', 'zero_width', 'bidi', 'tag_chars', 'variation_selectors', 'private_use', 'noncharacters'] as const;
export type RemovalClass = (typeof REMOVAL_CLASSES)[number];

/**
 * Phrases in order on one line's shadow tokens. Each part lists alternatives (a phrase is tokens
 * separated by single spaces, at most MAX_PHRASE_TOKENS); at most `max_gap` tokens may stand between
 * the end of one part and the start of the next. `anchored`: the first part starts the line.
 */
export type PhraseSequence = { anchored: boolean; max_gap: number; parts: string[][] };
export type DetectionRule = {
  id: RuleId;
  description: string;
  /** shadow_line: the sequences below, on visible lines and hidden text; the others are raised by a step. */
  raised_by: 'shadow_line' | 'step_6_role_tokens' | 'step_3_tag_chars';
  sequences: PhraseSequence[];
};
/** A chat-template token: open + inner (a bounded regex fragment) + close; step 6 puts a space after open and before close. */
export type RoleToken = { open: string; inner: string; close: string };

export const MAX_PHRASE_TOKENS = 4;

const seq = (max_gap: number, ...parts: string[][]): PhraseSequence => ({ anchored: false, max_gap, parts });
const OVERRIDE_VERBS = ['ignore', 'disregard', 'forget', 'override', 'bypass'];
const INSTRUCTION_WORDS = ['instructions', 'instruction', 'prompts', 'prompt', 'rules', 'directions', 'guidelines', 'directives'];
const SEND_VERBS = ['send', 'post', 'upload', 'forward', 'email', 'mail', 'transmit', 'exfiltrate', 'leak', 'submit'];
const ADDRESS_STARTS = ['@', 'http :', 'https :', 'ftp :', 'www .'];
const HEADER_WORDS = ['system', 'instructions', 'instruction'];

export const DETECTION_RULES: readonly DetectionRule[] = [
  {
    id: 'IL-01',
    description: 'Asks the reader to ignore, forget or override earlier instructions, prompts or rules.',
    raised_by: 'shadow_line',
    sequences: [
      seq(3, OVERRIDE_VERBS, ['previous', 'prior', 'above', 'earlier', 'preceding', 'all', 'any', 'your', 'system', 'original'], INSTRUCTION_WORDS),
      seq(3, OVERRIDE_VERBS, INSTRUCTION_WORDS, ['above', 'before', 'earlier', 'so far', 'previously']),
    ],
  },
  {
    id: 'IL-02',
    description: 'Tries to hand the reader a new role or a new set of instructions.',
    raised_by: 'shadow_line',
    sequences: [
      seq(0, ['you are now', "you're now", 'pretend to be', 'pretend you are', 'pretend that you are', 'new instructions :', 'updated instructions :']),
      seq(1, ['from now on'], ['you', "you're"]),
    ],
  },
  {
    id: 'IL-03',
    description: 'A line that opens like a chat role header: system:, assistant:, developer:, # system, # instructions.',
    raised_by: 'shadow_line',
    sequences: [
      {
        anchored: true,
        max_gap: 0,
        parts: [['system :', 'assistant :', 'developer :', ...HEADER_WORDS.flatMap((w) => [`# ${w}`, `# # ${w}`, `# # # ${w}`])]],
      },
    ],
  },
  {
    id: 'IL-04',
    description: 'Asks that something be kept from the user, the operator or the reviewer.',
    raised_by: 'shadow_line',
    sequences: [
      seq(
        3,
        ['do not', "don't", 'dont', 'never', 'must not', 'should not'],
        ['tell', 'reveal', 'mention', 'disclose', 'inform', 'show', 'report'],
        ['user', 'users', 'operator', 'operators', 'reviewer', 'reviewers', 'human', 'humans', 'auditor', 'auditors'],
      ),
    ],
  },
  {
    id: 'IL-05',
    description: 'Tells the reader to run a tool, function or command, or to send something to a web or mail address.',
    raised_by: 'shadow_line',
    sequences: [
      seq(2, ['call', 'run', 'execute', 'invoke', 'trigger'], ['tool', 'tools', 'function', 'functions', 'command', 'commands', 'plugin', 'script']),
      seq(6, SEND_VERBS, ['to'], ADDRESS_STARTS),
    ],
  },
  {
    id: 'IL-06',
    description: 'A condition aimed at a model: if or when you are an AI, a model, an assistant or an agent.',
    raised_by: 'shadow_line',
    sequences: [
      seq(
        4,
        ['if you are', "if you're", 'if you were', 'when you are', "when you're", 'whenever you are'],
        ['ai', 'llm', 'assistant', 'agent', 'chatbot', 'bot', 'model', 'language model'],
      ),
    ],
  },
  {
    id: 'IL-07',
    description: 'A chat-template control token such as <|im_start|>, [INST], <<SYS>> or </s>, broken by step 6.',
    raised_by: 'step_6_role_tokens',
    sequences: [],
  },
  {
    id: 'HT-01',
    description: 'Text hidden in Unicode tag characters; decoded only to be checked, counted and hashed.',
    raised_by: 'step_3_tag_chars',
    sequences: [],
  },
];

export const ROLE_TOKENS: readonly RoleToken[] = [
  { open: '<', inner: '\\|[A-Za-z0-9_.-]{1,32}\\|', close: '>' },
  { open: '[', inner: '/?INST', close: ']' },
  { open: '<<', inner: '/?SYS', close: '>>' },
  { open: '<', inner: '(?:start|end)_of_turn', close: '>' },
  { open: '<', inner: '/?s', close: '>' },
];

/** Inclusive code point ranges per class of step 3 (no range overlaps another). */
export const REMOVAL_RANGES: Readonly<Record<RemovalClass, readonly (readonly [number, number])[]>> = {
  controls: [
    [0x00, 0x08],
    [0x0b, 0x1f],
    [0x7f, 0x9f],
  ],
  zero_width: [
    [0xad, 0xad],
    [0x180e, 0x180e],
    [0x200b, 0x200d],
    [0x2060, 0x2064],
    [0xfeff, 0xfeff],
  ],
  bidi: [
    [0x061c, 0x061c],
    [0x200e, 0x200f],
    [0x202a, 0x202e],
    [0x2066, 0x2069],
  ],
  tag_chars: [[0xe0000, 0xe007f]],
  variation_selectors: [
    [0xfe00, 0xfe0f],
    [0xe0100, 0xe01ef],
  ],
  private_use: [
    [0xe000, 0xf8ff],
    [0xf0000, 0xffffd],
    [0x100000, 0x10fffd],
  ],
  noncharacters: [[0xfdd0, 0xfdef], ...Array.from({ length: 17 }, (_, plane) => [plane * 0x10000 + 0xfffe, plane * 0x10000 + 0xffff] as const)],
};

/**
 * UAX #15's stream-safe format: after `max_run` code points in a row that start with a combining mark
 * (\p{M}, or the four letters whose compatibility form does), a combining grapheme joiner goes in.
 * Without it, ICU's canonical reordering is quadratic in the run and a megabyte of alternating marks
 * takes minutes; with it every run stays short. Real text never has runs this long.
 */
export const STREAM_SAFE = { max_run: 30, joiner: 0x034f, also_marks: [0x0e33, 0x0eb3, 0xff9e, 0xff9f] } as const;

export const HTML_RULES = {
  dropped_elements: ['script', 'style'],
  line_break_tags: ['br', 'hr'],
  line_break_after_closing: [
    'p',
    'div',
    'li',
    'tr',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'blockquote',
    'pre',
    'table',
    'ul',
    'ol',
    'section',
    'article',
    'header',
    'footer',
    'title',
  ],
  entities: {
    amp: '&',
    lt: '<',
    gt: '>',
    quot: '"',
    apos: "'",
    nbsp: '\u00a0',
    shy: '\u00ad',
    zwj: '\u200d',
    zwnj: '\u200c',
    lrm: '\u200e',
    rlm: '\u200f',
    copy: '\u00a9',
    reg: '\u00ae',
    trade: '\u2122',
    hellip: '\u2026',
    mdash: '\u2014',
    ndash: '\u2013',
    lsquo: '\u2018',
    rsquo: '\u2019',
    ldquo: '\u201c',
    rdquo: '\u201d',
    laquo: '\u00ab',
    raquo: '\u00bb',
    bull: '\u2022',
    middot: '\u00b7',
    deg: '\u00b0',
    times: '\u00d7',
    euro: '\u20ac',
    pound: '\u00a3',
    yen: '\u00a5',
    cent: '\u00a2',
    sect: '\u00a7',
    para: '\u00b6',
  } as Readonly<Record<string, string>>,
} as const;

/** The projection's body, truncation marker included, in UTF-8 bytes. */
export const LIMIT_BYTES = 64 * 1024;
/** Flags recorded per run; lines past it are still prefixed, and counts.flags_omitted says how many were left out. */
export const MAX_FLAGS = 1000;

/** Everything above that decides the output, as one plain JSON document: its hash is the rule-set hash. */
export const SANITIZER_RULESET = {
  ruleset_id: RULESET_ID,
  sanitizer: `${SANITIZER_ID}@${SANITIZER_VERSION}`,
  limit_bytes: LIMIT_BYTES,
  max_flags: MAX_FLAGS,
  removal_ranges: REMOVAL_RANGES,
  stream_safe: STREAM_SAFE,
  html: HTML_RULES,
  secret_name_parts: SECRET_NAME_PARTS,
  role_tokens: ROLE_TOKENS,
  detection: DETECTION_RULES,
};

/** `sha256:` + hex SHA-256 of the RFC 8785 form of SANITIZER_RULESET. */
export const RULESET_SHA256 = canonicalSha256Uri(SANITIZER_RULESET);
