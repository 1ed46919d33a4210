// The wording of the template gates, as data: why a value was rejected (by issue code), what to write
// instead (by field), which evidence is still needed. Rule code picks entries; it carries no prose.

export const MIN_TEXT_LENGTH = 20;

/** Why a value was rejected or warned about; the blocker's `detail`, and the middle of its prompt. */
export const ISSUE_TEXT = {
  missing: () => 'is missing',
  empty_list: () => 'is an empty list',
  wrong_type: (expected: string, got: string) => `must be ${expected}, got ${got}`,
  invalid_value: (allowed: readonly string[]) => `must be one of ${allowed.map((a) => `"${a}"`).join(', ')}`,
  blank: () => 'is blank',
  too_short: (length: number) => `has ${length} characters after trimming; at least ${MIN_TEXT_LENGTH} are needed`,
  duplicate: (first: number) => `repeats item ${first} (compared trimmed, ignoring case)`,
  copied_text: () => 'is copied from template text (a starter payload, an example, an obligation, a checklist item or a repair prompt); write your own task-specific text',
  placeholder_text: (token: string) => token.startsWith('<')
    ? `is placeholder text ("${token}"); if that is code and not a blank, quote it in backticks`
    : `is placeholder text ("${token}")`,
  evidence_unbound: () => 'has neither sha256 nor etag, so it is not bound to the artifact content',
  blockers_or_gaps: () => 'and gaps are both missing or empty; a blocked or deferred closeout needs at least one of them',
  schema_violation: (detail: string) => detail,
  raw_ip: () => 'holds an IP address, which POST /v1/sessions does not store: send the address as ip (it is classified, then dropped) or its class as ip_class, and leave it out of this member',
  // warnings
  safe_default_kept: (value: string) => `keeps the template's safe default ${value}; that is fine when nothing more is known`,
  target_template: (status: string) => `this template is ${status}: its route is contract only, nothing is written through it yet`,
  self_verified_evidence: () => 'sets confidence "verified" on evidence that is not trusted_internal or sanitized_projection; the claim boundary will treat it as claimed',
  repeated_across_lists: (other: string) => `repeats an item of ${other}; say something different in each list`,
  blockers_on_completed: () => 'lists blockers on a completed closeout; close as blocked or deferred if they still hold',
  copied_example: () => 'equals template starter or example text; make sure it describes this task',
} as const;

const CONTEXT_LIST = (what: string): string =>
  `Write a non-empty list of task-specific strings, each at least ${MIN_TEXT_LENGTH} characters after trimming, ${what}. ` +
  'Do not copy placeholder or example text from a template, do not use placeholder words (<...>, TODO, TBD, lorem ipsum, example, n/a), and do not repeat an item.';

/** What to write, per field. Fields not listed get `genericInstruction`. */
export const FIELD_INSTRUCTIONS: Readonly<Record<string, string>> = {
  $: 'Send the payload as a JSON object holding the members of the template\'s starter_payload, filled in for this task.',
  payload: 'Set payload to the event payload object of the kind (for evidence.attached: {} or {"note": "what this evidence shows"}).',
  outcome: 'Set outcome to "completed", "blocked" or "deferred".',
  summary: 'Write a summary of what was done and the state the task is left in, in your own words (a non-blank string).',
  verification:
    'List the checks you ran and what each showed (commands, test runs, reviews), one non-blank string each; a completed closeout needs at least one.',
  evidence_refs:
    'Give a list of evidence_ref objects (artifact references), each with artifact_id, uri, evidence_type, sha256 or etag, ' +
    'confidence ("claimed" unless a reviewer verified the artifact), redaction, content_trust and captured_at; a completed closeout and an evidence attach need at least one.',
  context_lines: CONTEXT_LIST('each stating a fact about this task the next agent needs (what changed, where, why)'),
  future_agent_traps: CONTEXT_LIST('each naming a mistake a future agent could make on this task and how to avoid it'),
  blockers: 'List what blocks the task, one concrete non-blank string each (or list what is missing under gaps); a blocked or deferred closeout needs blockers or gaps.',
  gaps: 'List what is missing or unknown, one concrete non-blank string each (or list what blocks the task under blockers); a blocked or deferred closeout needs blockers or gaps.',
  next_actions: 'List the next concrete actions that would unblock or finish the task, one non-blank string each; a blocked or deferred closeout needs at least one.',
  title: 'Write a one-line title (1 to 200 characters) naming this task.',
  session_id: 'Set session_id to the id of your current session.',
  progress: 'Describe what changed since the last checkpoint, in your own words.',
  q: 'Set q to the words to look for (1 to 256 characters); results are discovery only, hydrate the timeline before claiming anything.',
  kind: 'Set kind to the event kind this template writes.',
};

/**
 * How the schema registry words a member the schema does not take (src/schema-registry.ts), so the
 * gate can tell the caller to remove it instead of asking for a value.
 */
export const MEMBER_NOT_ALLOWED = {
  unknown: (name: string) => `unknown member "${name}" is not allowed`,
  excluded: (name: string) => `member "${name}" is not allowed`,
} as const;

/** A schema finding's detail that names a member to remove (possibly followed by its condition). */
export function namesMemberToRemove(detail: string): boolean {
  return /^(unknown )?member ".*" is not allowed(?: |$)/.test(detail);
}

/** What to write where a template's field means something else than FIELD_INSTRUCTIONS says (those speak of a closeout). */
export const TEMPLATE_FIELD_INSTRUCTIONS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'checkpoint.write.v1': {
    blockers: 'List what blocks the task now, one concrete non-blank string each; when nothing does, send an empty list or leave blockers out (not "none").',
    next_actions: 'List the next concrete actions on the task, one non-blank string each; leave next_actions out when there are none yet.',
  },
};

export function genericInstruction(field: string, templateId: string): string {
  return `Set ${field} to a value for this task, as template ${templateId} describes; do not leave template placeholder text in it.`;
}

/** Entries of `next_required_evidence`. */
export const EVIDENCE_TEXT = {
  artifact_ref: () => 'an evidence_ref (artifact reference) with sha256 or etag',
  bind: (index: number) => `a sha256 or etag for evidence_refs[${index}], binding the reference to the artifact content`,
  verification: () => 'verification: the checks you ran (commands, test runs, reviews) and what each showed',
} as const;

/**
 * One repair prompt for one field: its state (missing, or which items failed and why) followed by
 * the instruction. `parts` are [path below the field, detail] pairs, path '' for the field itself.
 */
export function composeRepairPrompt(field: string, parts: ReadonlyArray<[string, string]>, templateId: string): string {
  // A member sent that the template does not take: nothing to fill in, only to remove.
  if (parts.every(([path, detail]) => path === '' && namesMemberToRemove(detail))) {
    return `${field} ${parts.map(([, detail]) => detail).join('; ')}. Remove ${field} from the payload: template ${templateId} does not take it (its request_schema lists the members it takes).`;
  }
  const instruction = TEMPLATE_FIELD_INSTRUCTIONS[templateId]?.[field] ?? FIELD_INSTRUCTIONS[field] ?? genericInstruction(field, templateId);
  const shown = parts.slice(0, MAX_PROMPT_PARTS);
  const more = parts.length - shown.length;
  const rest = more === 0 ? '' : `; and ${more.toLocaleString('en-US')} more ${more === 1 ? 'problem' : 'problems'} of ${field} (each is a blocker)`;
  const head = shown.every(([path]) => path === '')
    ? `${field} ${shown.map(([, detail]) => detail).join('; ')}${rest}.`
    : `${field} was rejected: ${shown.map(([path, detail]) => `${describePath(path)} ${detail}`.trim()).join('; ')}${rest}.`;
  return `${head} ${instruction}`;
}

/**
 * How many of a field's problems its repair prompt spells out. Every one is a blocker with its
 * pointer; a prompt naming each of thousands of refused items (1 MiB holds ~100,000) made the
 * answer ~35 times the body's size, and says no more to the agent that reads it than the first few.
 */
export const MAX_PROMPT_PARTS = 20;

/** `/0` → `item 0`, `/0/sha256` → `item 0 sha256`, `/note` → `note`. */
function describePath(path: string): string {
  if (path === '') return 'the field';
  const [first, ...rest] = path.slice(1).split('/');
  const lead = /^\d+$/.test(first ?? '') ? `item ${first}` : (first ?? '');
  return [lead, ...rest].join(' ');
}
