// GET /openapi.json: the golden document, the route table against what the Hono app really serves
// and what /health lists, a response schema per route, every schema file referenced by something,
// and validity under a real OpenAPI 3.1 validator.
// Update the golden file only on purpose: GOV_UPDATE_GOLDEN=1 npx tap test/server/openapi.test.ts
import t, { type Test } from 'tap';
import { validate, compileErrors } from '@readme/openapi-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { classifyKind, payloadSchemaOf } from '../../src/domain/event.ts';
import { testSchemas as schemaRegistry, testTemplates as templateRegistry } from '../fixtures/templates.ts';
import { TOOLS } from '../../src/frontdoor/tools/tool-table.ts';
import { SCHEMA_BASE } from '../../src/schema-registry.ts';
import { routeTable } from '../../src/server/create-app.ts';
import { buildOpenApi, isMediaType, mediaTypeOf } from '../../src/server/openapi.ts';
import { testApp } from '../fixtures/test-app.ts';

const GOLDEN = 'test/fixtures/openapi.golden.json';
const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'options', 'head'];

type Doc = ReturnType<typeof buildOpenApi>;
const operations = (doc: Doc) =>
  Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).filter(([m]) => METHODS.includes(m)).map(([m, op]) => ({ key: `${m.toUpperCase()} ${path}`, op: op as any })));

async function served(t: Test) {
  const { app, call } = await testApp(t);
  const res = await call('/openapi.json', { token: null, scope: null });
  t.equal(res.status, 200, 'served without a token');
  t.match(res.headers.get('content-type'), /^application\/json/);
  return { app, call, doc: res.json as Doc, text: res.text };
}

t.test('the served document equals the golden file', async (t) => {
  const { doc } = await served(t);
  const text = `${JSON.stringify(doc, null, 2)}\n`;
  if (process.env.GOV_UPDATE_GOLDEN === '1') writeFileSync(GOLDEN, text);
  t.equal(text, readFileSync(GOLDEN, 'utf8'), `${GOLDEN} is current (regenerate on purpose with GOV_UPDATE_GOLDEN=1)`);
  t.same(doc, buildOpenApi(routeTable(), schemaRegistry()), 'built from the route table and schemas/');
});

t.test('the document lists exactly the routes the app serves', async (t) => {
  const { app, doc } = await served(t);
  const servedRoutes = new Set(
    app.routes
      .filter((r) => r.method !== 'ALL' && !r.path.includes('*'))
      .map((r) => `${r.method} ${r.path.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, '{$1}')}`),
  );
  const documented = new Set(operations(doc).map((o) => o.key));
  t.same([...servedRoutes].filter((r) => !documented.has(r)).sort(), [], 'served but missing from the document');
  t.same([...documented].filter((r) => !servedRoutes.has(r)).sort(), [], 'documented but not served');
  t.ok(documented.size >= 20, `${documented.size} operations`);
});

t.test('/health and the document come from the same table', async (t) => {
  const { call, doc } = await served(t);
  const health = await call('/health', { token: null, scope: null });
  const fromTable = routeTable().map((r) => ({ method: r.method, path: r.path, status: r.status }));
  t.same(health.json.routes, fromTable, '/health lists the route table');
  const fromDoc = operations(doc).map(({ key, op }) => {
    const [method = '', path = ''] = key.split(' ');
    return { method, path, status: op['x-status-class'] };
  });
  const order = (l: { method: string; path: string }[]) => [...l].sort((a, b) => `${a.path} ${a.method}`.localeCompare(`${b.path} ${b.method}`));
  t.same(order(fromDoc), order(fromTable), 'the document has the same routes with the same status classes');
});

t.test('operations: success schemas, security, scope and idempotency headers, problem bodies', async (t) => {
  const doc = buildOpenApi(routeTable(), schemaRegistry());
  for (const route of routeTable()) {
    const key = `${route.method} ${route.path}`;
    // A success: a 2xx, or the 303 of a sign-in that leads on (GET /console/login).
    const success = Object.keys(route.responses).map(Number).filter((s) => (s >= 200 && s < 300) || s === 303).sort()[0];
    t.ok(success !== undefined, `${key} has a success status`);
    if (success !== 204 && success !== 303) t.ok(route.responses[success!] !== null, `${key} has a schema or media type for ${success}`);
    const op = (doc.paths[route.path] as any)[route.method.toLowerCase()];
    t.equal(op['x-status-class'], route.status, `${key} x-status-class`);
    for (const [status, schema] of Object.entries(route.responses)) {
      const content = op.responses[status].content;
      if (schema === null) t.equal(content, undefined, `${key} ${status} has no content`);
      else t.same(Object.keys(content), (typeof schema === 'string' ? [schema] : schema).map((one) => (isMediaType(one) ? one : mediaTypeOf(one))), `${key} ${status} media types`);
    }
    const headers = (op.parameters ?? []).map((p: any) => p.$ref ?? `${p.in}:${p.name}`);
    t.equal(headers.includes('#/components/parameters/TenantId'), route.scoped, `${key} scope headers iff scoped`);
    const pathParams = [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => `path:${m[1]}`);
    t.same(headers.filter((h: string) => h.startsWith('path:')), pathParams, `${key} path parameters`);
  }
  const events = (doc.paths['/v1/events'] as any).post;
  t.ok(events.parameters.some((p: any) => p.$ref === '#/components/parameters/IdempotencyKeyRequired'), 'Idempotency-Key required on POST /v1/events');
  t.equal((doc.components.parameters as any).IdempotencyKeyRequired.required, true);
  t.ok((doc.paths['/v1/tasks'] as any).post.parameters.some((p: any) => p.$ref === '#/components/parameters/IdempotencyKey'), 'optional on other POSTs');
  t.same((doc.paths['/health'] as any).get.security, [], '/health is public');
  t.same((doc.paths['/openapi.json'] as any).get.security, [], '/openapi.json is public');
  t.same((doc.paths['/v1/tasks'] as any).post.security, [{ customerToken: [] }], 'customer writes: customer token only');
  t.same((doc.paths['/v1/tasks/{task_id}'] as any).get.security, [{ customerToken: [] }, { operatorToken: [] }], 'reads: either token');
  t.same(Object.keys(doc.components.securitySchemes!).sort(), ['customerToken', 'operatorToken', 'sudo']);
});

t.test('query parameters: each route\'s declared ones, with their schemas, and no other', async (t) => {
  const doc = buildOpenApi(routeTable(), schemaRegistry());
  t.match(doc.info.description, /Query parameters an operation does not declare are ignored/);
  let count = 0;
  for (const route of routeTable()) {
    const op = (doc.paths[route.path] as any)[route.method.toLowerCase()];
    const listed = (op.parameters ?? []).filter((p: any) => p.in === 'query');
    const declared = Object.entries(route.query ?? {});
    t.same(listed.map((p: any) => [p.name, p.required]), declared.map(([name, p]) => [name, p.required === true]), `${route.method} ${route.path}: its declared query parameters`);
    for (const [i, [name, param]] of declared.entries()) {
      const schema = listed[i]?.schema;
      if ('$ref' in param.schema) t.equal(schema?.$ref, `#/components/schemas/${param.schema.$ref.replace('.json#', '').replace('/', '_')}`, `${route.path}?${name}: $ref into the components`);
      else t.same(schema, param.schema, `${route.path}?${name}: the declared schema`);
      t.ok(listed[i]?.description.startsWith(param.description), `${route.path}?${name}: the declared description`);
      count++;
    }
  }
  const names = (path: string) => (doc.paths[path] as any).get.parameters.filter((p: any) => p.in === 'query').map((p: any) => p.name);
  t.same(names('/v1/tasks/{task_id}/timeline'), ['after_seq', 'limit']);
  t.same(names('/v1/search'), ['q', 'kind', 'task_id', 'limit', 'cursor']);
  t.same(names('/user/quota/attachments'), ['page', 'limit', 'sudo']);
  t.same(names('/api/v1/user/repos'), ['order_by', 'page', 'limit', 'sudo']);
  t.same(names('/orgs/{org}/quota/check'), ['subject', 'sudo']);
  t.ok(count >= 50, `${count} query parameters listed`);
});

t.test('components: every schema, self-contained refs, same verdicts as the registry', async (t) => {
  const doc = buildOpenApi(routeTable(), schemaRegistry());
  const registry = schemaRegistry();
  t.equal(Object.keys(doc.components.schemas!).length, registry.schemas.size, 'one component per schema file');
  t.ok('api_task' in doc.components.schemas! && 'common_types' in doc.components.schemas!, 'named after the $id path');
  const refs = JSON.stringify(doc).match(/"\$ref":"[^"]*"/g) ?? [];
  const resolve = (pointer: string) => pointer.slice(2).split('/').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~')).reduce<any>((node, part) => node?.[part], doc);
  for (const ref of new Set(refs.map((r) => r.slice(8, -1)))) {
    t.ok(ref.startsWith('#/components/') && resolve(ref) !== undefined, `${ref} resolves inside the document`);
  }
  // The components compiled on their own (as a client would) agree with our registry.
  const ajv = new Ajv2020({ strict: false, logger: false });
  (addFormatsModule as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema({ $id: 'https://doc.test/openapi.json', components: doc.components });
  const task = { task_id: 'task-1', title: 'A task', status: 'open', session_ids: ['s-1'], created_at: '2026-11-01T10:00:00Z', last_seq: 1 };
  for (const value of [task, { ...task, colour: 'red' }, { ...task, task_id: '-bad id' }, { ...task, created_at: 'yesterday' }]) {
    const fn = ajv.getSchema('https://doc.test/openapi.json#/components/schemas/api_task')!;
    t.equal(fn(value), registry.validate('api/task.json', value).length === 0, `same verdict for ${JSON.stringify(value).slice(0, 60)}`);
  }
});

t.test('every schema file is referenced by something', async (t) => {
  const registry = schemaRegistry();
  const rel = (id: string) => id.slice(SCHEMA_BASE.length);
  const used = new Set<string>();
  for (const r of routeTable()) for (const s of [r.request, ...Object.values(r.responses).flat()]) if (s) used.add(s);
  for (const [id, schema] of registry.schemas) {
    for (const m of JSON.stringify(schema).matchAll(/"\$ref":"([^"#]+)/g)) {
      const target = new URL(m[1]!, id).href;
      if (target !== id) used.add(rel(target));
    }
  }
  for (const template of templateRegistry().list()) if (template.request_schema) used.add(template.request_schema);
  for (const tool of TOOLS) used.add(tool.schema);
  // Event payloads: every kind the source names that the catalogue knows maps to its payload schema.
  const source = listTs('src').map((f) => readFileSync(f, 'utf8')).join('\n');
  for (const m of source.matchAll(/'([a-z_]+(?:\.[a-z_]+)+)'/g)) {
    const schema = classifyKind(m[1]!) === 'unknown' ? null : payloadSchemaOf(m[1]!);
    if (schema && registry.has(schema)) used.add(schema);
  }
  // Anything else the code names by its id, e.g. the CLI's cli/preview-config.json.
  for (const id of registry.schemas.keys()) if (source.includes(`'${rel(id)}'`)) used.add(rel(id));
  const unreferenced = [...registry.schemas.keys()].map(rel).filter((r) => !used.has(r)).sort();
  t.same(unreferenced, [], 'unreferenced schemas');
});

t.test('the document passes an OpenAPI 3.1 validator, and a broken one does not', async (t) => {
  const doc = buildOpenApi(routeTable(), schemaRegistry());
  const result = await validate(structuredClone(doc) as any);
  t.ok(result.valid, result.valid ? 'valid OpenAPI 3.1' : compileErrors(result));
  t.same(result.warnings, []);
  const breakages: [string, (d: any) => void][] = [
    ['dangling schema ref', (d) => (d.paths['/health'].get.responses['200'].content['application/json'].schema = { $ref: '#/components/schemas/nope' })],
    ['path parameter not declared', (d) => d.paths['/v1/tasks/{task_id}'].get.parameters.shift()],
    ['info without title', (d) => delete d.info.title],
    ['response without description', (d) => delete d.paths['/health'].get.responses['200'].description],
  ];
  for (const [name, breakIt] of breakages) {
    const broken = structuredClone(doc) as any;
    breakIt(broken);
    t.notOk((await validate(broken)).valid, `rejected: ${name}`);
  }
});

function listTs(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? listTs(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}
