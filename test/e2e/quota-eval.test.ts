// `gov quota eval` end to end through the real binary on fixtures/quota: exit 0 when every standing
// holds, 1 when an owner is over quota, 2 on a bad file (naming path, pointer, line and column) or
// a usage error.
import t from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runGov } from '../fixtures/spawn-preview.ts';
import { tempDir } from '../fixtures/test-app.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const POLICY = 'fixtures/quota/policy.json';
const USAGE = 'fixtures/quota/usage.json';
const eval_ = (...args: string[]) => runGov(['quota', 'eval', ...args], { cwd: root });

t.test('exit 1 when an owner is over quota, with the deciding group and rule in the text', async (t) => {
  const res = await eval_('--groups', POLICY, '--usage', USAGE, '--app-ini', 'fixtures/quota/app.ini');
  t.equal(res.code, 1, res.stderr);
  t.match(res.stdout, /bob \(owner\): NOT WITHIN QUOTA — groups: small \[assigned\]/);
  t.match(res.stdout, /\(overall\)\s+OVER\s+small\s+total-1mib\s+2826240\s+1048576/);
  t.equal(res.stderr, '');
});

t.test('exit 0 when every evaluated standing holds; --json prints one document', async (t) => {
  const res = await eval_('--groups', POLICY, '--usage', USAGE, '--user', 'ALICE', '--json');
  t.equal(res.code, 0, res.stderr);
  const doc = JSON.parse(res.stdout);
  t.equal(doc.within, true);
  t.same(doc.owners.map((o: any) => [o.owner, o.group_source, o.group_list]), [['alice', 'default_groups', ['basic']]]);
  const wiki = await eval_('--groups', POLICY, '--usage', USAGE, '--user', 'alice', '--subject', 'size:wiki', '--json');
  t.equal(wiki.code, 0, 'a wiki check always holds, and alice is within quota overall');
  const bobWiki = await eval_('--groups', POLICY, '--usage', USAGE, '--user', 'bob', '--subject', 'size:wiki', '--json');
  t.equal(bobWiki.code, 1, 'bob: the wiki check holds, but his overall standing (evaluated with --subject too) does not');
  t.same(JSON.parse(bobWiki.stdout).owners.map((o: any) => [o.overall.within, o.subjects[0].within]), [[false, true]]);
  t.equal(JSON.parse(wiki.stdout).subject, 'size:wiki');
  const forge = await eval_('--groups', POLICY, '--usage', 'fixtures/forge/default.json', '--user', 'carol', '--default-groups', 'small');
  t.equal(forge.code, 0, forge.stderr);
  t.match(forge.stdout, /carol \(user\): within quota — groups: small \[default groups\]/);
});

t.test('exit 2: a bad file names its path, pointer, line and column; usage errors', async (t) => {
  const dir = tempDir(t);
  const broken = join(dir, 'policy.json');
  writeFileSync(broken, '{\n  "rules": [\n    {"name": "r", "limit": 1, "subjects": ["size:everything"]}\n  ]\n}\n');
  const bad = await eval_('--groups', broken, '--usage', USAGE);
  t.equal(bad.code, 2);
  t.match(bad.stderr, new RegExp(`${broken.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: /rules/0/subjects/0 \\(line 3, column 44\\): unrecognised subject "size:everything"`));
  t.equal(bad.stdout, '');
  const cases: [string, string[]][] = [
    ['missing --groups', ['--usage', USAGE]],
    ['missing --usage', ['--groups', POLICY]],
    ['unreadable file', ['--groups', join(dir, 'nope.json'), '--usage', USAGE]],
    ['unrecognised --subject', ['--groups', POLICY, '--usage', USAGE, '--subject', 'size:lfs']],
    ['not JSON', ['--groups', POLICY, '--usage', 'fixtures/quota/app.ini']],
  ];
  for (const [what, args] of cases) {
    const res = await eval_(...args);
    t.equal(res.code, 2, `${what}: ${res.stderr}`);
    t.equal(res.stdout, '', `${what}: nothing on stdout`);
  }
  const help = await eval_('--help');
  t.equal(help.code, 0);
  t.match(help.stdout, /--default-groups <a,b>/);
  t.match(help.stdout, /Examples:/);
});
