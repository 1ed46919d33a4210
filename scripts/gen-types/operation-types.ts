// The client's operation types, from the OpenAPI document the server serves (built from the route
// table): for each operation ('GET /v1/tasks/{task_id}') its path parameters, query, request body
// and the body of each response status, the bodies named by the types of schema-types.ts.
import { unescapePointer } from '../../src/domain/json-pointer.ts';
import type { OpenApiDocument } from '../../src/server/openapi.ts';
import { COMPONENT_PREFIX, componentName } from '../../src/server/openapi-components.ts';
import { SCHEMA_BASE } from '../../src/schema-registry.ts';

type Obj = { [key: string]: unknown };

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * The module source (unformatted) of `Operations`; `typeOfFile` names the type of each schema file
 * ('api/task.json' → 'Task'), `typesModule` is where the module imports them from.
 */
export function operationTypesSource(doc: OpenApiDocument, typeOfFile: ReadonlyMap<string, string>, typesModule: string): string {
  const typeOfComponent = new Map([...typeOfFile].map(([ref, name]) => [componentName(SCHEMA_BASE + ref), name]));
  const used = new Set<string>();
  const bodyType = (schema: unknown, where: string): string => {
    // A body named by media type (the console's page and assets) is text.
    if ((schema as Obj | undefined)?.type === 'string' && (schema as Obj).$ref === undefined) return 'string';
    const ref = (schema as Obj | undefined)?.$ref;
    const name = typeof ref === 'string' && ref.startsWith(COMPONENT_PREFIX) ? typeOfComponent.get(ref.slice(COMPONENT_PREFIX.length)) : undefined;
    if (name === undefined) throw new Error(`${where}: the body schema ${JSON.stringify(schema)} is not a schema file of schemas/ with a type.`);
    used.add(name);
    return name;
  };

  const entries: string[] = [];
  for (const [key, op] of operationsOf(doc)) {
    const params = parametersOf(doc, op);
    const member = (name: string, text: string) => `${JSON.stringify(name)}${text}`;
    const pathParams = params.filter((p) => p.in === 'path').map((p) => member(p.name, `: ${queryType(doc, p.schema, key)};`));
    const query = params.filter((p) => p.in === 'query').map((p) => member(p.name, `${p.required === true ? '' : '?'}: ${queryType(doc, p.schema, key)};`));
    const request = (op.requestBody as Obj | undefined)?.content as Obj | undefined;
    const body = request === undefined ? 'undefined' : bodyType((request['application/json'] as Obj | undefined)?.schema, `${key} request`);
    const responses = Object.entries((op.responses ?? {}) as Obj)
      .sort(([a], [b]) => Number(a) - Number(b))
      .map(([status, answer]) => {
        const content = (answer as Obj).content as Obj | undefined;
        const types = content === undefined ? ['null'] : Object.values(content).map((media) => bodyType((media as Obj).schema, `${key} ${status}`));
        return `${status}: ${[...new Set(types)].join(' | ')};`;
      });
    const summary = typeof op.summary === 'string' ? `/** ${op.summary.replace(/\*\//g, '*\\/')} */\n` : '';
    entries.push(
      `${summary}${JSON.stringify(key)}: {\n` +
        `params: ${pathParams.length > 0 ? `{ ${pathParams.join(' ')} }` : 'undefined'};\n` +
        `query: ${query.length > 0 ? `{ ${query.join(' ')} }` : 'undefined'};\n` +
        `body: ${body};\n` +
        `responses: { ${responses.join(' ')} };\n` +
        `};`,
    );
  }
  const imports = [...used].sort();
  return [
    `import type { ${imports.join(', ')} } from '${typesModule}';`,
    '',
    '/**',
    ' * Every operation of the OpenAPI document (GET /openapi.json), by method and path: its path parameters, its',
    ' * query (what the route reads; it ignores any other), its request body and the body of each status it',
    ' * declares (null: no body). `undefined` where the operation has none.',
    ' */',
    `export type Operations = {\n${entries.join('\n')}\n};`,
    '',
    '/** An operation: its method and path as the document lists them. */',
    'export type OperationKey = keyof Operations;',
    '',
  ].join('\n');
}

/** The operations sorted by path, then method: the order of the route table does not matter. */
function operationsOf(doc: OpenApiDocument): [string, Obj][] {
  const out: [string, Obj][] = [];
  for (const path of Object.keys(doc.paths).sort()) {
    const item = doc.paths[path]!;
    for (const method of METHODS) {
      const op = item[method];
      if (op !== undefined) out.push([`${method.toUpperCase()} ${path}`, op as Obj]);
    }
  }
  return out;
}

type Parameter = { name: string; in: string; required?: boolean; schema?: unknown };

/** The operation's parameters, each `#/components/parameters/…` ref resolved. */
function parametersOf(doc: OpenApiDocument, op: Obj): Parameter[] {
  return ((op.parameters ?? []) as Obj[]).map((p) => (typeof p.$ref === 'string' ? (resolve(doc, p.$ref) as Parameter) : (p as Parameter)));
}

/** A path or query parameter's type: a string, a number or a list of literals (the client sends each as text). */
function queryType(doc: OpenApiDocument, schema: unknown, where: string): string {
  const s = (typeof (schema as Obj | undefined)?.$ref === 'string' ? resolve(doc, (schema as Obj).$ref as string) : schema) as Obj | undefined;
  if (Array.isArray(s?.enum)) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (s?.type === 'string') return 'string';
  if (s?.type === 'integer' || s?.type === 'number') return 'number';
  if (s?.type === 'boolean') return 'boolean';
  throw new Error(`${where}: a parameter schema ${JSON.stringify(schema)} is not a string, a number, a boolean or an enum.`);
}

/** A local ref of the document (`#/components/schemas/common_types/$defs/id`). */
function resolve(doc: OpenApiDocument, ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`The OpenAPI document refers outside itself: ${ref}`);
  let node: unknown = doc;
  for (const token of ref.slice(2).split('/')) {
    node = node !== null && typeof node === 'object' ? (node as Obj)[unescapePointer(token)] : undefined;
    if (node === undefined) throw new Error(`The OpenAPI document's ref ${ref} points at nothing.`);
  }
  return node;
}
