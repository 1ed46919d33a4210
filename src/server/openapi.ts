// The OpenAPI 3.1 document of the API, generated from the route table and the JSON Schemas of
// schemas/ (never written by hand): operations, security, scope and idempotency headers, path and
// query parameters, every response status with its body schema, and each route's status class.
import { STATUS_CODES } from 'node:http';
import type { SchemaRegistry } from '../schema-registry.ts';
import { componentRef, schemaComponents } from './openapi-components.ts';
import type { QueryParam } from './query-params.ts';
import type { RouteSpec } from './route-spec.ts';
import { RELEASE_LABEL } from '../version.ts';

export type OpenApiDocument = {
  openapi: '3.1.0';
  jsonSchemaDialect: string;
  info: { title: string; version: string; description: string };
  servers: { url: string; description: string }[];
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, Record<string, unknown>>;
};

const PROBLEM_SCHEMA = 'api/problem.json';
const ID_SCHEMA = 'common/types.json';
const SCOPE_PARAMS = [['TenantId', 'X-Tenant-Id', 'tenant'], ['WorkspaceId', 'X-Workspace-Id', 'workspace'], ['ProjectId', 'X-Project-Id', 'project']] as const;

export function buildOpenApi(routes: readonly RouteSpec[], registry: SchemaRegistry, version: string = RELEASE_LABEL): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const route of routes) {
    const item = (paths[route.path] ??= {});
    const method = route.method.toLowerCase();
    if (item[method]) throw new Error(`The route table lists ${route.method} ${route.path} twice.`);
    item[method] = operation(route, registry);
  }
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'gov API',
      version,
      description: 'Governance backend for AI-agent work: event truth, tasks, claim boundaries, proof packets and the forge quota API. Local preview, loopback only. Generated from the route table and the JSON Schemas of schemas/. Query parameters an operation does not declare are ignored.',
    },
    servers: [{ url: 'http://127.0.0.1:7337', description: 'The local preview (loopback only; `gov preview start --port 0` takes another port).' }],
    paths,
    components: {
      schemas: schemaComponents(registry),
      securitySchemes: {
        customerToken: { type: 'http', scheme: 'bearer', description: 'The customer transport: tokens.customer of <data-dir>/run.json. Customer writes under /v1/ need it.' },
        operatorToken: { type: 'http', scheme: 'bearer', description: 'The operator transport: tokens.operator of <data-dir>/run.json. /admin/ routes need it; customer writes under /v1/ refuse it (403 operator_transport_rejected).' },
        sudo: { type: 'apiKey', in: 'header', name: 'Sudo', description: 'With the operator token: the forge user to act as on the /user and /orgs quota routes (the forge convention for an administrator acting as a user).' },
      },
      parameters: {
        ...Object.fromEntries(SCOPE_PARAMS.map(([name, header, what]) => [name, { name: header, in: 'header', required: true, description: `The ${what} of the caller's scope (an id).`, schema: { $ref: `${componentRef(ID_SCHEMA)}/$defs/id` } }])),
        IdempotencyKey: idempotencyParam(false),
        IdempotencyKeyRequired: idempotencyParam(true),
        IfMatch: {
          name: 'If-Match',
          in: 'header',
          required: false,
          description: 'Optional: the task version the write was decided on, as an ETag answered it ("42"; * for any). A task that moved on, or an entity-tag that is none of its versions (a weak one included), answers 412 precondition_failed and nothing is written; a header that is no list of entity-tags, or names two versions, is 400 invalid_if_match.',
          schema: { type: 'string', pattern: '^(\\*|"[0-9]{1,15}")$' },
        },
      },
      headers: {
        ETag: { description: 'The task version (the seq of its last event) as a strong entity tag, e.g. "42"; send it back in If-Match.', schema: { type: 'string', pattern: '^"[0-9]{1,15}"$' } },
      },
    },
  };
}

function operation(route: RouteSpec, registry: SchemaRegistry): Record<string, unknown> {
  const parameters: unknown[] = [...route.path.matchAll(/\{([^{}]+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
  for (const [name, param] of Object.entries(route.query ?? {})) parameters.push(queryParameter(name, param, registry));
  if (route.scoped) parameters.push(...SCOPE_PARAMS.map(([name]) => ({ $ref: `#/components/parameters/${name}` })));
  if (route.method === 'POST' && route.path.startsWith('/v1/') && route.access === 'write') {
    // The adapters' raw write must carry a key; other writes honour one when sent (docs/contract.md §5).
    // A POST that only computes (a signature check, a template validation) records nothing to replay.
    parameters.push({ $ref: `#/components/parameters/${route.path === '/v1/events' ? 'IdempotencyKeyRequired' : 'IdempotencyKey'}` });
  }
  if (route.etag === 'write') parameters.push({ $ref: '#/components/parameters/IfMatch' });
  const op: Record<string, unknown> = {
    operationId: operationId(route),
    summary: route.summary,
    'x-status-class': route.status,
    security: securityOf(route),
  };
  if (parameters.length > 0) op.parameters = parameters;
  if (route.request !== undefined) {
    op.requestBody = { required: true, content: { 'application/json': { schema: { $ref: schemaRef(route.request, registry) } } } };
  }
  op.responses = Object.fromEntries(Object.entries(route.responses).map(([status, schema]) => {
    const answer = response(Number(status), schema, registry);
    // A success answers the aggregate's version (after the write, for a write).
    if (route.etag !== undefined && Number(status) < 300) answer.headers = { ETag: { $ref: '#/components/headers/ETag' } };
    return [status, answer];
  }));
  return op;
}

/** What the forge's lenient form reading does, said where the parameter is. */
const FORM_NOTES: Record<NonNullable<QueryParam['form']>, string> = {
  string: 'An empty value is a missing one.',
  trim: 'Surrounding whitespace is trimmed; an empty value is a missing one.',
  int: 'Read as the forge reads it, never refused: a value that is not an integer, or is below the minimum, counts as the default, one above the maximum as the maximum.',
};

function queryParameter(name: string, param: QueryParam, registry: SchemaRegistry): Record<string, unknown> {
  const schema = '$ref' in param.schema ? { $ref: fragmentRef(param.schema.$ref, registry) } : { ...param.schema, ...('enum' in param.schema ? { enum: [...param.schema.enum!] } : {}) };
  const description = param.form === undefined ? param.description : `${param.description} ${FORM_NOTES[param.form]}`;
  return { name, in: 'query', required: param.required === true, description, schema };
}

/** `common/types.json#/$defs/id` → the component of that file plus the fragment. */
function fragmentRef(ref: string, registry: SchemaRegistry): string {
  const [file, fragment = ''] = ref.split('#');
  return `${schemaRef(file!, registry)}${fragment}`;
}

function response(status: number, schema: string | null | readonly string[], registry: SchemaRegistry): Record<string, unknown> {
  const description = STATUS_CODES[status] ?? `Status ${status}`;
  if (schema === null) return { description };
  // A media type instead of a schema file (the console's page and assets): a body of that type.
  const content = Object.fromEntries(
    (typeof schema === 'string' ? [schema] : schema).map((one) => (isMediaType(one) ? [one, { schema: { type: 'string' } }] : [mediaTypeOf(one), { schema: { $ref: schemaRef(one, registry) } }])),
  );
  return { description, content };
}

/** A route's response named by media type (`text/html`) rather than by a schema of schemas/. */
export function isMediaType(schema: string): boolean {
  return /^[a-z]+\/[a-z0-9.+-]+$/.test(schema) && !schema.endsWith('.json');
}

export function mediaTypeOf(schema: string): string {
  return schema === PROBLEM_SCHEMA ? 'application/problem+json' : 'application/json';
}

/** A route's schema must be one of schemas/: a typo fails the build of the document, not a client. */
function schemaRef(ref: string, registry: SchemaRegistry): string {
  if (!registry.has(ref)) throw new Error(`The route table names the schema ${ref}, which is not in schemas/.`);
  return componentRef(ref);
}

/** The forge's /user and /orgs routes act as a user: the operator token plus Sudo (docs/quota.md §5). */
const FORGE_USER_PATH = /^(\/api\/v1)?\/(user|orgs)(\/|$)/;

/** Who may call: public routes nothing; reads either token; customer writes the customer token only. */
function securityOf(route: RouteSpec): Record<string, string[]>[] {
  if (route.access === 'public') return [];
  if (FORGE_USER_PATH.test(route.path)) return [{ operatorToken: [], sudo: [] }];
  if (route.access === 'admin') return [{ operatorToken: [] }];
  if (route.access === 'write') return [{ customerToken: [] }];
  return [{ customerToken: [] }, { operatorToken: [] }];
}

function operationId(route: RouteSpec): string {
  const words = route.path.replace(/[{}]/g, '').split(/[^A-Za-z0-9]+/).filter(Boolean);
  return [route.method.toLowerCase(), ...words].join('_');
}

function idempotencyParam(required: boolean): Record<string, unknown> {
  return {
    name: 'Idempotency-Key',
    in: 'header',
    required,
    description: required
      ? 'Required on the raw event write: the same key and body replay the original answer (200, Idempotent-Replayed: true); another body with the key is 422 idempotency_key_reused.'
      : 'Optional: the same key and body replay the original answer (200, Idempotent-Replayed: true); another body with the key is 422 idempotency_key_reused.',
    schema: { type: 'string', pattern: '^[\\x20-\\x7e]{1,255}$' },
  };
}
