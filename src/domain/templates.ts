// Smart templates (docs/contract.md §7) as data: the registry that lists them and
// resolves an id or alias, refusing at construction an alias collision or a prefilled `verified`.
import { AppError } from '../errors.ts';
import type { Json } from './canonical-json.ts';
import type { Template } from './contract/schema-types.gen.ts';
import { escapePointer } from './json-pointer.ts';
import { CopySources } from './placeholder-text.ts';
import { deepFreeze } from './pinned-document.ts';
import { FIELD_INSTRUCTIONS } from './repair-prompts.ts';

export type JsonObject = { [key: string]: Json };

/** One template, exactly the shape of schemas/api/template.json. */
export type SmartTemplate = Template;
export type TemplateStatus = SmartTemplate['status'];
export type TemplateExample = NonNullable<SmartTemplate['examples']>[number];

export type TemplateRegistry = {
  list(): readonly SmartTemplate[];
  resolve(idOrAlias: string): SmartTemplate | undefined;
  /** Normal forms of every string a template serves (servedText) and of the repair prompts' wording. */
  readonly copySources: CopySources;
};

/**
 * Builds the registry from already schema-checked template objects (the composition root reads and
 * validates the files). Throws AppError `template_name_collision` when an id or alias names two
 * things, `template_prefills_verified` when any prefilled value is `verified`.
 */
export function createTemplateRegistry(templates: readonly SmartTemplate[]): TemplateRegistry {
  const frozen = templates.map((t) => deepFreeze(structuredClone(t)));
  const byName = new Map<string, SmartTemplate>();
  const claim = (name: string, template: SmartTemplate): void => {
    const holder = byName.get(name);
    if (holder !== undefined) {
      throw new AppError(
        'template_name_collision',
        `Template name "${name}" of ${template.template_id} is already taken by ${holder.template_id}; give every id and alias to one template only.`,
        { extra: { name, templates: [holder.template_id, template.template_id] } },
      );
    }
    byName.set(name, template);
  };
  // Ids first, so an alias that equals another template's id is reported against the alias.
  for (const t of frozen) claim(t.template_id, t);
  for (const t of frozen) for (const alias of t.aliases) claim(alias, t);

  const served: string[] = [];
  for (const t of frozen) {
    const verified = prefilledVerified(t);
    if (verified.length > 0) {
      throw new AppError(
        'template_prefills_verified',
        `Template ${t.template_id} prefills "verified" at ${verified.join(', ')}; templates never prefill a claim as verified (use "claimed").`,
        { extra: { template_id: t.template_id, pointers: verified } },
      );
    }
    for (const source of servedText(t)) eachString(source, '', (text) => served.push(text));
  }
  // The repair prompts' wording is served too (in every refusal's repair_prompt).
  const copySources = new CopySources([...served, ...Object.values(FIELD_INSTRUCTIONS)]);

  return {
    list: () => frozen,
    resolve: (idOrAlias) => byName.get(idOrAlias),
    copySources,
  };
}

/**
 * Everything a template hands an agent to read: its starter payload and examples, and its
 * obligations, evidence checklist, non-claims and policies. None of it is about a task, so none of
 * it may stand as a task's own context line or trap (the seed's closeout rule 4).
 */
function servedText(t: SmartTemplate): unknown[] {
  return [
    t.starter_payload, ...(t.examples ?? []).map((e) => e.payload), t.agent_obligations, t.evidence_checklist,
    t.default_non_claims, t.missing_field_policy, t.redaction_defaults, t.export_blockers,
  ];
}


/** Pointers (into the template) of every prefilled string equal to `verified`. */
function prefilledVerified(t: SmartTemplate): string[] {
  const hits: string[] = [];
  const visit = (root: string) => (text: string, pointer: string) => {
    if (text.trim().toLowerCase() === 'verified') hits.push(root + pointer);
  };
  eachString(t.starter_payload, '', visit('/starter_payload'));
  eachString(t.safe_defaults, '', visit('/safe_defaults'));
  (t.examples ?? []).forEach((e, i) => eachString(e.payload, '', visit(`/examples/${i}/payload`)));
  return hits;
}

/**
 * Calls `visit` with every string inside `value` and its JSON pointer (RFC 6901), in document
 * order. Payloads are caller data, so the walk keeps its own stack: any depth, no RangeError.
 */
export function eachString(value: unknown, pointer: string, visit: (text: string, pointer: string) => void): void {
  const stack: [unknown, string][] = [[value, pointer]];
  while (stack.length > 0) {
    const [item, at] = stack.pop()!;
    if (typeof item === 'string') visit(item, at);
    else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) stack.push([item[i], `${at}/${i}`]);
    } else if (item !== null && typeof item === 'object') {
      const entries = Object.entries(item);
      for (let i = entries.length - 1; i >= 0; i--) stack.push([entries[i]![1], `${at}/${escapePointer(entries[i]![0])}`]);
    }
  }
}
