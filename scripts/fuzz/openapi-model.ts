// The operations of a served OpenAPI 3.1 document — method, path, parameters, request body schema,
// security — with every $ref resolved through the document itself: what the fuzzer generates from.
// Query parameters the document does not declare yet are added from KNOWN_QUERY, marked undeclared.

export type Schema = { [key: string]: unknown } | boolean;
export type OpenApiDoc = { paths: Record<string, Record<string, unknown>>; components?: Record<string, unknown> };

export type Param = {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: Schema;
  /** False for a query parameter the fuzzer knows the route reads but the document does not list. */
  declared: boolean;
};

/** Which error body a route answers: RFC 9457 problems under /v1 (and the public routes), Forgejo's {message, url} on the forge routes. */
export type Family = 'v1' | 'forge';

export type Operation = {
  key: string;
  method: string;
  path: string;
  family: Family;
  params: Param[];
  body: Schema | null;
  /** Security schemes of the first alternative (customerToken, operatorToken, sudo), [] for none. */
  security: string[];
  /** Every scheme any alternative names: a route open to both tokens lists both. */
  tokens: ('customer' | 'operator')[];
  statuses: string[];
};

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

const int = (minimum: number, maximum?: number): Schema => ({ type: 'integer', minimum, ...(maximum === undefined ? {} : { maximum }) });
const SUBJECTS = { type: 'string', enum: ['size:all', 'size:repos:all', 'size:git:lfs', 'size:assets:attachments:all', 'size:assets:artifacts', 'size:assets:packages:all', 'size:wiki'] };
const PAGING: [string, Schema, boolean?][] = [['page', int(1)], ['limit', int(1, 50)]];

/** Query parameters the routes read (README's route table), by path suffix, for a document that does not declare them. */
const KNOWN_QUERY: [RegExp, [string, Schema, boolean?][]][] = [
  [/^\/v1\/tasks\/\{task_id\}\/timeline$/, [['after_seq', int(0)], ['limit', int(1, 1000)]]],
  // Search needs q or kind; q counts as required here so that valid requests have one.
  [/^\/v1\/search$/, [['q', { type: 'string', minLength: 1, maxLength: 256 }, true], ['kind', { type: 'string', pattern: '^[a-z][a-z0-9_]*(\\.[a-z0-9_]+)+$' }], ['task_id', { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]*$', minLength: 2, maxLength: 128 }], ['limit', int(1, 100)], ['cursor', { type: 'string', pattern: '^[1-9][0-9]{0,5}$' }]]],
  [/\/quota\/check$/, [['subject', SUBJECTS, true]]],
  [/\/quota\/(attachments|artifacts|packages)$/, PAGING],
  [/\/user\/repos$/, [...PAGING, ['order_by', { type: 'string', enum: ['size', 'reversesize', 'alphabetically', 'id'] }]]],
];

export function resolvePointer(doc: unknown, ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`only local $refs are supported, not ${ref}`);
  let node: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !(key in node)) throw new Error(`$ref ${ref} does not resolve (at ${key})`);
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** Follows $ref chains at the top of a node; sibling keywords of a $ref are kept beside the target's. */
export function deref<T>(doc: unknown, node: T): T {
  let current = node as unknown;
  for (let hops = 0; current !== null && typeof current === 'object' && typeof (current as { $ref?: unknown }).$ref === 'string'; hops++) {
    if (hops > 32) throw new Error('a $ref cycle without content');
    const { $ref, ...siblings } = current as { $ref: string };
    const target = resolvePointer(doc, $ref);
    current = typeof target === 'object' && target !== null ? { ...siblings, ...(target as object) } : target;
  }
  return current as T;
}

/**
 * The forge's routes (docs/quota.md) answer errors in the forge's {message, url} shape, every other
 * route with a problem: the document says which, as each error response's schema.
 */
export function familyOf(responses: Record<string, unknown> | undefined): Family {
  return Object.entries(responses ?? {}).some(([status, answer]) => Number(status) >= 400 && JSON.stringify(answer).includes('forge_error')) ? 'forge' : 'v1';
}

export function operationsOf(doc: OpenApiDoc): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    const shared = (item.parameters as unknown[] | undefined) ?? [];
    for (const [method, rawOp] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      const op = rawOp as { parameters?: unknown[]; requestBody?: unknown; security?: Record<string, unknown>[]; responses?: Record<string, unknown> };
      const params: Param[] = [...shared, ...(op.parameters ?? [])].map((p) => {
        const param = deref(doc, p) as { name: string; in: Param['in']; required?: boolean; schema?: Schema };
        return { name: param.name, in: param.in, required: param.required === true, schema: param.schema ?? true, declared: true };
      });
      for (const [pattern, known] of KNOWN_QUERY) {
        if (!pattern.test(path)) continue;
        for (const [name, schema, required] of known) {
          if (!params.some((p) => p.in === 'query' && p.name === name)) params.push({ name, in: 'query', required: required === true, schema, declared: false });
        }
      }
      const requestBody = op.requestBody === undefined ? null : (deref(doc, op.requestBody) as { content?: Record<string, { schema?: Schema }> });
      const body = requestBody?.content?.['application/json']?.schema ?? null;
      const alternatives = op.security ?? [];
      const schemes = alternatives.flatMap((alt) => Object.keys(alt));
      const tokens = (['customer', 'operator'] as const).filter((t) => schemes.includes(`${t}Token`));
      ops.push({
        key: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        family: familyOf(op.responses),
        params,
        body,
        security: Object.keys(alternatives[0] ?? {}),
        tokens,
        statuses: Object.keys(op.responses ?? {}),
      });
    }
  }
  return ops;
}
