// Quota subjects: the accepted subject strings, their ancestor tree, and the usage of a subject
// computed from an owner's seven primitive counters (docs/quota.md §1, §2).

/**
 * The 13 subjects of docs/quota.md §1, then Forgejo's two extra spellings
 * (`size:assets:wiki` = `size:wiki`, `none`).
 */
export const SUBJECTS = [
  'size:all',
  'size:repos:all',
  'size:repos:public',
  'size:repos:private',
  'size:git:all',
  'size:git:lfs',
  'size:assets:all',
  'size:assets:attachments:all',
  'size:assets:attachments:issues',
  'size:assets:attachments:releases',
  'size:assets:artifacts',
  'size:assets:packages:all',
  'size:wiki',
  'size:assets:wiki',
  'none',
] as const;

export type Subject = (typeof SUBJECTS)[number];

/** The 13 subjects of docs/quota.md §1: what `gov quota eval` reports per owner when no subject is asked. */
export const SEED_SUBJECTS: readonly Subject[] = SUBJECTS.slice(0, 13);

/** The seven counters every owner has; every subject's usage is a sum of some of them. */
export type Primitives = {
  reposPublic: number;
  reposPrivate: number;
  gitLfs: number;
  attachmentsIssues: number;
  attachmentsReleases: number;
  artifacts: number;
  packagesAll: number;
};

export const PRIMITIVE_KEYS: readonly (keyof Primitives)[] = [
  'reposPublic',
  'reposPrivate',
  'gitLfs',
  'attachmentsIssues',
  'attachmentsReleases',
  'artifacts',
  'packagesAll',
];

export function zeroPrimitives(): Primitives {
  return { reposPublic: 0, reposPrivate: 0, gitLfs: 0, attachmentsIssues: 0, attachmentsReleases: 0, artifacts: 0, packagesAll: 0 };
}

const SUBJECT_SET: ReadonlySet<string> = new Set(SUBJECTS);

export function isSubject(value: unknown): value is Subject {
  return typeof value === 'string' && SUBJECT_SET.has(value);
}

/** Both wiki spellings name one subject; relevance compares the canonical spelling. */
export function canonicalSubject(subject: Subject): Subject {
  return subject === 'size:assets:wiki' ? 'size:wiki' : subject;
}

export function isWikiSubject(subject: Subject): boolean {
  return canonicalSubject(subject) === 'size:wiki';
}

// The tree of docs/quota.md §2 (Forgejo's subjectToParent). `size:all` and `none` have no parent.
const PARENT: Partial<Record<Subject, Subject>> = {
  'size:git:all': 'size:all',
  'size:repos:all': 'size:git:all',
  'size:repos:public': 'size:repos:all',
  'size:repos:private': 'size:repos:all',
  'size:git:lfs': 'size:git:all',
  'size:assets:all': 'size:all',
  'size:assets:attachments:all': 'size:assets:all',
  'size:assets:attachments:issues': 'size:assets:attachments:all',
  'size:assets:attachments:releases': 'size:assets:attachments:all',
  'size:assets:artifacts': 'size:assets:all',
  'size:assets:packages:all': 'size:assets:all',
  'size:wiki': 'size:assets:all',
};

/** The ancestors of a subject, nearest first, without the subject itself. */
export function ancestorsOf(subject: Subject): Subject[] {
  const out: Subject[] = [];
  let current = PARENT[canonicalSubject(subject)];
  while (current !== undefined) {
    out.push(current);
    current = PARENT[current];
  }
  return out;
}

/** The usage of one subject. Composites follow docs/quota.md §1; wiki is untracked (0); `none` is 0. */
export function usageOf(subject: Subject, p: Primitives): number {
  switch (canonicalSubject(subject)) {
    case 'size:repos:public':
      return p.reposPublic;
    case 'size:repos:private':
      return p.reposPrivate;
    case 'size:repos:all':
      return p.reposPublic + p.reposPrivate;
    case 'size:git:lfs':
      return p.gitLfs;
    case 'size:git:all':
      return p.reposPublic + p.reposPrivate + p.gitLfs;
    case 'size:assets:attachments:issues':
      return p.attachmentsIssues;
    case 'size:assets:attachments:releases':
      return p.attachmentsReleases;
    case 'size:assets:attachments:all':
      return p.attachmentsIssues + p.attachmentsReleases;
    case 'size:assets:artifacts':
      return p.artifacts;
    case 'size:assets:packages:all':
      return p.packagesAll;
    case 'size:assets:all':
      return p.attachmentsIssues + p.attachmentsReleases + p.artifacts + p.packagesAll;
    case 'size:all':
      // Repository bytes are counted once: git:all + assets:all.
      return PRIMITIVE_KEYS.reduce((sum, key) => sum + p[key], 0);
    default:
      return 0; // size:wiki (untracked) and none (matches nothing)
  }
}
