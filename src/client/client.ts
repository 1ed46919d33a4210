// The typed HTTP client of the gov API: one method per governance route plus a generic request.
// It never throws on an HTTP error status (callers dispatch on status and body.code); it throws
// AppError('api_unreachable') only when no HTTP answer arrives at all. Used by smoke, MCP and tests.
import { AppError } from '../errors.ts';

export type ClientScope = { tenant_id: string; workspace_id: string; project_id: string };

export type ApiResult<T = any> = {
  status: number;
  headers: Headers;
  /** The parsed JSON body; the raw text when it is not JSON; null when the body is empty. */
  body: T;
};

export type QueryValue = string | number | boolean | null | undefined;

export type CallOptions = {
  /** Scope members for this call, merged over the client's; null sends no scope headers at all. */
  scope?: Partial<ClientScope> | null;
  headers?: Record<string, string>;
  idempotencyKey?: string;
  /** Overrides the client's token for this call; null sends no Authorization header. */
  token?: string | null;
};

export type RequestOptions = CallOptions & {
  body?: unknown;
  /** Sent as it is, instead of JSON-encoding `body` (for malformed-body checks). */
  rawBody?: string;
  query?: Record<string, QueryValue>;
};

export type ClientOptions = {
  baseUrl: string;
  token?: string | null;
  fetch?: typeof fetch;
  scope?: Partial<ClientScope>;
};

export type SearchQuery = { q?: string; kind?: string; task_id?: string; limit?: number; cursor?: string };
export type TimelineQuery = { after_seq?: number; limit?: number };

export type GovClient = {
  readonly baseUrl: string;
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<ApiResult<T>>;
  health(options?: CallOptions): Promise<ApiResult>;
  listTemplates(options?: CallOptions): Promise<ApiResult>;
  getTemplate(templateId: string, options?: CallOptions): Promise<ApiResult>;
  validateTemplate(body: { template_id: string; payload: unknown }, options?: CallOptions): Promise<ApiResult>;
  createTask(body: unknown, options?: CallOptions): Promise<ApiResult>;
  writeCheckpoint(taskId: string, body: unknown, options?: CallOptions): Promise<ApiResult>;
  closeTask(taskId: string, body: unknown, options?: CallOptions): Promise<ApiResult>;
  getTask(taskId: string, options?: CallOptions): Promise<ApiResult>;
  timeline(taskId: string, query?: TimelineQuery, options?: CallOptions): Promise<ApiResult>;
  search(query: SearchQuery, options?: CallOptions): Promise<ApiResult>;
  postEvent(body: unknown, options: CallOptions & { idempotencyKey: string }): Promise<ApiResult>;
};

const SCOPE_HEADERS = [
  ['tenant_id', 'X-Tenant-Id'],
  ['workspace_id', 'X-Workspace-Id'],
  ['project_id', 'X-Project-Id'],
] as const;

export function createClient(options: ClientOptions): GovClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const seg = encodeURIComponent;

  async function request<T = any>(method: string, path: string, call: RequestOptions = {}): Promise<ApiResult<T>> {
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
      res = await doFetch(url, { method, headers, body });
      text = await res.text();
    } catch (err) {
      throw unreachable(baseUrl, err);
    }
    return { status: res.status, headers: res.headers, body: parseBody(text) as T };
  }

  return {
    baseUrl,
    request,
    health: (o) => request('GET', '/health', o),
    listTemplates: (o) => request('GET', '/v1/templates', o),
    getTemplate: (id, o) => request('GET', `/v1/templates/${seg(id)}`, o),
    validateTemplate: (body, o) => request('POST', '/v1/templates/validate', { ...o, body }),
    createTask: (body, o) => request('POST', '/v1/tasks', { ...o, body }),
    writeCheckpoint: (id, body, o) => request('POST', `/v1/tasks/${seg(id)}/checkpoints`, { ...o, body }),
    closeTask: (id, body, o) => request('POST', `/v1/tasks/${seg(id)}/closeout`, { ...o, body }),
    getTask: (id, o) => request('GET', `/v1/tasks/${seg(id)}`, o),
    timeline: (id, query = {}, o) => request('GET', `/v1/tasks/${seg(id)}/timeline`, { ...o, query }),
    search: (query, o) => request('GET', '/v1/search', { ...o, query }),
    postEvent: (body, o) => request('POST', '/v1/events', { ...o, body }),
  };
}

function queryString(query: Record<string, QueryValue> | undefined): string {
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
