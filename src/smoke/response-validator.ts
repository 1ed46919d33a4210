// Validation of response bodies against the target server's OWN /openapi.json: its components are
// compiled with Ajv (JSON Schema 2020-12, as OpenAPI 3.1 uses), never our schemas/ directory, so the
// suite checks any server that speaks the contract against what that server declares.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { routeKey } from './check.ts';
import { escapePointer, unescapePointer } from '../domain/json-pointer.ts';

type Obj = Record<string, any>;

export type ResponseSpec = {
  /** The document's path template for the route (its own placeholder names). */
  path: string;
  /** Media type → schema (absent when the response has no content, e.g. 204). */
  content: Record<string, unknown>;
};

export type ResponseValidator = {
  /** The operation of "METHOD /path/{x}" in the document, compared with placeholders ignored. */
  operation(route: string): Obj | undefined;
  /** The documented response for a status (exact, else its range such as 4XX, else default). */
  response(route: string, status: number): ResponseSpec | undefined;
  /** Validates a body against the schema of that response and media type; failures as lines. */
  validate(route: string, status: number, mediaType: string, body: unknown): string[];
};

const DOC_ID = 'https://smoke.gov.invalid/openapi.json';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export function createResponseValidator(doc: Obj): ResponseValidator {
  // strict off: the document mixes OpenAPI members with schemas, and a foreign server may use
  // OpenAPI's own schema keywords (discriminator, xml, example). No logger: stdout is --json output.
  const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false, validateSchema: false });
  (addFormatsModule as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema({ ...doc, $id: DOC_ID });
  const byKey = new Map<string, { path: string; op: Obj }>();
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Obj)) {
    for (const [method, op] of Object.entries(item as Obj)) {
      if (METHODS.includes(method)) byKey.set(routeKey(`${method.toUpperCase()} ${path}`), { path, op: op as Obj });
    }
  }
  const compiled = new Map<string, ValidateFunction>();

  const find = (route: string) => byKey.get(routeKey(route));
  const response = (route: string, status: number): (ResponseSpec & { pointer: string }) | undefined => {
    const found = find(route);
    if (!found) return undefined;
    const responses = (found.op.responses ?? {}) as Obj;
    const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => responses[k] !== undefined);
    if (key === undefined) return undefined;
    const method = route.split(' ')[0]!.toLowerCase();
    const pointer = `#/paths/${escape(found.path)}/${method}/responses/${escape(key)}`;
    const resolved = deref(doc, responses[key]);
    return { path: found.path, content: (resolved?.content ?? {}) as Record<string, unknown>, pointer };
  };

  return {
    operation: (route) => find(route)?.op,
    response,
    validate(route, status, mediaType, body) {
      const spec = response(route, status);
      if (!spec) return [`the document lists no ${status} response for ${route}`];
      const media = Object.keys(spec.content).find((m) => m.split(';')[0]!.trim().toLowerCase() === mediaType);
      if (media === undefined) {
        const listed = Object.keys(spec.content);
        if (listed.length === 0) return body === null ? [] : [`the document lists no body for ${status}, the server sent one`];
        return [`answered ${mediaType || 'no content type'}, the document lists ${listed.join(', ')} for ${status}`];
      }
      if ((spec.content[media] as Obj | undefined)?.schema === undefined) return [];
      const ref = `${DOC_ID}${spec.pointer}/content/${escape(media)}/schema`;
      let fn = compiled.get(ref);
      if (!fn) {
        try {
          fn = ajv.getSchema(ref);
        } catch (err) {
          return [`the document's schema for ${status} does not compile: ${(err as Error).message}`];
        }
        if (!fn) return [`the document's schema for ${status} cannot be resolved (${ref})`];
        compiled.set(ref, fn);
      }
      return fn(body) ? [] : (fn.errors ?? []).map(errorLine);
    },
  };
}

/** A JSON pointer segment, made safe inside a URI fragment. */
function escape(segment: string): string {
  return encodeURIComponent(escapePointer(segment));
}

/** Follows one local `$ref` of a response object (components.responses). */
function deref(doc: Obj, node: Obj): Obj | undefined {
  if (typeof node?.$ref !== 'string' || !node.$ref.startsWith('#/')) return node;
  return node.$ref.slice(2).split('/').reduce<any>((n, p) => n?.[unescapePointer(decodeURIComponent(p))], doc);
}

function errorLine(e: ErrorObject): string {
  const where = e.instancePath || '(root)';
  if (e.keyword === 'required') return `${where}: required member "${(e.params as { missingProperty: string }).missingProperty}" is missing`;
  if (e.keyword === 'additionalProperties') return `${where}: unknown member "${(e.params as { additionalProperty: string }).additionalProperty}"`;
  return `${where}: ${e.message ?? e.keyword}`;
}
