// USAGE.json of `gov quota eval` (docs/quota.md §6): a forge data set (§4) or a map of
// owner → Forgejo `used` shape, checked and turned into primitive counters per owner.
import { isAppError } from '../../errors.ts';
import { parseJsonInput } from './json-input.ts';
import { inputShape, MAX_EXACT, type InputShape } from './input-shape.ts';
import { zeroPrimitives, type Primitives } from './subjects.ts';
import { ownersOf, usageByOwner, validateForgeData, type ForgeData } from './usage.ts';

export type UsageOwner = { login: string; kind: 'user' | 'org' | 'owner'; usage: Primitives };

export type UsageFile = {
  format: 'forge_data' | 'used_map';
  /** By lower-cased login. `kind` is `owner` when the used map does not say. */
  owners: Map<string, UsageOwner>;
};

const FORGE_KEYS = ['users', 'orgs', 'repos', 'attachments', 'artifacts', 'packages'];

/**
 * A top-level object with an array member (or no member at all) is a forge data set; otherwise
 * every member is an owner's `used`. This keeps an owner named "repos" possible in the used map.
 */
export function parseUsageFile(text: string, fileName: string): UsageFile {
  const input = parseJsonInput(text, fileName);
  const s = inputShape(input);
  const top = s.map('', input.value);
  const values = Object.values(top);
  if (values.length === 0 || values.some(Array.isArray)) {
    const data = readForgeData(s, top);
    try {
      validateForgeData(data);
    } catch (err) {
      const first = isAppError(err) ? err.details?.[0] : undefined;
      if (first === undefined) throw err;
      s.fail(first.pointer, first.detail);
    }
    const usage = usageByOwner(data);
    const owners = new Map<string, UsageOwner>();
    for (const [key, owner] of ownersOf(data)) owners.set(key, { ...owner, usage: usage.get(key) ?? zeroPrimitives() });
    return { format: 'forge_data', owners };
  }
  const owners = new Map<string, UsageOwner>();
  for (const [login, raw] of Object.entries(top)) {
    const pointer = s.member('', login);
    const other = owners.get(login.toLowerCase());
    if (other !== undefined) s.fail(pointer, `owner "${login}" is also listed as "${other.login}" (names compare case-insensitively)`);
    owners.set(login.toLowerCase(), { login, kind: 'owner', usage: readUsed(s, pointer, raw) });
  }
  return { format: 'used_map', owners };
}

/** The `used` shape; absent members count 0, unknown members are refused (a typo is not a zero). */
function readUsed(s: InputShape, pointer: string, raw: unknown): Primitives {
  const p = zeroPrimitives();
  const size = (ptr: string, v: unknown) => (v === undefined ? 0 : s.integer(ptr, v, 0, MAX_EXACT));
  const obj = (ptr: string, v: unknown, allowed: string[]) => (v === undefined ? {} : s.object(ptr, v, allowed));
  const used = s.object(pointer, raw, ['size']);
  const sz = obj(`${pointer}/size`, used.size, ['repos', 'git', 'assets']);
  const repos = obj(`${pointer}/size/repos`, sz.repos, ['public', 'private']);
  p.reposPublic = size(`${pointer}/size/repos/public`, repos.public);
  p.reposPrivate = size(`${pointer}/size/repos/private`, repos.private);
  const git = obj(`${pointer}/size/git`, sz.git, ['LFS']);
  p.gitLfs = size(`${pointer}/size/git/LFS`, git.LFS);
  const assets = obj(`${pointer}/size/assets`, sz.assets, ['attachments', 'artifacts', 'packages']);
  const att = obj(`${pointer}/size/assets/attachments`, assets.attachments, ['issues', 'releases']);
  p.attachmentsIssues = size(`${pointer}/size/assets/attachments/issues`, att.issues);
  p.attachmentsReleases = size(`${pointer}/size/assets/attachments/releases`, att.releases);
  p.artifacts = size(`${pointer}/size/assets/artifacts`, assets.artifacts);
  const packages = obj(`${pointer}/size/assets/packages`, assets.packages, ['all']);
  p.packagesAll = size(`${pointer}/size/assets/packages/all`, packages.all);
  return p;
}

/** Structure of a forge data set (schemas/quota/forge-data.json); references are checked after. */
function readForgeData(s: InputShape, top: Record<string, unknown>): ForgeData {
  s.object('', top, FORGE_KEYS);
  const list = <T>(name: string, item: (ptr: string, o: Record<string, unknown>) => T, allowed: string[]): T[] =>
    top[name] === undefined ? [] : s.array(`/${name}`, top[name]).map((raw, i) => item(`/${name}/${i}`, s.object(`/${name}/${i}`, raw, allowed)));
  const str = (ptr: string, v: unknown) => s.string(ptr, v);
  // A full name may be empty, unlike logins and names.
  const text = (ptr: string, v: unknown) => (v === '' ? '' : s.string(ptr, v));
  const bytes = (ptr: string, v: unknown) => s.integer(ptr, v, 0, MAX_EXACT);
  const opt = <T>(v: unknown, read: () => T): T | undefined => (v === undefined ? undefined : read());
  const kind = (ptr: string, v: unknown): 'issue' | 'release' => {
    if (v !== 'issue' && v !== 'release') s.fail(ptr, 'expected "issue" or "release"');
    return v as 'issue' | 'release';
  };
  const repoRef = (ptr: string, v: unknown) => {
    const ref = str(ptr, v);
    if (!/^[^/]+\/[^/]+$/.test(ref)) s.fail(ptr, `expected "owner/name", found ${JSON.stringify(ref)}`);
    return ref;
  };
  const data: ForgeData = {
    users: list('users', (p, o) => ({
      login: str(`${p}/login`, o.login),
      ...defined('full_name', opt(o.full_name, () => text(`${p}/full_name`, o.full_name))),
      ...defined('is_admin', opt(o.is_admin, () => s.boolean(`${p}/is_admin`, o.is_admin))),
    }), ['login', 'full_name', 'is_admin']),
    orgs: list('orgs', (p, o) => ({
      login: str(`${p}/login`, o.login),
      owners: s.array(`${p}/owners`, o.owners).map((v, j) => str(`${p}/owners/${j}`, v)),
    }), ['login', 'owners']),
    repos: list('repos', (p, o) => ({
      owner: str(`${p}/owner`, o.owner),
      name: str(`${p}/name`, o.name),
      ...defined('private', opt(o.private, () => s.boolean(`${p}/private`, o.private))),
      size: bytes(`${p}/size`, o.size),
      ...defined('lfs_size', opt(o.lfs_size, () => bytes(`${p}/lfs_size`, o.lfs_size))),
    }), ['owner', 'name', 'private', 'size', 'lfs_size']),
    attachments: list('attachments', (p, o) => ({
      repo: repoRef(`${p}/repo`, o.repo),
      kind: kind(`${p}/kind`, o.kind),
      name: str(`${p}/name`, o.name),
      size: bytes(`${p}/size`, o.size),
    }), ['repo', 'kind', 'name', 'size']),
    artifacts: list('artifacts', (p, o) => ({
      repo: repoRef(`${p}/repo`, o.repo),
      name: str(`${p}/name`, o.name),
      size: bytes(`${p}/size`, o.size),
      ...defined('expired', opt(o.expired, () => s.boolean(`${p}/expired`, o.expired))),
    }), ['repo', 'name', 'size', 'expired']),
    packages: list('packages', (p, o) => ({
      owner: str(`${p}/owner`, o.owner),
      repo: o.repo === undefined || o.repo === null ? null : repoRef(`${p}/repo`, o.repo),
      name: str(`${p}/name`, o.name),
      type: str(`${p}/type`, o.type),
      version: str(`${p}/version`, o.version),
      size: bytes(`${p}/size`, o.size),
    }), ['owner', 'repo', 'name', 'type', 'version', 'size']),
  };
  return data;
}

function defined<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
