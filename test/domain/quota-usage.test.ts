// The forge data set: reference checks (each negative case breaks one field of the valid fixture),
// usage counted against the repository owner, and Forgejo's `used` shape to and from primitives.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { AppError } from '../../src/errors.ts';
import { zeroPrimitives, type Primitives } from '../../src/domain/quota/subjects.ts';
import { ownersOf, primitivesFromUsed, usageByOwner, usedFromPrimitives, validateForgeData, type ForgeData } from '../../src/domain/quota/usage.ts';

const FIXTURE = new URL('../../fixtures/forge/default.json', import.meta.url);
const load = (): ForgeData => JSON.parse(readFileSync(FIXTURE, 'utf8')) as ForgeData;

t.test('the default fixture is consistent', async (t) => {
  t.doesNotThrow(() => validateForgeData(load()));
  t.doesNotThrow(() => validateForgeData({}), 'every list is optional');
});

const broken: [string, (d: ForgeData) => void, string, string][] = [
  ['repo of an unknown owner', (d) => (d.repos![0]!.owner = 'mallory'), '/repos/0/owner', 'mallory'],
  ['attachment on an unknown repository', (d) => (d.attachments![1]!.repo = 'acme-org/nope'), '/attachments/1/repo', 'acme-org/nope'],
  ['artifact on an unknown repository', (d) => (d.artifacts![0]!.repo = 'ghost/app'), '/artifacts/0/repo', 'ghost/app'],
  ['package of an unknown owner', (d) => (d.packages![1]!.owner = 'ghost'), '/packages/1/owner', 'ghost'],
  ['package on an unknown repository', (d) => (d.packages![0]!.repo = 'alice/gone'), '/packages/0/repo', 'alice/gone'],
  ['package on a repository of another owner', (d) => (d.packages![0]!.repo = 'bob/site'), '/packages/0/repo', 'bob/site'],
  ['organisation owned by an unknown user', (d) => (d.orgs![0]!.owners = ['alice', 'zed']), '/orgs/0/owners/1', 'zed'],
  ['organisation owned by an organisation', (d) => d.orgs!.push({ login: 'sub-org', owners: ['acme-org'] }), '/orgs/1/owners/0', 'acme-org'],
  ['duplicate user login, other case', (d) => d.users!.push({ login: 'ALICE' }), '/users/4/login', 'ALICE'],
  ['organisation login equal to a user login', (d) => (d.orgs![0]!.login = 'Bob'), '/orgs/0/login', 'Bob'],
  ['duplicate repository, other case', (d) => d.repos!.push({ owner: 'Alice', name: 'APP', size: 1 }), '/repos/7/name', 'Alice/APP'],
];

t.test('inconsistent data is refused with forge_data_invalid naming the reference', async (t) => {
  for (const [name, breakIt, pointer, named] of broken) {
    const data = load();
    breakIt(data);
    try {
      validateForgeData(data);
      t.fail(`${name}: accepted`);
    } catch (err) {
      t.ok(err instanceof AppError, name);
      const e = err as AppError;
      t.equal(e.code, 'forge_data_invalid', `${name}: code`);
      t.equal(e.details?.[0]?.pointer, pointer, `${name}: pointer`);
      t.match(e.message, named, `${name}: names ${named}`);
    }
  }
});

t.test('every problem is listed', async (t) => {
  const data = load();
  data.repos![4]!.owner = 'ghost'; // carol/dotfiles: nothing refers to it
  data.packages![2]!.owner = 'ghost2';
  t.throws(() => validateForgeData(data), { code: 'forge_data_invalid' });
  try {
    validateForgeData(data);
  } catch (err) {
    t.same((err as AppError).details!.map((d) => d.pointer), ['/repos/4/owner', '/packages/2/owner']);
  }
});

t.test('names compare case-insensitively', async (t) => {
  const data: ForgeData = {
    users: [{ login: 'Alice' }],
    repos: [{ owner: 'ALICE', name: 'App', size: 10, private: true }],
    attachments: [{ repo: 'alice/app', kind: 'release', name: 'x', size: 3 }],
    packages: [{ owner: 'alice', repo: 'Alice/APP', name: 'p', type: 'npm', version: '1', size: 4 }],
  };
  t.doesNotThrow(() => validateForgeData(data));
  t.same([...usageByOwner(data)], [['alice', { ...zeroPrimitives(), reposPrivate: 10, attachmentsReleases: 3, packagesAll: 4 }]]);
  t.same([...ownersOf(data)], [['alice', { login: 'Alice', kind: 'user' }]]);
});

t.test('usage of the default fixture, per owner', async (t) => {
  const p = (v: Partial<Primitives>): Primitives => ({ ...zeroPrimitives(), ...v });
  t.strictSame(
    Object.fromEntries(usageByOwner(load())),
    {
      'forge-admin': p({}),
      alice: p({ reposPublic: 1048576, reposPrivate: 262144, attachmentsIssues: 2048, artifacts: 4096, packagesAll: 512 }),
      bob: p({ reposPublic: 524288, reposPrivate: 131072, gitLfs: 2097152, attachmentsReleases: 65536, packagesAll: 8192 }),
      carol: p({ reposPublic: 16384 }),
      // The organisation is charged for its repositories, attachments, artifacts and its repo-less package.
      'acme-org': p({
        reposPublic: 65536,
        reposPrivate: 3145728,
        gitLfs: 1048576,
        attachmentsIssues: 40960,
        attachmentsReleases: 1048576,
        artifacts: 262144,
        packagesAll: 524288,
      }),
    },
    'expired build-41 (4096) is not counted for alice',
  );
});

t.test('used shape and primitives convert both ways with Forgejo keys', async (t) => {
  const p: Primitives = { reposPublic: 2, reposPrivate: 3, gitLfs: 7, attachmentsIssues: 11, attachmentsReleases: 13, artifacts: 17, packagesAll: 19 };
  const used = usedFromPrimitives(p);
  t.strictSame(used, {
    size: {
      repos: { public: 2, private: 3 },
      git: { LFS: 7 },
      assets: { attachments: { issues: 11, releases: 13 }, artifacts: 17, packages: { all: 19 } },
    },
  });
  t.strictSame(primitivesFromUsed(used), p);
});
