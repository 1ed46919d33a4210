// The quota projection is a pure fold of the log: after every kind of quota and forge event, a
// rebuilt index has identical quota tables and the routes give identical answers.
import t from 'tap';
import { indexPathOf } from '../../src/store/store.ts';
import { removeIndexFiles } from '../../src/store/index-db.ts';
import { quotaApp, type QuotaApp } from '../fixtures/quota-app.ts';
import { tempDir } from '../fixtures/test-app.ts';

const TABLES = ['quota_rules', 'quota_groups', 'quota_group_rules', 'quota_group_users', 'forge_data'];

function tables(app: QuotaApp): Record<string, unknown[]> {
  const db = app.service.store.index.db;
  return Object.fromEntries(TABLES.map((name) => [name, db.prepare(`SELECT * FROM ${name} ORDER BY 1, 2`).all()]));
}

const READS: [string, string | undefined][] = [
  ['/admin/quota/rules', undefined],
  ['/admin/quota/groups', undefined],
  ['/admin/quota/groups/team/users', undefined],
  ['/admin/users/alice/quota', undefined],
  ['/admin/users/bob/quota', undefined],
  ['/admin/users/acme-org/quota', undefined],
  ['/admin/forge/data', undefined],
  ['/user/quota', 'carol'],
  ['/user/quota/check?subject=size:all', 'bob'],
  ['/user/quota/check?subject=size:git:lfs', 'alice'],
  ['/orgs/acme-org/quota/attachments', 'alice'],
  ['/user/repos?order_by=size', 'bob'],
];

async function answers(app: QuotaApp): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const [path, sudo] of READS) {
    const res = await app.call(path, sudo === undefined ? {} : { sudo });
    out.push([path, res.status, res.text]);
  }
  return out;
}

t.test('a rebuild from the log gives identical tables and answers', async (t) => {
  const dataDir = tempDir(t);
  const app = await quotaApp(t, { dataDir, quota: { default_groups: ['basic'] } });
  const { call } = app;
  const writes: [string, string, unknown?][] = [
    ['POST', '/admin/quota/rules', { name: 'total-5m', limit: 5_000_000, subjects: ['size:all'] }],
    ['POST', '/admin/quota/groups', { name: 'basic', rules: [{ name: 'total-5m' }, { name: 'lfs-1m', limit: 1_048_576, subjects: ['size:git:lfs'] }] }],
    ['POST', '/admin/quota/groups', { name: 'team', rules: [{ name: 'team-total', limit: 10_000_000, subjects: ['size:all'] }] }],
    ['POST', '/admin/quota/groups', { name: 'doomed', rules: [{ name: 'doomed-rule', limit: 1 }] }],
    ['PATCH', '/admin/quota/rules/lfs-1m', { limit: 2_000_000 }],
    ['PUT', '/admin/quota/groups/team/users/alice'],
    ['PUT', '/admin/quota/groups/team/users/acme-org'],
    ['PUT', '/admin/quota/groups/doomed/users/carol'],
    ['PUT', '/admin/quota/groups/team/rules/total-5m'],
    ['DELETE', '/admin/quota/groups/team/rules/team-total'],
    ['POST', '/admin/users/bob/quota/groups', { groups: ['team', 'basic'] }],
    ['DELETE', '/admin/quota/groups/team/users/alice'],
    ['PUT', '/admin/quota/groups/team/users/alice'],
    ['DELETE', '/admin/quota/groups/doomed'],
    ['DELETE', '/admin/quota/rules/doomed-rule'],
    ['POST', '/admin/quota/rules', { name: 'doomed-rule', limit: 3 }],
  ];
  for (const [method, path, body] of writes) {
    const res = await call(path, { method, body });
    t.ok(res.status < 300, `${method} ${path} → ${res.status}`);
  }
  const data = (await call('/admin/forge/data')).json;
  data.repos.push({ owner: 'carol', name: 'extra', size: 1 });
  t.equal((await call('/admin/forge/data', { method: 'PUT', body: data })).status, 204);

  const kinds = new Set(app.eventsAfter(0).map((e) => e.kind));
  t.same([...kinds].sort(), [
    'forge.data.replaced', 'quota.group.created', 'quota.group.deleted', 'quota.group.rule_added', 'quota.group.rule_removed',
    'quota.group.user_added', 'quota.group.user_removed', 'quota.rule.created', 'quota.rule.deleted', 'quota.rule.edited', 'quota.user.groups_set',
  ], 'every quota and forge kind is exercised');
  // The index follows the log in the background: wait for it before reading its tables directly.
  await app.service.store.settled();
  const tablesBefore = tables(app);
  const answersBefore = await answers(app);
  t.ok(tablesBefore.quota_group_users!.length > 0 && tablesBefore.quota_group_rules!.length > 0, 'non-trivial state');
  await app.close();

  removeIndexFiles(indexPathOf(dataDir));
  const rebuilt = await quotaApp(t, { dataDir, quota: { default_groups: ['basic'] } });
  await rebuilt.service.store.settled();
  t.strictSame(tables(rebuilt), tablesBefore, 'identical tables');
  t.strictSame(await answers(rebuilt), answersBefore, 'identical answers, byte for byte');
});
