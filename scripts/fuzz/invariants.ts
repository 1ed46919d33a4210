// What must hold after every fuzzed request (issue 18): never a 5xx; every 4xx/5xx body is the
// route family's error shape (a problem with a `code` under /v1, Forgejo's {message, url} on the
// forge routes; a template gate's 422 validation body is the documented exception); a 4xx appends
// no event; every event a request appends is a whole service.event.v1 envelope (what `gov events
// verify` checks; where the fuzzer can read the log); /health still answers. An answer that never
// came (reset, timeout) is a violation too.
import type { Answer } from './exchange.ts';
import type { Family } from './openapi-model.ts';

export type Rule = 'no_answer' | 'server_error' | 'error_body_shape' | 'wrote_on_4xx' | 'invalid_event' | 'health_down';
export type Violation = { rule: Rule; detail: string };

/**
 * An appended event as the fuzzer read it: its kind, its payload's outcome and, where the reader
 * checked it, what makes it no envelope (envelopeProblem; null for a whole one).
 */
export type AppendedEvent = { seq?: number; kind: string; outcome: unknown; problem?: string | null };

/**
 * Event counts before and after the request (null when /health did not answer), and the events
 * appended in between when the fuzzer can read the log (a preview of its own).
 */
export type Counts = { before: number | null; after: number | null; appended?: () => AppendedEvent[] | null };

/**
 * The one documented kind of 4xx that writes: a refusal recorded in the access log (README; docs/
 * governance/): a packet or claim evaluation naming a task outside the caller's scope, or any
 * refusal of a governance rule (404 across scopes, 403, a rule's 409 or 422) answers its problem and
 * appends exactly one `access.logged` event with outcome `denied`, nothing else. A session bind
 * refused for a raw IP address answers its gate's validation body instead, and is recorded so too.
 */
function isDeniedAttemptRecord(answer: Answer, counts: Counts): boolean {
  const body = parse(answer.text);
  const refusal = isObject(body) && (typeof body.code === 'string' || isValidationBody(answer));
  if (answer.status < 400 || answer.status >= 500 || !refusal || counts.after! - counts.before! !== 1) return false;
  const appended = counts.appended?.() ?? null;
  // Without the log to read (a server of someone else's), only the cross-scope 404 is taken on trust.
  if (appended === null) return answer.status === 404 && body.code === 'not_found_in_scope';
  return appended.length === 1 && appended[0]!.kind === 'access.logged' && appended[0]!.outcome === 'denied';
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

export function isProblem(answer: Answer): boolean {
  const type = answer.headers?.get('content-type') ?? '';
  const body = parse(answer.text);
  return type.startsWith('application/problem+json') && isObject(body) && typeof body.code === 'string' && body.code !== '';
}

function isValidationBody(answer: Answer): boolean {
  const body = parse(answer.text);
  return answer.status === 422 && (answer.headers?.get('content-type') ?? '').startsWith('application/json') && isObject(body) && body.ok === false && Array.isArray(body.repair_prompt);
}

export function isForgeError(answer: Answer): boolean {
  const body = parse(answer.text);
  return (answer.headers?.get('content-type') ?? '').startsWith('application/json') && isObject(body) && typeof body.message === 'string' && typeof body.url === 'string';
}

/**
 * A path that matches no route at all (an empty id: `/admin/users//quota/groups`) is answered by the
 * root app's 404/405 problem: it never reached a forge route, so the forge's shape does not apply.
 */
function isUnroutedProblem(answer: Answer): boolean {
  const body = parse(answer.text);
  return (answer.status === 404 || answer.status === 405) && isProblem(answer) && isObject(body) && (body.code === 'route_not_found' || body.code === 'method_not_allowed');
}

function describeBody(answer: Answer): string {
  const type = answer.headers?.get('content-type') ?? '(no content type)';
  const text = answer.text.length > 300 ? `${answer.text.slice(0, 300)}…` : answer.text;
  return `${type}: ${text === '' ? '(empty body)' : text}`;
}

export function checkAnswer(family: Family, answer: Answer, counts: Counts): Violation[] {
  const out: Violation[] = [];
  if (answer.status === 0) {
    out.push({ rule: 'no_answer', detail: `no HTTP answer: ${answer.error}` });
  } else {
    if (answer.status >= 500) out.push({ rule: 'server_error', detail: `answered ${answer.status}` });
    if (answer.status >= 400) {
      const ok = family === 'forge' ? isForgeError(answer) || isUnroutedProblem(answer) : isProblem(answer) || isValidationBody(answer);
      if (!ok) out.push({ rule: 'error_body_shape', detail: `${answer.status} is not ${family === 'forge' ? "a forge {message, url} body" : 'a problem body with a code'}: ${describeBody(answer)}` });
    }
    if (answer.status >= 400 && answer.status < 500 && counts.before !== null && counts.after !== null && counts.after !== counts.before && !isDeniedAttemptRecord(answer, counts)) {
      out.push({ rule: 'wrote_on_4xx', detail: `answered ${answer.status} but the log grew from ${counts.before} to ${counts.after} events` });
    }
    if (counts.before !== null && counts.after !== null && counts.after > counts.before) {
      const invalid = (counts.appended?.() ?? []).find((e) => typeof e.problem === 'string');
      if (invalid) {
        out.push({ rule: 'invalid_event', detail: `appended ${invalid.kind}${invalid.seq === undefined ? '' : ` (seq ${invalid.seq})`}, which is not a whole event envelope: ${invalid.problem} (gov events verify refuses such a log)` });
      }
    }
  }
  if (counts.after === null) out.push({ rule: 'health_down', detail: 'GET /health did not answer 200 with a status after the request' });
  return out;
}
