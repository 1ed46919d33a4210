// One operation's requests as a fast-check arbitrary. Each request breaks at most one thing (the
// sigstore habit: start from a valid request, break one part), so every refusal is attributable
// and the valid requests reach the deep paths: the token (another, none, a wrong one), the scope
// headers (another scope's, one missing, one invalid), one path id (another scope's, unknown,
// invalid, raw percent-encoding), one query parameter (invalid, repeated, unknown), one other
// header (Idempotency-Key, If-Match, Sudo), or the body (see mutation.ts). Valid bodies come from
// the request schema or the corpus of known-good bodies.
import fc from 'fast-check';
import { encodeQuery, type AuthChoice, type FuzzRequest } from './exchange.ts';
import { applyMutation, bodyMutationArb, ODD_TEXTS, type Mutation } from './mutation.ts';
import type { Operation, Param } from './openapi-model.ts';
import { arbitraryFor, type GenContext } from './schema-arbitrary.ts';
import { scopeHeaders, type World } from './world.ts';

type Focus = 'none' | 'auth' | 'scope' | 'path' | 'query' | 'header' | 'body';

const SCOPE_HEADERS = new Set(['x-tenant-id', 'x-workspace-id', 'x-project-id']);
const SCOPE_NAMES = ['X-Tenant-Id', 'X-Workspace-Id', 'X-Project-Id'];

/** Values that are not a valid id: empty, dots, slashes, too long, odd unicode, encodings. */
const INVALID_IDS = ['', '.', '..', 'a', 'a/b', 'x'.repeat(300), ' ', '%2e%2e', '%00', '%ZZ', '\u0000', '😀', 'ä', '\ud800', 'task id', '-leading', ...ODD_TEXTS];
/** Path segments sent as they are: percent signs and encodings the router must take as given. */
const RAW_SEGMENTS = ['%', '%E0%A4%A', '%C0%AF', '..%2f..', '%uD800', '%ED%A0%80', '%FF'];
/** Header values are bytes: latin-1 at most (fetch refuses more), never CR, LF, NUL or DEL. */
const INVALID_HEADER_VALUES = ['', 'a', 'x'.repeat(300), 'a b', 'forge', 'caf\u00e9', '../x', '%00', 'tenant\t1', '\u00ff\u00fe', 'W/"5"', '"abc"', '5', '"1", "2"', '\u0080'];
const INVALID_QUERY_VALUES = ['', '-1', '0', '1.5', '1e3', '0x10', '+5', '99999999999999999999', '9007199254740993', 'abc', 'null', '[]', ' 1', 'x'.repeat(10_000), ...ODD_TEXTS];

type Part<T> = fc.Arbitrary<T>;

function focusArb(has: Record<Exclude<Focus, 'none' | 'auth'>, boolean>): Part<Focus> {
  const choices: { weight: number; arbitrary: Part<Focus> }[] = [
    { weight: 3, arbitrary: fc.constant<Focus>('none') },
    { weight: 1, arbitrary: fc.constant<Focus>('auth') },
  ];
  const weights: [Exclude<Focus, 'none' | 'auth'>, number][] = [['body', 6], ['path', 2], ['query', 2], ['scope', 1], ['header', 1]];
  for (const [focus, weight] of weights) if (has[focus]) choices.push({ weight, arbitrary: fc.constant(focus) });
  return fc.oneof(...choices);
}

function authParts(op: Operation): { valid: Part<AuthChoice>; broken: Part<AuthChoice> } {
  const declared: AuthChoice[] = op.tokens.length > 0 ? op.tokens : ['none'];
  const others = (['customer', 'operator', 'none', 'bogus', 'malformed'] as AuthChoice[]).filter((a) => !declared.includes(a));
  return { valid: fc.constantFrom(...declared), broken: fc.constantFrom(...others) };
}

type ScopeBreak = { kind: 'other' } | { kind: 'missing'; which: number } | { kind: 'invalid'; which: number; value: string };

const scopeBreakArb: Part<ScopeBreak> = fc.oneof(
  fc.constant({ kind: 'other' } as const),
  fc.record({ kind: fc.constant('missing' as const), which: fc.nat(2) }),
  fc.record({ kind: fc.constant('invalid' as const), which: fc.nat(2), value: fc.constantFrom(...INVALID_HEADER_VALUES) }),
);

function scopeOf(broken: ScopeBreak | null, world: World): { headers: Record<string, string>; note: string } {
  const headers = scopeHeaders(world.scopeA);
  if (broken === null) return { headers, note: 'scope: own' };
  const name = SCOPE_NAMES[broken.kind === 'other' ? 0 : broken.which]!;
  switch (broken.kind) {
    case 'other': return { headers: scopeHeaders(world.scopeB), note: 'scope: another scope' };
    case 'missing':
      delete headers[name];
      return { headers, note: `scope: ${name} missing` };
    case 'invalid': return { headers: { ...headers, [name]: broken.value }, note: `scope: ${name} ${JSON.stringify(broken.value)}` };
  }
}

type Segment = { text: string; note: string };

function pathParts(params: Param[], world: World): { valid: Part<Segment[]>; broken: Part<{ index: number; segment: Segment }> } {
  const known = (p: Param) => world.ids[p.name] ?? { own: ['fz-unknown-1'], other: ['fz-unknown-2'] };
  const valid = fc.tuple(...params.map((p) => fc.constantFrom(...known(p).own).map((id): Segment => ({ text: encodeQuery(id), note: `${p.name}: known` }))));
  if (params.length === 0) return { valid, broken: fc.constant({ index: 0, segment: { text: '', note: '' } }) };
  const broken = fc.record({
    index: fc.nat(Math.max(0, params.length - 1)),
    pick: fc.nat(),
    segment: fc.oneof(
      { weight: 3, arbitrary: fc.constant<Segment | null>(null) },
      { weight: 3, arbitrary: fc.constantFrom(...INVALID_IDS).map((id): Segment => ({ text: encodeQuery(id), note: `invalid ${JSON.stringify(id)}` })) },
      { weight: 1, arbitrary: fc.constantFrom(...RAW_SEGMENTS).map((raw): Segment => ({ text: raw, note: `raw ${JSON.stringify(raw)}` })) },
    ),
  }).map(({ index, pick, segment }) => {
    const p = params[index]!;
    const other = known(p).other;
    // null: an id known elsewhere (another scope's task or packet, an unknown rule, a user as an org)
    const chosen = segment ?? { text: encodeQuery(other[pick % other.length]!), note: 'another scope\'s or unknown' };
    return { index, segment: { text: chosen.text, note: `${p.name}: ${chosen.note}` } };
  });
  return { valid, broken };
}

type QueryBreak = { index: number; kind: 'value'; value: string } | { index: number; kind: 'repeated' | 'missing' } | { index: number; kind: 'unknown'; value: string };

function queryParts(params: Param[], ctx: GenContext): { valid: Part<([string, string] | null)[]>; broken: Part<QueryBreak> } {
  const text = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
  const valid = fc.tuple(...params.map((p) => {
    const value = arbitraryFor(p.schema, ctx).map((v): [string, string] => [p.name, text(v)]);
    return p.required ? value : fc.option(value, { freq: 2 });
  }));
  const index = fc.nat(Math.max(0, params.length - 1));
  const broken: Part<QueryBreak> = fc.oneof(
    { weight: 4, arbitrary: fc.record({ index, kind: fc.constant('value' as const), value: fc.constantFrom(...INVALID_QUERY_VALUES) }) },
    { weight: 1, arbitrary: fc.record({ index, kind: fc.constantFrom('repeated' as const, 'missing' as const) }) },
    { weight: 1, arbitrary: fc.record({ index, kind: fc.constant('unknown' as const), value: fc.constantFrom('1', '', 'x') }) },
  );
  return { valid, broken };
}

function applyQuery(params: Param[], valid: ([string, string] | null)[], broken: QueryBreak | null): { pairs: [string, string][]; notes: string[] } {
  const pairs = valid.filter((x): x is [string, string] => x !== null);
  const notes = pairs.map(([k]) => `query ${k}: valid${params.find((p) => p.name === k)?.declared === false ? ' (undeclared)' : ''}`);
  if (broken === null) return { pairs, notes };
  if (params.length === 0 || broken.kind === 'unknown') {
    return { pairs: [...pairs, ['fz_unknown', broken.kind === 'unknown' ? broken.value : '1']], notes: [...notes, 'query: an unknown parameter'] };
  }
  const name = params[broken.index]!.name;
  const rest = pairs.filter(([k]) => k !== name);
  switch (broken.kind) {
    case 'value': return { pairs: [...rest, [name, broken.value]], notes: [...notes, `query ${name}: ${JSON.stringify(broken.value.length > 40 ? `${broken.value.slice(0, 8)}…(${broken.value.length})` : broken.value)}`] };
    case 'repeated': return { pairs: [...rest, [name, '1'], [name, '2']], notes: [...notes, `query ${name}: repeated`] };
    case 'missing': return { pairs: rest, notes: [...notes, `query ${name}: left out`] };
  }
}

/** The headers other than the scope: declared ones (Idempotency-Key, If-Match) and the forge's Sudo. */
type HeaderSpec = { name: string; required: boolean; valid: Part<string>; known: boolean };

function headerSpecs(op: Operation, ctx: GenContext): HeaderSpec[] {
  const specs: HeaderSpec[] = op.params.filter((p) => p.in === 'header' && !SCOPE_HEADERS.has(p.name.toLowerCase())).map((p) => ({
    name: p.name,
    required: p.required,
    known: false,
    valid: p.name.toLowerCase() === 'idempotency-key' ? fc.oneof(fc.stringMatching(/^fz-key-[a-z0-9]{6,12}$/), fc.constant('fz-key-reused')) : arbitraryFor(p.schema, ctx).map(String),
  }));
  if (op.security.includes('sudo')) specs.push({ name: 'Sudo', required: true, known: true, valid: fc.constantFrom('alice', 'bob', 'carol', 'forge-admin') });
  return specs;
}

type HeaderBreak = { index: number; value: string | null };

function headerParts(specs: HeaderSpec[]): { valid: Part<(string | null)[]>; broken: Part<HeaderBreak> } {
  const valid = fc.tuple(...specs.map((s) => (s.required ? s.valid : fc.option(s.valid, { freq: 2 }))));
  const broken = fc.record({
    index: fc.nat(Math.max(0, specs.length - 1)),
    value: fc.option(fc.constantFrom(...INVALID_HEADER_VALUES, 'nobody', 'acme-org'), { freq: 4 }),
  });
  return { valid, broken };
}

export function requestArb(op: Operation, world: World, doc: unknown): fc.Arbitrary<FuzzRequest> {
  const ctx: GenContext = { doc, pools: world.pools };
  const pathParams = op.params.filter((p) => p.in === 'path');
  const queryParams = op.params.filter((p) => p.in === 'query');
  const specs = headerSpecs(op, ctx);
  const usesScope = op.params.some((p) => SCOPE_HEADERS.has(p.name.toLowerCase()));
  const corpus = world.corpus[`${op.method} ${op.path.replace(/^\/api\/v1/, '')}`] ?? [];
  const generated = op.body === null ? fc.constant(undefined) : arbitraryFor(op.body, ctx);
  const bodyBase = corpus.length > 0 ? fc.oneof({ weight: 1, arbitrary: generated }, { weight: 2, arbitrary: fc.constantFrom(...corpus) }) : generated;
  const auth = authParts(op);
  const path = pathParts(pathParams, world);
  const query = queryParts(queryParams, ctx);
  const headers = headerParts(specs);
  const focus = focusArb({ body: op.body !== null, path: pathParams.length > 0, query: true, scope: usesScope, header: specs.length > 0 });

  return fc.record({
    focus,
    auth: auth.valid, authBroken: auth.broken,
    scopeBroken: scopeBreakArb,
    ids: path.valid, idBroken: path.broken,
    query: query.valid, queryBroken: query.broken,
    headers: headers.valid, headerBroken: headers.broken,
    body: bodyBase, bodyMutation: bodyMutationArb,
  }).map((g): FuzzRequest => {
    const f = g.focus;
    const notes: string[] = [`broken: ${f === 'none' ? 'nothing' : f}`];
    const authChoice = f === 'auth' ? g.authBroken : g.auth;
    notes.push(`token: ${authChoice}`);
    let all: Record<string, string> = {};
    if (usesScope) {
      const s = scopeOf(f === 'scope' ? g.scopeBroken : null, world);
      all = s.headers;
      notes.push(s.note);
    }
    const segments = [...g.ids];
    if (f === 'path' && pathParams.length > 0) segments[g.idBroken.index] = g.idBroken.segment;
    let url = op.path;
    pathParams.forEach((p, i) => (url = url.replace(`{${p.name}}`, segments[i]!.text)));
    notes.push(...segments.map((s) => s.note));
    const q = applyQuery(queryParams, g.query, f === 'query' ? g.queryBroken : null);
    notes.push(...q.notes);
    specs.forEach((spec, i) => {
      const brokenHere = f === 'header' && g.headerBroken.index === i;
      const value = brokenHere ? g.headerBroken.value : g.headers[i];
      if (value === null || value === undefined) {
        if (brokenHere) notes.push(`${spec.name}: absent`);
        return;
      }
      all[spec.name] = value;
      notes.push(`${spec.name}: ${brokenHere ? JSON.stringify(value.length > 40 ? `${value.slice(0, 8)}…(${value.length})` : value) : 'valid'}`);
    });
    let body: { text: string | undefined; contentType: string | undefined; note: string } | null = null;
    if (op.body !== null) {
      const mutation: Mutation = f === 'body' ? g.bodyMutation : { kind: 'none' };
      body = applyMutation(g.body, mutation);
      notes.push(`body: ${body.note}`);
    }
    return { op: op.key, method: op.method, path: url, query: q.pairs, auth: authChoice, headers: all, body: body?.text, contentType: body?.contentType, notes };
  });
}
