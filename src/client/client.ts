// The typed HTTP client of the gov API: `call(op, input)` for any operation of the OpenAPI document,
// typed by operations.gen.ts (path parameters, query, body, the body of each declared status), plus
// one method per governance route that smoke, MCP and tests use. It never throws on an HTTP error
// status (callers dispatch on status and body.code); it throws AppError('api_unreachable') only when
// no HTTP answer arrives at all.
import { AppError } from '../errors.ts';
import type { OperationKey, Operations } from './operations.gen.ts';

export type { OperationKey, Operations };

export type ClientScope = { tenant_id: string; workspace_id: string; project_id: string };

/** Any answer, its body unread: what a request outside the document gets. */
export type ApiResponse = {
  status: number;
  headers: Headers;
  /** The parsed JSON body; the raw text when it is not JSON; null when the body is empty. */
  body: unknown;
};

type Digit = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9;
type NumberOf<S> = S extends `${infer N extends number}` ? N : never;
/** Every status an HTTP answer can have (100–599), so the undeclared ones can be told apart. */
export type HttpStatus = NumberOf<`${1 | 2 | 3 | 4 | 5}${Digit}${Digit}`>;

type Responses<O extends OperationKey> = Operations[O]['responses'];

/**
 * The answer of an operation: for each status the document declares, the body its schema gives
 * (`if (res.status === 201) res.body.task`); any other status (a 401 or 503 every route may answer)
 * with an unread body. The client trusts the server's contract and does not validate the body
 * (smoke does).
 */
export type ApiResult<O extends OperationKey> =
  | { [S in keyof Responses<O>]: { status: S; headers: Headers; body: Responses<O>[S] } }[keyof Responses<O>]
  | { status: Exclude<HttpStatus, keyof Responses<O>>; headers: Headers; body: unknown };

export type QueryValue = string | number | boolean | null | undefined;

export type CallOptions = {
  /** Scope members for this call, merged over the client's; null sends no scope headers at all. */
  scope?: Partial<ClientScope> | null;
  headers?: Record<string, string>;
  idempotencyKey?: string;
  /** Overrides the client's token for this call; null sends no Authorization header. */
  token?: string | null;
  /** Aborts the request (and the reading of its answer); the call then throws api_unreachable. */
  signal?: AbortSignal;
};

type Part<K extends string, T> = [T] extends [undefined] ? { [P in K]?: undefined } : Record<string, never> extends T ? { [P in K]?: T } : { [P in K]: T };

/** What a call of `O` sends: its path parameters, its query and its body, as the document types them. */
export type OperationInput<O extends OperationKey> = CallOptions &
  Part<'params', Operations[O]['params']> &
  Part<'query', Operations[O]['query']> &
  Part<'body', Operations[O]['body']>;

/** The input of `forward`: values the caller has not checked, sent as they are for the server to judge. */
export type ForwardInput = CallOptions & { params?: Record<string, string>; query?: Record<string, unknown>; body?: unknown };

export type RequestOptions = CallOptions & {
  body?: unknown;
  /** Sent as it is, instead of JSON-encoding `body` (for malformed-body checks). */
  rawBody?: string;
  query?: Record<string, unknown>;
};

export type ClientOptions = {
  baseUrl: string;
  token?: string | null;
  fetch?: typeof fetch;
  scope?: Partial<ClientScope>;
  /**
   * What fetch does with a 3xx (its own default: follow it). 'manual' answers the 3xx itself, so a
   * caller that must talk to this base URL and nothing else (gov mcp) never sends a body or the
   * scope headers to wherever a Location points.
   */
  redirect?: RequestRedirect;
};

export type SearchQuery = Operations['GET /v1/search']['query'];
export type TimelineQuery = Operations['GET /v1/tasks/{task_id}/timeline']['query'];
type BodyOf<O extends OperationKey> = Operations[O]['body'];

export type GovClient = {
  readonly baseUrl: string;
  /** One operation of the document, typed by it: `call('GET /v1/tasks/{task_id}', { params: { task_id } })`. */
  call<O extends OperationKey>(op: O, ...input: Record<string, never> extends OperationInput<O> ? [OperationInput<O>?] : [OperationInput<O>]): Promise<ApiResult<O>>;
  /**
   * One operation with input the caller has not checked (the MCP front door passes its tools'
   * arguments on; the API refuses what is wrong): the answer is typed, the input is not.
   */
  forward<O extends OperationKey>(op: O, input?: ForwardInput): Promise<ApiResult<O>>;
  /** Any method and path, answered unread: routes outside the document, and deliberately broken requests. */
  request(method: string, path: string, options?: RequestOptions): Promise<ApiResponse>;
  health(options?: CallOptions): Promise<ApiResult<'GET /health'>>;
  listTemplates(options?: CallOptions): Promise<ApiResult<'GET /v1/templates'>>;
  getTemplate(templateId: string, options?: CallOptions): Promise<ApiResult<'GET /v1/templates/{template_id}'>>;
  validateTemplate(body: BodyOf<'POST /v1/templates/validate'>, options?: CallOptions): Promise<ApiResult<'POST /v1/templates/validate'>>;
  createTask(body: BodyOf<'POST /v1/tasks'>, options?: CallOptions): Promise<ApiResult<'POST /v1/tasks'>>;
  writeCheckpoint(taskId: string, body: BodyOf<'POST /v1/tasks/{task_id}/checkpoints'>, options?: CallOptions): Promise<ApiResult<'POST /v1/tasks/{task_id}/checkpoints'>>;
  closeTask(taskId: string, body: BodyOf<'POST /v1/tasks/{task_id}/closeout'>, options?: CallOptions): Promise<ApiResult<'POST /v1/tasks/{task_id}/closeout'>>;
  getTask(taskId: string, options?: CallOptions): Promise<ApiResult<'GET /v1/tasks/{task_id}'>>;
  timeline(taskId: string, query?: TimelineQuery, options?: CallOptions): Promise<ApiResult<'GET /v1/tasks/{task_id}/timeline'>>;
  search(query: SearchQuery, options?: CallOptions): Promise<ApiResult<'GET /v1/search'>>;
  postEvent(body: BodyOf<'POST /v1/events'>, options: CallOptions & { idempotencyKey: string }): Promise<ApiResult<'POST /v1/events'>>;
};

const SCOPE_HEADERS = [
  ['tenant_id', 'X-Tenant-Id'],
  ['workspace_id', 'X-Workspace-Id'],
  ['project_id', 'X-Project-Id'],
] as const;

export function createClient(options: ClientOptions): GovClient {
  const baseUrl = withoutTrailingSlashes(options.baseUrl);
  const doFetch = options.fetch ?? fetch;

  async function request(method: string, path: string, call: RequestOptions = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = { Accept: 'application/json, application/problem+json' };
    const token = call.token === undefined ? options.token : call.token;
    if (token) headers.Authorization = `Bearer ${token}`;
    if (call.scope !== null) {
      const scope = { ...options.scope, ...call.scope };
      for (const [member, header] of SCOPE_HEADERS) {
        const value = scope[member];
        if (value !== undefined && value !== '') headers[header] = value;
      }
    }
    if (call.idempotencyKey !== undefined) headers['Idempotency-Key'] = call.idempotencyKey;
    let body: string | undefined;
    if (call.rawBody !== undefined) body = call.rawBody;
    else if (call.body !== undefined) body = JSON.stringify(call.body);
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    Object.assign(headers, call.headers);
    const url = `${baseUrl}${path}${queryString(call.query)}`;
    let res: Response;
    let text: string;
    try {
      res = await doFetch(url, { method, headers, body, ...(options.redirect ? { redirect: options.redirect } : {}), ...(call.signal ? { signal: call.signal } : {}) });
      text = await res.text();
    } catch (err) {
      throw unreachable(baseUrl, err);
    }
    return { status: res.status, headers: res.headers, body: parseBody(text) };
  }

  /** The operation's method and path, its {placeholders} filled; the answer as the document types it. */
  async function forward<O extends OperationKey>(op: O, input: ForwardInput = {}): Promise<ApiResult<O>> {
    const { params, ...rest } = input;
    const space = op.indexOf(' ');
    const method = op.slice(0, space);
    const path = op.slice(space + 1).replace(/\{([^{}]+)\}/g, (_, name: string) => {
      const value = params?.[name];
      if (value === undefined) throw new Error(`${op} needs the path parameter ${name}.`);
      return encodeURIComponent(value);
    });
    // The one place an answer takes its operation's type: the server's contract, not checked here.
    return (await request(method, path, rest)) as ApiResult<O>;
  }

  const call = <O extends OperationKey>(op: O, input?: OperationInput<O>): Promise<ApiResult<O>> => forward(op, input);

  return {
    baseUrl,
    call: (op, ...input) => forward(op, input[0]),
    forward,
    request,
    health: (o) => call('GET /health', o),
    listTemplates: (o) => call('GET /v1/templates', o),
    getTemplate: (id, o) => call('GET /v1/templates/{template_id}', { ...o, params: { template_id: id } }),
    validateTemplate: (body, o) => call('POST /v1/templates/validate', { ...o, body }),
    createTask: (body, o) => call('POST /v1/tasks', { ...o, body }),
    writeCheckpoint: (id, body, o) => call('POST /v1/tasks/{task_id}/checkpoints', { ...o, params: { task_id: id }, body }),
    closeTask: (id, body, o) => call('POST /v1/tasks/{task_id}/closeout', { ...o, params: { task_id: id }, body }),
    getTask: (id, o) => call('GET /v1/tasks/{task_id}', { ...o, params: { task_id: id } }),
    timeline: (id, query, o) => call('GET /v1/tasks/{task_id}/timeline', { ...o, params: { task_id: id }, query }),
    search: (query, o) => call('GET /v1/search', { ...o, query }),
    postEvent: (body, o) => call('POST /v1/events', { ...o, body }),
  };
}

function queryString(query: Record<string, unknown> | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null) params.append(name, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

function parseBody(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The one failure the client raises: no HTTP answer at all (refused, reset, DNS, bad URL). */
export function unreachable(baseUrl: string, err: unknown): AppError {
  const cause = err as { message?: string; cause?: { code?: string; message?: string } };
  const reason = cause?.cause?.code ?? cause?.cause?.message ?? cause?.message ?? String(err);
  return new AppError(
    'api_unreachable',
    `The gov API is not reachable at ${baseUrl} (${reason}). Start the preview with \`gov preview start\` (it prints its base URL and writes the token to <data-dir>/run.json), or point --base-url / GOV_BASE_URL at a running API, then try again.`,
    { cause: err, extra: { base_url: baseUrl } },
  );
}

/** `url` without the slashes it ends with (a loop: a regex would rescan a run of slashes from each one). */
export function withoutTrailingSlashes(url: string): string {
  let end = url.length;
  while (end > 0 && url.charCodeAt(end - 1) === 0x2f) end--;
  return url.slice(0, end);
}
