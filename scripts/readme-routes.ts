// The README's route tables, generated from the route declarations (src/server/route-table.ts)
// between marker comments: `npm run gen:readme` rewrites them, and test/docs/readme.test.ts fails
// when the README differs from what this prints.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { routeTable } from '../src/server/route-table.ts';
import type { RouteSpec } from '../src/server/route-spec.ts';
import { FORGE_API_PREFIX } from '../src/server/routes/quota.ts';

export const README = fileURLToPath(new URL('../README.md', import.meta.url));

/** The two tables: the governance API and the forge quota family (bare paths; each is also under /api/v1). */
export function routeTables(routes: readonly RouteSpec[] = routeTable()): Record<'api' | 'forge', string> {
  const rows = (list: readonly RouteSpec[]) =>
    ['| method | path | class | notes |', '|---|---|---|---|', ...list.map((r) => `| ${r.method} | \`${r.path}\` | ${r.status} | ${(r.readme ?? r.summary).replace(/\|/g, '\\|')} |`)].join('\n');
  return {
    api: rows(routes.filter((r) => r.forge === undefined)),
    forge: rows(routes.filter((r) => r.forge !== undefined && !r.path.startsWith(`${FORGE_API_PREFIX}/`))),
  };
}

const marker = (name: string) => new RegExp(`(<!-- routes:${name} [^>]*-->\\n)[\\s\\S]*?(\\n<!-- /routes:${name} -->)`);

/** The README with its tables replaced by the generated ones (throws when a marker is missing). */
export function withRouteTables(readme: string, tables = routeTables()): string {
  let text = readme;
  for (const [name, table] of Object.entries(tables)) {
    if (!marker(name).test(text)) throw new Error(`README.md has no <!-- routes:${name} … --> … <!-- /routes:${name} --> markers.`);
    text = text.replace(marker(name), (_m, open: string, close: string) => `${open}${table}${close}`);
  }
  return text;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const before = readFileSync(README, 'utf8');
  const after = withRouteTables(before);
  if (after !== before) writeFileSync(README, after);
  process.stdout.write(after === before ? 'README.md route tables are current.\n' : 'README.md route tables rewritten.\n');
}
