// Quota evaluation: `gov quota eval` over 10,000 owners against 50 groups of 20 rules (every
// subject), and the latency of GET /user/quota/check on a running preview with that policy.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { httpClient, timeSequential } from '../http-load.ts';
import { GOV_BIN, runNode, startPreview } from '../processes.ts';
import type { BenchContext, Row, Section } from '../section.ts';

const OWNERS = 10_000;
const GROUPS = 50;
const RULES_PER_GROUP = 20;
const SUBJECTS = ['size:all', 'size:repos:all', 'size:repos:public', 'size:repos:private', 'size:git:all', 'size:git:lfs', 'size:assets:all',
  'size:assets:attachments:all', 'size:assets:attachments:issues', 'size:assets:attachments:releases', 'size:assets:artifacts', 'size:assets:packages:all'];

export const quotaSection: Section = {
  name: 'quota',
  describe: 'gov quota eval: 10,000 owners × 50 groups of 20 rules; GET /user/quota/check latency',
  async run(ctx: BenchContext): Promise<Row[]> {
    const dir = ctx.newDir('quota');
    const rules = Array.from({ length: GROUPS * RULES_PER_GROUP }, (_, i) => ({ name: `rule-${i}`, limit: 1_000_000 + i * 1_000, subjects: [SUBJECTS[i % SUBJECTS.length]!, SUBJECTS[(i * 7) % SUBJECTS.length]!] }));
    const groups = Array.from({ length: GROUPS }, (_, g) => ({ name: `group-${g}`, rules: rules.slice(g * RULES_PER_GROUP, (g + 1) * RULES_PER_GROUP).map((r) => r.name) }));
    const assignments: Record<string, string[]> = {};
    const usage: Record<string, unknown> = {};
    for (let o = 0; o < OWNERS; o++) {
      // Two distinct groups per owner (the second is 1–49 groups past the first).
      assignments[`owner-${o}`] = [`group-${o % GROUPS}`, `group-${(o + 1 + ((o * 13) % (GROUPS - 1))) % GROUPS}`];
      const n = (o * 7919) % 900_000;
      usage[`owner-${o}`] = { size: { repos: { public: n, private: n >> 1 }, git: { LFS: n >> 2 }, assets: { attachments: { issues: n >> 3, releases: n >> 4 }, artifacts: n >> 5, packages: { all: n >> 6 } } } };
    }
    writeFileSync(join(dir, 'policy.json'), JSON.stringify({ rules, groups, assignments, default_groups: [], default_total: -1 }));
    writeFileSync(join(dir, 'usage.json'), JSON.stringify(usage));
    ctx.progress(`quota: gov quota eval over ${OWNERS.toLocaleString('en')} owners`);
    const evalRun = await runNode([GOV_BIN, 'quota', 'eval', '--groups', join(dir, 'policy.json'), '--usage', join(dir, 'usage.json'), '--json']);
    if (evalRun.code !== 0 && evalRun.code !== 1) throw new Error(`gov quota eval exited ${evalRun.code}: ${evalRun.stderr.slice(0, 400)}`);
    const evaluated = (JSON.parse(evalRun.stdout) as { owners: unknown[] }).owners.length;

    ctx.progress('quota: /user/quota/check on a preview with 50 groups of 20 rules');
    const preview = await startPreview(ctx.newDir('quota-preview'));
    const client = httpClient(preview.baseUrl, 4);
    const op = { Authorization: `Bearer ${preview.tokens!.operator}`, 'Content-Type': 'application/json' };
    try {
      for (const group of groups.slice(0, GROUPS)) {
        const body = { name: group.name, rules: group.rules.map((name) => rules.find((r) => r.name === name)!) };
        const res = await client.send({ path: '/admin/quota/groups', headers: op, body: JSON.stringify(body) });
        if (res.status !== 201) throw new Error(`POST /admin/quota/groups answered ${res.status}: ${res.body.slice(0, 300)}`);
      }
      const assign = await client.send({ path: '/admin/users/alice/quota/groups', headers: op, body: JSON.stringify({ groups: groups.slice(0, 10).map((g) => g.name) }) });
      if (assign.status !== 204) throw new Error(`assigning groups answered ${assign.status}: ${assign.body.slice(0, 300)}`);
      const check = await timeSequential(client, 300, (i) => ({ method: 'GET', path: `/user/quota/check?subject=${SUBJECTS[i % SUBJECTS.length]}`, headers: { ...op, Sudo: 'alice' } }));
      return [
        { id: 'quota.eval.wall', figure: `gov quota eval, ${evaluated.toLocaleString('en')} owners × all subjects, wall incl. process start`, value: evalRun.ms, unit: 'ms', target: { op: '<', value: 1000, text: '< 1 s' } },
        { id: 'quota.check.p50', figure: 'GET /user/quota/check p50 (10 groups × 20 rules assigned)', value: check.p50Ms, unit: 'ms', target: { op: '<', value: 2, text: '< 2 ms' } },
        { id: 'quota.check.p99', figure: 'GET /user/quota/check p99', value: check.p99Ms, unit: 'ms' },
      ];
    } finally {
      client.close();
      await preview.stop();
    }
  },
};
