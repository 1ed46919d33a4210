// The README stays true: its first screen shows the two commands a newcomer needs, its route table
// lists exactly the routes the server mounts with their classes, and every CLI command it names exists.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { routeTable } from '../../src/server/create-app.ts';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

t.test('the first screen shows install + start and the test command', async (t) => {
  const firstScreen = readme.split('\n').slice(0, 12).join('\n');
  t.match(firstScreen, 'npm ci && npx gov preview start');
  t.match(firstScreen, 'npm test');
});

t.test('the route tables list exactly the mounted routes, with their classes', async (t) => {
  const rows = [...readme.matchAll(/^\| (GET|POST|PUT|PATCH|DELETE|OPTIONS) \| `([^`]+)` \| (\w+) \|/gm)];
  const documented = new Set(rows.map((m) => `${m[1]} ${m[2]}`));
  const mounted = routeTable().filter((r) => !r.path.startsWith('/api/v1/'));
  const served = new Set(mounted.map((r) => `${r.method} ${r.path}`));
  t.same([...served].filter((r) => !documented.has(r)), [], 'every served route is in the README');
  t.same([...documented].filter((r) => !served.has(r)), [], 'the README lists no route that is not served');
  const classOf = new Map(mounted.map((r) => [`${r.method} ${r.path}`, r.status]));
  t.same(rows.filter((m) => classOf.get(`${m[1]} ${m[2]}`) !== m[3]).map((m) => `${m[1]} ${m[2]}: README ${m[3]}, served ${classOf.get(`${m[1]} ${m[2]}`)}`), [], 'the class column is the served class');
});
