// One request of the fuzzer and its answer: the request names its token by role (so a printed
// counterexample never holds a token), is sent with fetch, and the answer is read whole. Transport
// failures (a reset, a timeout) are answers too: status 0 with the error's text.
export type AuthChoice = 'customer' | 'operator' | 'none' | 'bogus' | 'malformed';

export type FuzzRequest = {
  op: string;
  method: string;
  /** The path with its parameters filled in and encoded. */
  path: string;
  query: [string, string][];
  auth: AuthChoice;
  headers: Record<string, string>;
  body?: string;
  contentType?: string;
  /** What was generated and how it was broken, for the report. */
  notes: string[];
};

/** status 0: no HTTP answer came; -1: fetch refused to send the request at all (not the server's doing). */
export type Answer = { status: number; headers: Headers | null; text: string; ms: number; error?: string };

export type Target = { baseUrl: string; tokens: { customer: string; operator: string | null } };

const REQUEST_TIMEOUT_MS = 20_000;

export function authHeader(auth: AuthChoice, tokens: Target['tokens']): string | undefined {
  switch (auth) {
    case 'customer': return `Bearer ${tokens.customer}`;
    case 'operator': return tokens.operator === null ? undefined : `Bearer ${tokens.operator}`;
    case 'bogus': return 'Bearer not-a-token-of-this-run';
    case 'malformed': return 'Basic Zm9vOmJhcg==';
    case 'none': return undefined;
  }
}

export function urlOf(target: Target, req: Pick<FuzzRequest, 'path' | 'query'>): string {
  const qs = req.query.map(([k, v]) => `${encodeQuery(k)}=${encodeQuery(v)}`).join('&');
  return `${target.baseUrl}${req.path}${qs ? `?${qs}` : ''}`;
}

/** encodeURIComponent that keeps lone surrogates as their WTF-8 bytes (invalid UTF-8 on purpose) instead of throwing. */
export function encodeQuery(text: string): string {
  let out = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp >= 0xd800 && cp <= 0xdfff) out += `%${(0xe0 | (cp >> 12)).toString(16).toUpperCase()}%${(0x80 | ((cp >> 6) & 0x3f)).toString(16).toUpperCase()}%${(0x80 | (cp & 0x3f)).toString(16).toUpperCase()}`;
    else out += encodeURIComponent(ch);
  }
  return out;
}

export async function send(target: Target, req: FuzzRequest): Promise<Answer> {
  const headers: Record<string, string> = { ...req.headers };
  const auth = authHeader(req.auth, target.tokens);
  if (auth !== undefined) headers.Authorization = auth;
  if (req.contentType !== undefined) headers['Content-Type'] = req.contentType;
  const started = performance.now();
  try {
    const res = await fetch(urlOf(target, req), {
      method: req.method,
      headers,
      body: req.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    // An event stream (GET /v1/events/stream) that opened never ends: its answer is the opening.
    if (res.ok && (res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      await res.body?.cancel();
      return { status: res.status, headers: res.headers, text: '', ms: performance.now() - started };
    }
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, ms: performance.now() - started };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    const unsendable = e.cause?.code === 'UND_ERR_INVALID_ARG';
    return { status: unsendable ? -1 : 0, headers: null, text: '', ms: performance.now() - started, error: `${e.name}: ${e.message}${e.cause ? ` (${e.cause.code ?? e.cause.message})` : ''}` };
  }
}

/** The log's event count from /health detail (operator token; -1 without it); null when /health does not answer 200. */
export async function eventCount(target: Target): Promise<number | null> {
  try {
    const headers: Record<string, string> = target.tokens.operator ? { Authorization: `Bearer ${target.tokens.operator}` } : {};
    const res = await fetch(`${target.baseUrl}/health`, { headers, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    if (res.status !== 200) return null;
    // "degraded" (say, the index failing on a full disk) still answers: only no answer is down.
    const body = (await res.json()) as { status?: unknown; detail?: { event_count?: number } };
    if (typeof body.status !== 'string') return null;
    return typeof body.detail?.event_count === 'number' ? body.detail.event_count : -1;
  } catch {
    return null;
  }
}

/** A JSON call for the setup: the role's token, optional scope headers, a JSON body. */
export async function callJson(target: Target, method: string, path: string, options: { auth?: AuthChoice; headers?: Record<string, string>; body?: unknown } = {}): Promise<{ status: number; json: any }> {
  const res = await send(target, {
    op: `${method} ${path}`,
    method,
    path,
    query: [],
    auth: options.auth ?? 'customer',
    headers: options.headers ?? {},
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    contentType: options.body === undefined ? undefined : 'application/json',
    notes: [],
  });
  if (res.status === 0) throw new Error(`${method} ${path}: no answer (${res.error})`);
  let json: unknown = null;
  try {
    json = res.text ? JSON.parse(res.text) : null;
  } catch {
    json = res.text;
  }
  return { status: res.status, json };
}

