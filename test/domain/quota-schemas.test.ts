// The forge quota API shapes in schemas/quota: responses are exact (unknown members fail), request
// bodies follow the forge conventions (explicit null = absent, unknown members ignored), and limits
// outside ±(2^53−1) are refused rather than rounded.
import t from 'tap';
import { fileURLToPath } from 'node:url';
import { loadSchemaRegistry } from '../../src/schema-registry.ts';
import { usedFromPrimitives } from '../../src/domain/quota/usage.ts';
import { SUBJECTS } from '../../src/domain/quota/subjects.ts';

const registry = loadSchemaRegistry(fileURLToPath(new URL('../../schemas', import.meta.url)));
const MAX = Number.MAX_SAFE_INTEGER;
const used = usedFromPrimitives({ reposPublic: 2, reposPrivate: 3, gitLfs: 7, attachmentsIssues: 11, attachmentsReleases: 13, artifacts: 17, packagesAll: 19 });

// [schema, value, valid]
const cases: [string, unknown, boolean][] = [
  ['quota/rule.json', { name: 'r', limit: 1024, subjects: ['size:all'] }, true],
  ['quota/rule.json', { limit: -1 }, true],
  ['quota/rule.json', { name: 'r', limit: MAX }, true],
  ['quota/rule.json', { name: 'r', limit: -MAX }, true],
  ['quota/rule.json', { name: 'r', limit: MAX + 1 }, false],
  ['quota/rule.json', { name: 'r', limit: -MAX - 1 }, false],
  ['quota/rule.json', { name: 'r', limit: 1.5 }, false],
  ['quota/rule.json', { name: 'r' }, false],
  ['quota/rule.json', { name: 'r', limit: 1, subjects: [] }, false],
  ['quota/rule.json', { name: 'r', limit: 1, subjects: ['size:lfs'] }, false],
  ['quota/rule.json', { name: 'r', limit: 1, extra: true }, false],
  ['quota/group.json', { name: 'g', rules: [{ name: 'r', limit: 1, subjects: ['size:git:lfs'] }] }, true],
  ['quota/group.json', { rules: [] }, true],
  ['quota/group.json', { name: 'g' }, false],
  ['quota/group.json', { name: 'g', rules: [], extra: 1 }, false],
  ['quota/quota-info.json', { used, groups: [{ rules: [{ limit: 5, subjects: ['size:all'] }] }] }, true],
  ['quota/quota-info.json', { used: { size: { ...used.size, git: { lfs: 7 } } }, groups: [] }, false],
  ['quota/quota-info.json', { used, groups: [], extra: 1 }, false],
  ['quota/quota-info.json', { groups: [] }, false],
  ['quota/create-rule-options.json', { name: 'r', limit: 5, subjects: ['size:all'] }, true],
  ['quota/create-rule-options.json', { name: 'r', limit: 5, subjects: null }, true],
  ['quota/create-rule-options.json', { name: 'r', limit: -1, unknown: 'ignored by the forge' }, true],
  ['quota/create-rule-options.json', { name: 'r', limit: null }, false],
  ['quota/create-rule-options.json', { name: 'r' }, false],
  ['quota/create-rule-options.json', { name: 'r', limit: MAX + 1 }, false],
  ['quota/create-rule-options.json', { name: 'r', subjects: ['size:everything'] }, false],
  ['quota/create-rule-options.json', { limit: 5 }, false],
  ['quota/edit-rule-options.json', {}, true],
  ['quota/edit-rule-options.json', { limit: null, subjects: [] }, true],
  ['quota/edit-rule-options.json', { limit: -MAX - 1 }, false],
  ['quota/create-group-options.json', { name: 'g', rules: [{ name: 'r', limit: 1, subjects: ['size:all'] }], note: 'ignored' }, true],
  ['quota/create-group-options.json', { name: 'g', rules: null }, true],
  ['quota/create-group-options.json', { name: 'g' }, true],
  ['quota/create-group-options.json', { rules: [] }, false],
  ['quota/create-group-options.json', { name: 'g', rules: [{ name: 'r', subjects: ['size:repo'] }] }, false],
  ['quota/create-group-options.json', { name: 'g', rules: [{ name: 'r' }, { name: 's', limit: null, subjects: null }] }, true],
  ['quota/set-user-groups-options.json', { groups: [] }, true],
  ['quota/set-user-groups-options.json', { groups: ['a', 'b'], extra: 1 }, true],
  ['quota/set-user-groups-options.json', { groups: null }, false],
  ['quota/set-user-groups-options.json', {}, false],
  ['quota/set-user-groups-options.json', { groups: ['a', 'a'] }, false],
  ['quota/forge-error.json', { message: 'The target couldn\'t be found.', url: 'http://127.0.0.1:7337/api/swagger', errors: [] }, true],
  ['quota/forge-error.json', { message: 'm', url: 'u' }, true],
  ['quota/forge-error.json', { message: 'm' }, false],
  ['quota/forge-error.json', { message: 'm', url: 'u', code: 'x' }, false],
  ['quota/forge-data.json', { repos: [{ owner: 'a', name: 'b', size: 1 }], packages: [{ owner: 'a', repo: null, name: 'p', type: 't', version: '1', size: 0 }] }, true],
  ['quota/forge-data.json', { repos: [{ owner: 'a', name: 'b', size: -1 }] }, false],
  ['quota/forge-data.json', { users: [{ login: 'a/b' }] }, false],
];

t.test('quota API shapes', async (t) => {
  for (const [schema, value, valid] of cases) {
    t.equal(registry.validate(schema, value).length === 0, valid, `${schema} ${JSON.stringify(value)}`);
  }
});

t.test('the subject enum is the engine list', async (t) => {
  const rule = registry.schemas.get('https://schemas.gov.local/quota/rule.json') as { $defs: { subject: { enum: string[] } } };
  t.same(rule.$defs.subject.enum, [...SUBJECTS]);
});
