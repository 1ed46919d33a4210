// Regulatory profiles (docs/governance/regulatory.md §1): the frameworks as data — requirement ids,
// references and short titles of our own, never a framework's text — their types, and the checks a
// JSON Schema cannot make. The composition root reads fixtures/regulatory/*.json and validates each
// against REGULATORY_PROFILE_SCHEMA before loadRegulatoryProfiles.
import { AppError, type ErrorDetail } from '../../errors.ts';
import { deepFreeze } from '../pinned-document.ts';

/** The schema a profile file must pass before loading (a $id relative to the schema base). */
export const REGULATORY_PROFILE_SCHEMA = 'governance/regulatory-profile.json';

export type ProfileStatus = 'published' | 'enacted' | 'in_force' | 'repealed' | 'superseded';
/** When a duty applies; `to_confirm` marks a date resting on an amending act or report not yet confirmed. */
export type AppliesFrom = { date: string | null; date_status: 'confirmed' | 'to_confirm'; basis: string };
export type ProfileSource = {
  citation: string;
  url: string;
  /** The day the profile was last checked against its sources. */
  as_of: string;
  date_basis: string;
  text_policy: 'ids_and_short_titles_only';
  note?: string;
};
export type ProfileGroup = { group_id: string; ref?: string; title: string };
export type ProfileClassPoint = { class_id: string; ref: string; title: string };
export type ProfileClassification = ProfileClassPoint & { class: string; points?: ProfileClassPoint[] };
export type ProfileRequirement = {
  /** `<profile_id>:<local-id>`, e.g. `eu-ai-act:art-26-6`. */
  requirement_id: string;
  /** The source's own numbering: "Art. 26(6)", "GOVERN 1.6", "A.6.2.8". */
  ref: string;
  title: string;
  group_id: string;
  applies_to?: { roles?: string[]; classes?: string[] };
  applies_from?: AppliesFrom;
  evidence_hints?: string[];
  crosswalk?: string[];
  note?: string;
};

/** A profile file exactly as schemas/governance/regulatory-profile.json describes it. */
export type RegulatoryProfileDocument = {
  schema_version: 'gov.regulatory_profile.v1';
  profile_id: string;
  title: string;
  kind: 'law' | 'framework' | 'standard';
  jurisdiction: string | null;
  status: ProfileStatus;
  status_note?: string;
  supersedes?: string[];
  superseded_by: string | null;
  version_label: string;
  source: ProfileSource;
  applies_from?: AppliesFrom;
  roles?: string[];
  groups: ProfileGroup[];
  classifications?: ProfileClassification[];
  requirements: ProfileRequirement[];
};

/** A loaded profile: the frozen document and its requirements by id, in document order. */
export type RegulatoryProfile = {
  readonly id: string;
  readonly document: Readonly<RegulatoryProfileDocument>;
  readonly requirements: ReadonlyMap<string, Readonly<ProfileRequirement>>;
};

/** The local part of a requirement id, when it belongs to the profile. */
export function localIdOf(profileId: string, requirementId: string): string | undefined {
  const prefix = `${profileId}:`;
  return requirementId.startsWith(prefix) ? requirementId.slice(prefix.length) : undefined;
}

/**
 * The requirement a path names: its full id (`eu-ai-act:art-26-6`) or its local id (`art-26-6`),
 * which a URL carries more readably. Undefined when the profile has no such requirement.
 */
export function requirementOf(profile: RegulatoryProfile, id: string): Readonly<ProfileRequirement> | undefined {
  return profile.requirements.get(id) ?? profile.requirements.get(`${profile.id}:${id}`);
}

/**
 * Loads profile documents already checked against REGULATORY_PROFILE_SCHEMA: checks each one and
 * then what holds across them (profile ids and requirement ids unique, crosswalks that resolve), and
 * freezes copies. Every refusal is an AppError `bad_input_file` whose details name the profile and
 * the JSON pointer.
 */
export function loadRegulatoryProfiles(documents: readonly unknown[]): ReadonlyMap<string, RegulatoryProfile> {
  const docs = documents.map((d) => structuredClone(d) as RegulatoryProfileDocument);
  const problems: ErrorDetail[] = [];
  const profiles = new Map<string, RegulatoryProfile>();
  const owner = new Map<string, string>();
  for (const doc of docs) {
    const fail = (pointer: string, detail: string) => problems.push({ pointer: `${doc.profile_id}#${pointer}`, detail });
    if (profiles.has(doc.profile_id)) fail('/profile_id', 'is loaded twice');
    profileProblems(doc, fail);
    const requirements = new Map<string, ProfileRequirement>();
    for (const r of doc.requirements) requirements.set(r.requirement_id, r);
    for (const id of idsOf(doc)) {
      const other = owner.get(id);
      if (other !== undefined && other !== doc.profile_id) fail('/requirements', `repeats ${id} of profile ${other}`);
      owner.set(id, doc.profile_id);
    }
    profiles.set(doc.profile_id, { id: doc.profile_id, document: deepFreeze(doc), requirements });
  }
  for (const doc of docs) {
    doc.requirements.forEach((r, i) =>
      r.crosswalk?.forEach((target, j) => {
        const [profileId = ''] = target.split(':');
        if (target === r.requirement_id) problems.push({ pointer: `${doc.profile_id}#/requirements/${i}/crosswalk/${j}`, detail: 'maps a requirement to itself' });
        else if (!profiles.get(profileId)?.requirements.has(target))
          problems.push({ pointer: `${doc.profile_id}#/requirements/${i}/crosswalk/${j}`, detail: `names ${target}, which no loaded profile has` });
      }),
    );
  }
  if (problems.length > 0) {
    const first = problems[0]!;
    throw new AppError('bad_input_file', `The regulatory profiles are not usable: ${first.pointer} ${first.detail}. Fix the profile file.`, { details: problems });
  }
  return profiles;
}

/** Every id a profile defines: its requirements, classifications and their points. */
function idsOf(doc: RegulatoryProfileDocument): string[] {
  const classes = (doc.classifications ?? []).flatMap((c) => [c.class_id, ...(c.points ?? []).map((p) => p.class_id)]);
  return [...doc.requirements.map((r) => r.requirement_id), ...classes];
}

/** The cross-member invariants of one profile, in document order. */
function profileProblems(doc: RegulatoryProfileDocument, fail: (pointer: string, detail: string) => void): void {
  if ((doc.status === 'superseded') !== (doc.superseded_by !== null)) fail('/superseded_by', 'is set exactly when the status is superseded');
  const groups = new Set<string>();
  doc.groups.forEach((g, i) => {
    if (groups.has(g.group_id)) fail(`/groups/${i}/group_id`, `repeats ${g.group_id}`);
    groups.add(g.group_id);
  });
  const seen = new Set<string>();
  const ownId = (id: string, pointer: string) => {
    if (localIdOf(doc.profile_id, id) === undefined) fail(pointer, `${id} does not start with ${doc.profile_id}:`);
    if (seen.has(id)) fail(pointer, `repeats ${id}`);
    seen.add(id);
  };
  const roles = doc.roles === undefined ? undefined : new Set(doc.roles);
  doc.requirements.forEach((r, i) => {
    ownId(r.requirement_id, `/requirements/${i}/requirement_id`);
    if (!groups.has(r.group_id)) fail(`/requirements/${i}/group_id`, `names ${r.group_id}, which /groups lacks`);
    r.applies_to?.roles?.forEach((role, j) => {
      if (roles && !roles.has(role)) fail(`/requirements/${i}/applies_to/roles/${j}`, `names ${role}, which /roles lacks`);
    });
  });
  doc.classifications?.forEach((c, i) => {
    ownId(c.class_id, `/classifications/${i}/class_id`);
    c.points?.forEach((p, j) => ownId(p.class_id, `/classifications/${i}/points/${j}/class_id`));
  });
}
