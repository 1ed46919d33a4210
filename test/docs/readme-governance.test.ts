// The README's governance walk-through is real: its sh block is run, command by command, against a
// served preview over HTTP (`printf … | sha256sum` and `date -u` are computed as the shell would). Each `curl -s "${H[@]}" $GOV/…` becomes the same request (the README's H
// array: the bearer token, JSON, the scope headers); `VAR=$(…)` keeps an answer, `$(echo "$VAR" |
// jq -r .a.b)` reads a member of one, and the `# → STATUS [code] [{…}]` line under a command is
// what it must answer: its status, its problem code, and every "member":value pair it shows.
import t from 'tap';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { serveApp } from '../fixtures/served-app.ts';
import { TOKENS } from '../fixtures/test-app.ts';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const H = { Authorization: `Bearer ${TOKENS.customer}`, 'Content-Type': 'application/json', 'X-Tenant-Id': 'acme', 'X-Workspace-Id': 'platform', 'X-Project-Id': 'billing' };

/** The sh block of the governance section. */
function walkthrough(): string[] {
  const section = readme.slice(readme.indexOf('## Governance: the AI use registry'));
  const block = /```sh\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error('README: the governance section has no sh block');
  return block[1]!.split('\n');
}

/** "member":value pairs of an expectation comment (strings, numbers, booleans; not … or nested objects). */
function shownPairs(comment: string): [string, unknown][] {
  return [...comment.matchAll(/"([a-z_]+)":("(?:[^"…\\]|\\.)*"|-?\d+(?:\.\d+)?|true|false|null)(?=[,}\]])/g)].map((m) => [m[1]!, JSON.parse(m[2]!)]);
}

/** Whether `value` holds `key` with `expected` at any depth. */
function holds(value: unknown, key: string, expected: unknown): boolean {
  if (Array.isArray(value)) return value.some((v) => holds(v, key, expected));
  if (value === null || typeof value !== 'object') return false;
  const obj = value as Record<string, unknown>;
  return (key in obj && JSON.stringify(obj[key]) === JSON.stringify(expected)) || Object.values(obj).some((v) => holds(v, key, expected));
}

t.test('the README governance walk-through answers what it shows', async (t) => {
  const { baseUrl } = await serveApp(t);
  const vars = new Map<string, string>();
  // $(echo "$VAR" | jq -r .a.b): a member of a kept answer.
  const members = (text: string) =>
    text.replace(/\$\(echo "\$([A-Z_]+)" \| jq -r \.([a-z_.]+)\)/g, (_m, name: string, path: string) => {
      const value = path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], JSON.parse(vars.get(name) ?? 'null'));
      if (typeof value !== 'string') throw new Error(`README: $${name} has no string .${path}`);
      return value;
    });
  // $(printf 'text' | sha256sum | cut -c1-64) and $(date -u +%Y-%m-%dT%H:%M:%SZ), as the shell computes them.
  const computed = (text: string) =>
    text
      .replace(/\$\(printf '([^']*)' \| sha256sum \| cut -c1-64\)/g, (_m, input: string) => createHash('sha256').update(input).digest('hex'))
      .replace(/\$\(date -u \+%Y-%m-%dT%H:%M:%SZ\)/g, () => `${new Date().toISOString().slice(0, 19)}Z`);
  const expand = (text: string) => text.replace(/\$([A-Z_]+)/g, (m, name: string) => (name === 'GOV' ? baseUrl : vars.get(name) ?? m));
  const lines = walkthrough();
  let last: { status: number; text: string } | null = null;
  let commands = 0;
  for (const line of lines) {
    const assign = /^([A-Z_]+)=\$\((.*)\)$/.exec(line);
    const jq = /^echo "\$([A-Z_]+)" \| jq -r \.([a-z_.]+)$/.exec(assign?.[2] ?? '');
    if (assign && jq) {
      vars.set(assign[1]!, members(`$(echo "$${jq[1]}" | jq -r .${jq[2]})`));
      continue;
    }
    const command = computed(members(assign ? assign[2]! : line));
    const curl = /^curl -s "\$\{H\[@\]\}" "?(\$GOV[^ "]*)"?(?: -d '(.*)')?$/.exec(command);
    if (curl) {
      commands++;
      const body = curl[2] === undefined ? undefined : expand(curl[2].replace(/'([^']*)'/g, '$1'));
      const res = await fetch(expand(curl[1]!), { method: body === undefined ? 'GET' : 'POST', headers: H, ...(body === undefined ? {} : { body }) });
      last = { status: res.status, text: await res.text() };
      if (assign) vars.set(assign[1]!, last.text);
      continue;
    }
    const expected = /^# → (\d{3})(?: ([a-z_]+))?(.*)$/.exec(line);
    if (expected) {
      t.ok(last, `an expectation follows a command: ${line}`);
      const [, status, code, rest] = expected;
      const json = JSON.parse(last!.text) as unknown;
      t.equal(last!.status, Number(status), `${line.slice(0, 80)} (got ${last!.text.slice(0, 300)})`);
      if (code !== undefined) t.equal((json as { code?: string }).code, code, `${status} ${code}`);
      for (const [key, value] of shownPairs(rest!)) t.ok(holds(json, key, value), `the answer shows "${key}":${JSON.stringify(value)}`);
      last = null;
      continue;
    }
    t.ok(line === '' || line.startsWith('# '), `a line the walk-through understands: ${line}`);
  }
  t.ok(commands >= 12, `${commands} commands ran`);
});
