// The current forge data set as the quota routes read it: owners by lower-cased login with stable
// numeric ids (their position in the data set), usage per owner, and each owner's items.
import type { Primitives } from '../../domain/quota/subjects.ts';
import { zeroPrimitives } from '../../domain/quota/subjects.ts';
import { userKey } from '../../domain/quota/quota-events.ts';
import { usageByOwner, type ForgeArtifact, type ForgeAttachment, type ForgeData, type ForgePackage, type ForgeRepo } from '../../domain/quota/usage.ts';

export type ForgeOwnerView = {
  id: number;
  login: string;
  kind: 'user' | 'org';
  full_name: string;
  is_admin: boolean;
  /** Lower-cased logins of an organisation's owners; empty for a user. */
  owners: string[];
};

/** An item with its 1-based position in its list (the forge would have a database id). */
export type Numbered<T> = { id: number; item: T };

export type ForgeState = {
  data: ForgeData;
  /** recorded_at of the forge.data.replaced event: the creation time shown for users. */
  loadedAt: string;
  owner(login: string): ForgeOwnerView | undefined;
  usage(login: string): Primitives;
  reposOf(login: string): Numbered<ForgeRepo>[];
  attachmentsOf(login: string): Numbered<ForgeAttachment>[];
  artifactsOf(login: string): Numbered<ForgeArtifact>[];
  packagesOf(login: string): Numbered<ForgePackage>[];
};

export const EMPTY_FORGE_DATA: ForgeData = {};

/** Builds the view of a validated data set. */
export function forgeState(data: ForgeData, loadedAt: string): ForgeState {
  const owners = new Map<string, ForgeOwnerView>();
  let id = 0;
  for (const u of data.users ?? []) {
    owners.set(userKey(u.login), { id: ++id, login: u.login, kind: 'user', full_name: u.full_name ?? '', is_admin: u.is_admin === true, owners: [] });
  }
  for (const o of data.orgs ?? []) {
    owners.set(userKey(o.login), { id: ++id, login: o.login, kind: 'org', full_name: '', is_admin: false, owners: o.owners.map(userKey) });
  }
  const usage = usageByOwner(data);
  const repoOwner = new Map<string, string>();
  for (const r of data.repos ?? []) repoOwner.set(userKey(`${r.owner}/${r.name}`), userKey(r.owner));
  // Everything counts against the repository's owner (docs/quota.md §1), so it is listed there too.
  const chargedTo = (repo: string | null | undefined, fallback: string) => (repo ? repoOwner.get(userKey(repo)) : userKey(fallback));
  const numbered = <T>(list: T[] | undefined) => (list ?? []).map((item, i) => ({ id: i + 1, item }));
  const repos = numbered(data.repos);
  const attachments = numbered(data.attachments);
  const artifacts = numbered(data.artifacts).filter((a) => a.item.expired !== true);
  const packages = numbered(data.packages);
  return {
    data,
    loadedAt,
    owner: (login) => owners.get(userKey(login)),
    usage: (login) => usage.get(userKey(login)) ?? zeroPrimitives(),
    reposOf: (login) => repos.filter((r) => userKey(r.item.owner) === userKey(login)),
    attachmentsOf: (login) => attachments.filter((a) => repoOwner.get(userKey(a.item.repo)) === userKey(login)),
    artifactsOf: (login) => artifacts.filter((a) => repoOwner.get(userKey(a.item.repo)) === userKey(login)),
    packagesOf: (login) => packages.filter((p) => chargedTo(p.item.repo, p.item.owner) === userKey(login)),
  };
}
