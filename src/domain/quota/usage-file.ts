// USAGE.json of `gov quota eval` (docs/quota.md §6): a forge data set (§4) or a map of
// owner → Forgejo `used` shape, turned into primitive counters per owner. Its shape is
// schemas/cli/quota-usage.json, checked before this module sees it; here are only the checks a
// schema cannot state: the references of a forge data set, and owners named twice in a used map.
import { escapePointer } from '../json-pointer.ts';
import { isAppError } from '../../errors.ts';
import type { Fail } from './json-input.ts';
import { zeroPrimitives, type Primitives } from './subjects.ts';
import { ownersOf, usageByOwner, validateForgeData, type ForgeData, type QuotaUsed } from './usage.ts';

export type UsageOwner = { login: string; kind: 'user' | 'org' | 'owner'; usage: Primitives };

export type UsageFile = {
  format: 'forge_data' | 'used_map';
  /** By lower-cased login. `kind` is `owner` when the used map does not say. */
  owners: Map<string, UsageOwner>;
};

/** Forgejo's `used` with every member optional (absent counts 0), as the used map writes it. */
export type PartialUsed = {
  size?: {
    repos?: Partial<QuotaUsed['size']['repos']>;
    git?: Partial<QuotaUsed['size']['git']>;
    assets?: {
      attachments?: Partial<QuotaUsed['size']['assets']['attachments']>;
      artifacts?: number;
      packages?: Partial<QuotaUsed['size']['assets']['packages']>;
    };
  };
};

/** USAGE.json as schemas/cli/quota-usage.json admits it. */
export type UsageJson = ForgeData | Record<string, PartialUsed>;

/**
 * The schema's own test (its `if`): an object with an array member, or with no member at all, is
 * a forge data set; otherwise every member is an owner's `used`. So an owner may be named "repos".
 */
export function isForgeDataFile(file: UsageJson): file is ForgeData {
  const values = Object.values(file);
  return values.length === 0 || values.some(Array.isArray);
}

/** The usage of a schema-valid USAGE.json. */
export function readUsage(file: UsageJson, fail: Fail): UsageFile {
  if (isForgeDataFile(file)) {
    try {
      validateForgeData(file);
    } catch (err) {
      if (isAppError(err) && err.details !== undefined && err.details.length > 0) fail(err.details);
      throw err;
    }
    const usage = usageByOwner(file);
    const owners = new Map<string, UsageOwner>();
    for (const [key, owner] of ownersOf(file)) owners.set(key, { ...owner, usage: usage.get(key) ?? zeroPrimitives() });
    return { format: 'forge_data', owners };
  }
  const owners = new Map<string, UsageOwner>();
  for (const [login, used] of Object.entries(file)) {
    const other = owners.get(login.toLowerCase());
    if (other !== undefined) {
      fail({ pointer: `/${escapePointer(login)}`, detail: `owner "${login}" is also listed as "${other.login}" (names compare case-insensitively)` });
    }
    owners.set(login.toLowerCase(), { login, kind: 'owner', usage: primitivesOf(used) });
  }
  return { format: 'used_map', owners };
}

function primitivesOf(used: PartialUsed): Primitives {
  const { repos, git, assets } = used.size ?? {};
  return {
    reposPublic: repos?.public ?? 0,
    reposPrivate: repos?.private ?? 0,
    gitLfs: git?.LFS ?? 0,
    attachmentsIssues: assets?.attachments?.issues ?? 0,
    attachmentsReleases: assets?.attachments?.releases ?? 0,
    artifacts: assets?.artifacts ?? 0,
    packagesAll: assets?.packages?.all ?? 0,
  };
}
