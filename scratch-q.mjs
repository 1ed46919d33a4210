import { writeFileSync, mkdirSync } from 'node:fs';
const OWNERS = Number(process.argv[2] ?? 10000), GROUPS = 50, RPG = 20;
const SUBJECTS = ['size:all', 'size:repos:all', 'size:repos:public', 'size:repos:private', 'size:git:all', 'size:git:lfs', 'size:assets:all', 'size:assets:attachments:all', 'size:assets:attachments:issues', 'size:assets:attachments:releases', 'size:assets:artifacts', 'size:assets:packages:all'];
const rules = Array.from({ length: GROUPS * RPG }, (_, i) => ({ name: `rule-${i}`, limit: 1_000_000 + i * 1_000, subjects: [SUBJECTS[i % 12], SUBJECTS[(i * 7) % 12]] }));
const groups = Array.from({ length: GROUPS }, (_, g) => ({ name: `group-${g}`, rules: rules.slice(g * RPG, (g + 1) * RPG).map((r) => r.name) }));
const assignments = {}, usage = {};
for (let o = 0; o < OWNERS; o++) { assignments[`owner-${o}`] = [`group-${o % GROUPS}`, `group-${(o + 1 + ((o * 13) % (GROUPS - 1))) % GROUPS}`]; const n = (o * 7919) % 900000; usage[`owner-${o}`] = { size: { repos: { public: n, private: n >> 1 }, git: { LFS: n >> 2 }, assets: { attachments: { issues: n >> 3, releases: n >> 4 }, artifacts: n >> 5, packages: { all: n >> 6 } } } }; }
mkdirSync('/tmp/qb', { recursive: true });
writeFileSync('/tmp/qb/policy.json', JSON.stringify({ rules, groups, assignments, default_groups: [], default_total: -1 }));
writeFileSync('/tmp/qb/usage.json', JSON.stringify(usage));
