// The hosted service (`gov serve`, src/hosted.ts) end to end: a real PostgreSQL database, the real
// HTTP server reached with fetch, and real signed JWTs from a test identity provider (no mocks).
// Refused tokens (401 with WWW-Authenticate, 403 for a scope the token does not grant) write
// nothing; a verified caller acts as its token's subject and a body naming anyone else is refused;
// the token's roles alone drive separation of duties; another tenant's token sees 404; the log
// verifies with exactly the events the requests wrote; the console and the forge API are not served.
// Without GOV_TEST_DATABASE_URL every test shows a SKIP line (test/fixtures/postgres.ts).
import t, { type Test } from 'tap';
import { createHmac } from 'node:crypto';
import { generateKeyPair } from 'jose';
import pg from 'pg';
import type { StoredEvent } from '../../src/domain/event.ts';
import { startHosted, type HostedHandle } from '../../src/hosted.ts';
import { QUOTA_ROUTES } from '../../src/server/routes/quota.ts';
import { migrateDatabase, verifyDatabaseLog } from '../../src/store/pg/pg-log-tools.ts';
import { TEST_KIDS, TEST_SUB, testIssuer, type MintOptions, type TestIssuer } from '../fixtures/oidc.ts';
import { testDatabase } from '../fixtures/postgres.ts';
import { answerOf } from '../fixtures/test-app.ts';

type Scope = { tenant_id: string; workspace_id: string; project_id: string };
const ACME: Scope = { tenant_id: 'acme', workspace_id: 'ws-1', project_id: 'proj-1' };
const OTHER: Scope = { tenant_id: 'other-co', workspace_id: 'ws-1', project_id: 'proj-1' };
const HIGH = { data_sensitivity: 3, decision_impact: 3, autonomy: 2, vendor_maturity: 2, prohibited_practice: 0 };
const IDENTITY_NON_CLAIM = /identities are asserted/i;

type Answer = { status: number; headers: Headers; json: any; text: string };
type Send = { method?: string; token?: string | null; scope?: Scope | null; body?: unknown; headers?: Record<string, string> };

/** A migrated database of its own, the hosted server on it and a test identity provider; null (after a SKIP line) without PostgreSQL. */
async function hosted(t: Test) {
  const url = await testDatabase(t);
  if (url === null) return null;
  await migrateDatabase(url);
  const idp: TestIssuer = await testIssuer();
  t.teardown(() => idp.close());
  const access: string[] = [];
  const errors: string[] = [];
  const server: HostedHandle = await startHosted(
    { databaseUrl: url, host: '127.0.0.1', port: 0, oidc: idp.config() },
    { warn: () => {}, access: (line) => void access.push(line), logError: (line) => void errors.push(line) },
  );
  // Registered after testDatabase's drop, so it runs first: the pool is closed before the drop.
  t.teardown(() => server.stop());

  const call = async (path: string, s: Send = {}): Promise<Answer> => {
    const headers: Record<string, string> = { ...s.headers };
    if (s.token != null) headers.Authorization = `Bearer ${s.token}`;
    const scope = s.scope === undefined ? ACME : s.scope;
    if (scope !== null) {
      headers['X-Tenant-Id'] = scope.tenant_id;
      headers['X-Workspace-Id'] = scope.workspace_id;
      headers['X-Project-Id'] = scope.project_id;
    }
    let body: string | undefined;
    if (s.body !== undefined) {
      body = JSON.stringify(s.body);
      headers['Content-Type'] = 'application/json';
    }
    return answerOf(await fetch(`${server.baseUrl}${path}`, { method: s.method ?? (body === undefined ? 'GET' : 'POST'), headers, ...(body === undefined ? {} : { body }) }));
  };

  /** Every stored event, in seq order, read from the hosted log's table. */
  const events = async (): Promise<StoredEvent[]> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ line: string }>('SELECT line FROM gov_events ORDER BY seq');
      return rows.map((r) => JSON.parse(r.line) as StoredEvent);
    } finally {
      await client.end();
    }
  };
  const count = async (): Promise<number> => (await verifyDatabaseLog(url)).event_count;

  /** Runs a request and answers the events it wrote; `seen` tallies every event the test saw written. */
  let seen = 0;
  const observe = async (send: () => Promise<Answer>): Promise<{ answer: Answer; written: StoredEvent[]; counted: number }> => {
    const before = await events();
    const answer = await send();
    const written = (await events()).slice(before.length);
    seen += written.length;
    return { answer, written, counted: before.length };
  };
  /** observe, asserting the kinds written (none for a refusal), in the log's table and in verifyDatabaseLog's count. */
  const wrote = async (t: Test, label: string, kinds: string[], send: () => Promise<Answer>): Promise<{ answer: Answer; written: StoredEvent[] }> => {
    const counted = await count();
    const { answer, written, counted: rows } = await observe(send);
    t.equal(counted, rows, `${label}: verifyDatabaseLog counts the table's rows`);
    t.same(written.map((e) => e.kind), kinds, kinds.length === 0 ? `${label}: nothing written` : `${label}: wrote ${kinds.join(', ')}`);
    t.equal(await count(), counted + kinds.length, `${label}: verifyDatabaseLog event_count moved by ${kinds.length}`);
    return { answer, written };
  };

  return { url, idp, server, call, events, count, observe, wrote, access, errors, seen: () => seen };
}

/** A problem body: its status, code and, for a 401, the WWW-Authenticate challenge. */
function problem(t: Test, r: Answer, status: number, code: string, label: string): void {
  t.same([r.status, r.json?.code], [status, code], `${label}: ${status} ${code}`);
  t.match(r.headers.get('content-type'), /^application\/problem\+json/, `${label}: a problem body`);
  t.match(r.json, { type: `https://schemas.gov.local/problems/${code}`, title: String, status, detail: String, code }, `${label}: RFC 9457 members`);
  t.equal(r.json?.request_id, r.headers.get('x-request-id'), `${label}: the problem names the request id`);
  if (status === 401) t.equal(r.headers.get('www-authenticate'), code === 'unauthorized' ? 'Bearer' : 'Bearer error="invalid_token"', `${label}: WWW-Authenticate`);
  if (status === 404) t.equal(r.headers.get('www-authenticate'), null, `${label}: no challenge on a 404`);
}

/** The status, with the body shown only when it is not the one expected. */
function status(t: Test, r: Answer, expected: number, label: string): void {
  t.equal(r.status, expected, `${label}: ${expected}`, r.status === expected ? {} : { body: r.text });
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const task = (id: string, extra: Record<string, unknown> = {}) => ({ task_id: id, title: `Task ${id} of the hosted run`, session_id: 'sess-1', ...extra });

t.test('JWT refusals over HTTP: 401 with the challenge, 403 for another scope, nothing written', async (t) => {
  const h = await hosted(t);
  if (h === null) return;
  const { idp } = h;
  const now = Math.floor(Date.now() / 1000);
  const claims = { iss: idp.issuer, aud: idp.audience, sub: TEST_SUB, gov_tenant: 'acme', gov_roles: ['owner'], iat: now, exp: now + 600 };
  const unsigned = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`;
  const hsInput = `${b64({ alg: 'HS256', typ: 'JWT', kid: TEST_KIDS.RS256 })}.${b64(claims)}`;
  const confused = `${hsInput}.${createHmac('sha256', idp.publicKeyPem).update(hsInput).digest('base64url')}`;
  const forger = await generateKeyPair('RS256', { extractable: true });
  const mint = (c: Record<string, unknown> = {}, o: MintOptions = {}) => idp.mint(c, o);

  const cases: [string, string | null, Scope, number, string][] = [
    ['no token', null, ACME, 401, 'unauthorized'],
    ['not a JWT', 'not-a-jwt', ACME, 401, 'token_invalid'],
    ['expired', await mint({}, { expiresIn: '-5m' }), ACME, 401, 'token_expired'],
    ['wrong issuer', await mint({}, { issuer: 'https://idp.evil.example/realms/acme' }), ACME, 401, 'token_invalid'],
    ['wrong audience', await mint({}, { audience: 'another-api' }), ACME, 401, 'token_invalid'],
    ['alg none (unsigned)', unsigned, ACME, 401, 'token_invalid'],
    ['HS256 keyed with the public key PEM', confused, ACME, 401, 'token_invalid'],
    ['unknown kid', await mint({}, { kid: 'rotated-away-9' }), ACME, 401, 'token_invalid'],
    ['no kid', await mint({}, { kid: null }), ACME, 401, 'token_invalid'],
    ['an unknown critical header', await mint({}, { header: { crit: ['x'], x: 1 } }), ACME, 401, 'token_invalid'],
    ["a forger's key under a known kid", await mint({}, { key: forger.privateKey }), ACME, 401, 'token_invalid'],
    ['not valid yet (nbf in an hour)', await mint({ nbf: now + 3600 }), ACME, 401, 'token_invalid'],
    ['no exp', await mint({ exp: undefined }), ACME, 401, 'token_invalid'],
    ['a sub that is not an id', await mint({ sub: 'alice@example.com' }), ACME, 401, 'token_invalid'],
    ['no tenant claim', await mint({ gov_tenant: undefined }), ACME, 401, 'token_invalid'],
    ['tenant claim other than X-Tenant-Id', await mint({ gov_tenant: 'acme' }), OTHER, 403, 'token_scope_mismatch'],
    ['workspace claim other than X-Workspace-Id', await mint({ gov_workspace: 'ws-2' }), ACME, 403, 'token_scope_mismatch'],
  ];
  for (const [label, token, scope, status, code] of cases) {
    const { answer: read } = await h.wrote(t, `GET ${label}`, [], () => h.call('/v1/tasks', { token, scope }));
    problem(t, read, status, code, `GET /v1/tasks, ${label}`);
    if (token !== null) t.notMatch(read.text, token, `${label}: the refusal never repeats the token`);
    const { answer: write } = await h.wrote(t, `POST ${label}`, [], () => h.call('/v1/tasks', { token, scope, body: task('t-refused') }));
    problem(t, write, status, code, `POST /v1/tasks, ${label}`);
    const { answer: gov } = await h.wrote(t, `POST asset ${label}`, [], () =>
      h.call('/v1/governance/assets', { token, scope, body: { asset_id: 'refused-1', name: 'Refused', purpose: 'Never registered', owner: { type: 'user', id: TEST_SUB }, deployment_context: 'HR', models: [{ provider: 'acme', name: 'm1' }] } }),
    );
    problem(t, gov, status, code, `POST /v1/governance/assets, ${label}`);
  }
  // The tokens that grant the scope pass the same checks (so the refusals above were the claims').
  const ok = await h.call('/v1/tasks', { token: await mint({ gov_workspace: 'ws-1' }) });
  t.equal(ok.status, 200, 'a workspace claim naming X-Workspace-Id is accepted');
  const two = await h.call('/v1/tasks', { token: await mint({ gov_tenant: ['acme', 'other-co'] }), scope: OTHER });
  t.equal(two.status, 200, 'a tenant list including X-Tenant-Id is accepted');
  t.same(h.seen(), 0, 'no refused request wrote anything');
  const lines = h.access.join('\n');
  t.ok(h.access.length >= cases.length * 3, 'every request has its access line');
  t.notOk(cases.some(([, token]) => token !== null && lines.includes(token.split('.')[2] || token)), 'no access line repeats a token');
  const log = await verifyDatabaseLog(h.url);
  t.match(log, { ok: true, event_count: 0 }, 'the log is intact and empty');
  t.same(h.errors, [], 'no server error');
});

t.test('a valid token: /health by role, the token subject is the actor, a body naming anyone else is refused', async (t) => {
  const h = await hosted(t);
  if (h === null) return;
  const alice = await h.idp.mint({ gov_roles: ['contributor'] });
  const operator = await h.idp.mint({ sub: 'user_ops', gov_roles: ['gov_operator'] });

  const open = await h.call('/health', { scope: null });
  t.equal(open.status, 200);
  t.match(open.json, { status: 'ok', mode: 'hosted' }, 'no token: hosted mode');
  t.notOk('detail' in open.json, 'no token: no detail');
  const plain = await h.call('/health', { scope: null, token: alice });
  t.equal(plain.json.mode, 'hosted');
  t.notOk('detail' in plain.json, 'a token without the operator role: no detail');
  const expired = await h.call('/health', { scope: null, token: await h.idp.mint({ gov_roles: ['gov_operator'] }, { expiresIn: '-5m' }) });
  t.same([expired.status, 'detail' in expired.json], [200, false], 'an expired operator token: still public health, no detail');
  const ops = await h.call('/health', { scope: null, token: operator });
  t.equal(ops.json.mode, 'hosted');
  t.match(ops.json.detail, { event_count: 0, last_seq: 0, index_state: String }, 'a token with gov_operator: detail');
  t.notMatch(JSON.stringify(ops.json), h.url, 'the detail never names the database URL');

  const { answer: created, written } = await h.wrote(t, 'POST /v1/tasks', ['task.created'], () => h.call('/v1/tasks', { token: alice, body: task('t-1') }));
  status(t, created, 201, 'POST /v1/tasks');
  t.same(created.json.event.actor, { type: 'user', id: TEST_SUB }, 'the answer\'s event names the token subject');
  t.same(written[0]?.actor, { type: 'user', id: TEST_SUB }, 'the stored event names the token subject');
  const timeline = await h.call('/v1/tasks/t-1/timeline', { token: alice });
  status(t, timeline, 200, 'the timeline');
  t.same(timeline.json.events.map((e: StoredEvent) => [e.kind, e.actor]), [['task.created', { type: 'user', id: TEST_SUB }]], 'the timeline shows the token subject as the actor');

  const someoneElse = { type: 'user', id: 'someone_else' };
  const asset = (id: string, actor?: unknown) => ({ asset_id: id, name: `Asset ${id}`, purpose: 'Answer billing questions', owner: { type: 'user', id: 'user_olivia' }, deployment_context: 'web', models: [{ provider: 'acme', name: 'c-1' }], ...(actor === undefined ? {} : { actor }) });
  // A governance route's denial is in the access log (docs/governance/exports.md), a task route's is not.
  for (const [label, path, body, logged] of [
    ['POST /v1/tasks', '/v1/tasks', task('t-2', { actor: someoneElse }), null],
    ['POST /v1/tasks as an agent of the same id', '/v1/tasks', task('t-2', { actor: { type: 'agent', id: TEST_SUB } }), null],
    ['POST /v1/governance/assets', '/v1/governance/assets', asset('chat-1', someoneElse), { type: 'asset', id: 'new' }],
    ['POST /v1/team/owner', '/v1/team/owner', { actor: someoneElse }, { type: 'team_member', id: 'new' }],
  ] as const) {
    const { answer, written } = await h.wrote(t, `${label} naming another actor`, logged === null ? [] : ['access.logged'], () => h.call(path, { token: alice, body }));
    problem(t, answer, 403, 'actor_not_token_subject', `${label} naming another actor`);
    if (logged !== null) {
      t.same([written[0]?.actor, written[0]?.payload.action, written[0]?.payload.outcome, written[0]?.payload.resource, written[0]?.payload.reason_code], [{ type: 'user', id: TEST_SUB }, 'attempted', 'denied', logged, 'actor_not_token_subject'], `${label}: the denial is logged under the token subject`);
    }
  }
  const same = await h.wrote(t, 'POST /v1/tasks naming the token subject', ['task.created'], () => h.call('/v1/tasks', { token: alice, body: task('t-2', { actor: { type: 'user', id: TEST_SUB } }) }));
  t.equal(same.answer.status, 201, 'the token subject as the actor is accepted');
  t.same(same.written[0]?.actor, { type: 'user', id: TEST_SUB });
  const gov = await h.wrote(t, 'POST /v1/governance/assets naming the token subject', ['governance.asset.registered', 'access.logged'], () => h.call('/v1/governance/assets', { token: alice, body: asset('chat-1', { type: 'user', id: TEST_SUB }) }));
  status(t, gov.answer, 201, 'the asset naming the token subject');
  t.same(gov.written.map((e) => e.actor), [{ type: 'user', id: TEST_SUB }, { type: 'user', id: TEST_SUB }], 'the registration and its access entry name the token subject');

  // The adapters' raw write names the token subject too.
  const note = (key: string, actor?: unknown) => () =>
    h.call('/v1/events', { token: alice, headers: { 'Idempotency-Key': key }, body: { kind: 'ext.acme.note', ...ACME, payload: { text: 'a note about the deployment pipeline' }, ...(actor === undefined ? {} : { actor }) } });
  const rawOther = await h.wrote(t, 'POST /v1/events naming another actor', [], note('note-1', someoneElse));
  problem(t, rawOther.answer, 403, 'actor_not_token_subject', 'POST /v1/events naming another actor');
  const rawSame = await h.wrote(t, 'POST /v1/events naming the token subject', ['ext.acme.note'], note('note-2', { type: 'user', id: TEST_SUB }));
  status(t, rawSame.answer, 201, 'POST /v1/events naming the token subject');
  t.same(rawSame.written[0]?.actor, { type: 'user', id: TEST_SUB }, 'the raw event names the token subject');
  const rawNone = await h.wrote(t, 'POST /v1/events without an actor', ['ext.acme.note'], note('note-3'));
  status(t, rawNone.answer, 201, 'POST /v1/events without an actor');
  t.same(rawNone.written[0]?.actor, { type: 'user', id: TEST_SUB }, 'without an actor, the token subject acts');

  // One Idempotency-Key, one body, two people: the second must not be answered with the first's write.
  const bob = await h.idp.mint({ sub: 'user_bob', gov_roles: ['contributor'] });
  const keyed = (token: string) => () => h.call('/v1/tasks', { token, headers: { 'Idempotency-Key': 'shared-key-1' }, body: task('t-keyed') });
  const first = await h.wrote(t, 'keyed task by alice', ['task.created'], keyed(alice));
  status(t, first.answer, 201, 'keyed task by alice');
  const again = await h.wrote(t, 'the same key and body by alice', [], keyed(alice));
  t.same([again.answer.status, again.answer.headers.get('idempotent-replayed'), again.answer.json?.event?.event_id], [200, 'true', first.answer.json.event.event_id], "alice's retry is a replay of her write");
  const byBob = await h.wrote(t, 'the same key and body by bob', [], keyed(bob));
  t.comment(`bob, same key and body: ${byBob.answer.status} replayed=${byBob.answer.headers.get('idempotent-replayed')} ${byBob.answer.text.slice(0, 300)}`);
  t.not(byBob.answer.headers.get('idempotent-replayed'), 'true', "another token subject's request under the same key is not answered as a replay of alice's write");
  t.same([byBob.answer.status, byBob.answer.json?.code], [422, 'idempotency_key_reused'], "bob's request under alice's key is another request: the key is refused");

  // The operator transport reads, and is refused customer writes as in the preview.
  const opWrite = await h.wrote(t, 'POST /v1/tasks with an operator token', [], () => h.call('/v1/tasks', { token: operator, body: task('t-3') }));
  problem(t, opWrite.answer, 403, 'operator_transport_rejected', 'a write with the operator role');
  // An auditor reads and exports, and writes nothing (docs/governance/approvals.md §5.1).
  const auditor = await h.idp.mint({ sub: 'user_audrey', gov_roles: ['auditor', 'superuser'] });
  for (const [label, path, body, headers] of [
    ['POST /v1/tasks', '/v1/tasks', task('t-4'), {}],
    ['POST /v1/events', '/v1/events', { kind: 'ext.acme.note', ...ACME, payload: { text: 'an auditor note' } }, { 'Idempotency-Key': 'audit-1' }],
    ['POST /v1/tasks/{id}/checkpoints', '/v1/tasks/t-1/checkpoints', { progress: 'An auditor checkpoint' }, {}],
  ] as const) {
    const { answer } = await h.wrote(t, `${label} by an auditor`, [], () => h.call(path, { token: auditor, body, headers }));
    problem(t, answer, 403, 'role_required', `${label} by an auditor`);
  }
  const auditedAsset = await h.wrote(t, 'POST /v1/governance/assets by an auditor', ['access.logged'], () => h.call('/v1/governance/assets', { token: auditor, body: asset('chat-2') }));
  problem(t, auditedAsset.answer, 403, 'role_required', 'POST /v1/governance/assets by an auditor');
  t.same([auditedAsset.written[0]?.actor, auditedAsset.written[0]?.payload.action, auditedAsset.written[0]?.payload.outcome, auditedAsset.written[0]?.payload.reason_code], [{ type: 'user', id: 'user_audrey' }, 'attempted', 'denied', 'role_required'], "an auditor's governance write is logged as denied");
  status(t, await h.call('/v1/tasks/t-1/timeline', { token: auditor }), 200, 'an auditor reads the timeline');
  const both = await h.idp.mint({ sub: 'user_carl', gov_roles: ['auditor', 'contributor'] });
  const carl = await h.wrote(t, 'POST /v1/tasks by an auditor who is also a contributor', ['task.created'], () => h.call('/v1/tasks', { token: both, body: task('t-5') }));
  status(t, carl.answer, 201, 'auditor and contributor writes');
  const after = await h.call('/health', { scope: null, token: operator });
  t.equal(after.json.detail.event_count, h.seen(), 'the operator detail counts the events written');
  t.match(await verifyDatabaseLog(h.url), { ok: true, event_count: h.seen() });
  t.same(h.errors, [], 'no server error');
});

t.test('roles from the token alone drive separation of duties on the approval flow', async (t) => {
  const h = await hosted(t);
  if (h === null) return;
  const user = (sub: string) => ({ type: 'user', id: sub });
  const requester = await h.idp.mint({ sub: 'user_raj', gov_roles: ['contributor'] });
  const contributor = await h.idp.mint({ sub: 'user_carl', gov_roles: ['contributor'] });
  const reviewer = await h.idp.mint({ sub: 'user_rita', gov_roles: ['governance_reviewer'] });
  const reviewerAsExec = await h.idp.mint({ sub: 'user_rita', gov_roles: ['governance_reviewer', 'accountable_executive'] });
  const executive = await h.idp.mint({ sub: 'user_evan', gov_roles: ['accountable_executive'] });
  const owner = await h.idp.mint({ sub: 'user_olivia', gov_roles: ['accountable_executive'] });

  // No team was bootstrapped nor anyone invited: the tenant's recorded team is empty.
  const { answer: team } = await h.wrote(t, 'GET /v1/team', [], () => h.call('/v1/team', { token: reviewer }));
  status(t, team, 200, 'GET /v1/team');
  t.same([team.json.members, team.json.bootstrapped_at], [[], null], 'no recorded team');
  t.same(team.json.non_claims, [], 'the hosted team view carries no asserted-identity non-claim');

  const reg = await h.wrote(t, 'register', ['governance.asset.registered', 'access.logged'], () =>
    h.call('/v1/governance/assets', { token: requester, body: { asset_id: 'cv-screener', name: 'CV screener', purpose: 'Rank job applications for recruiters', owner: user('user_olivia'), deployment_context: 'HR, internal', models: [{ provider: 'acme', name: 'rank-1' }] } }),
  );
  status(t, reg.answer, 201, 'the asset registered');
  const ev = await h.wrote(t, 'evaluate', ['risk.evaluated', 'approval.requested', 'access.logged'], () => h.call('/v1/risk/evaluations', { token: requester, body: { asset_id: 'cv-screener', risk_inputs: HIGH } }));
  status(t, ev.answer, 201, 'the risk evaluated');
  t.equal(ev.answer.json.evaluation.tier, 'high');
  const id = ev.answer.json.evaluation.approval_id as string;
  t.match(id, /^apr_/, 'a high tier requests an approval');
  t.same(ev.written.find((e) => e.kind === 'approval.requested')?.payload.requested_by, user('user_raj'), 'the requester is the token subject');

  const { answer: shown } = await h.wrote(t, 'GET the approval', [], () => h.call(`/v1/approvals/${id}`, { token: reviewer }));
  status(t, shown, 200, 'GET the approval');
  t.equal(shown.json.status, 'pending');
  t.ok(Array.isArray(shown.json.non_claims), 'the approval answers its non_claims');
  t.notOk(shown.json.non_claims.some((c: string) => IDENTITY_NON_CLAIM.test(c)), 'no "Identities are asserted" non-claim in the hosted service');

  const decide = (token: string, step: number, decision = 'approve') => () => h.call(`/v1/approvals/${id}/decision`, { token, body: { step, decision, reason: 'Reviewed the bias testing evidence' } });
  const denied = async (label: string, token: string, step: number, expected: number, code: string) => {
    const { answer, written } = await h.wrote(t, label, ['access.logged'], decide(token, step));
    problem(t, answer, expected, code, label);
    t.same(written[0]?.payload, {
      action: 'attempted', outcome: 'denied', reason_code: code, resource: { type: 'approval', id }, reason: written[0]?.payload.reason,
      route: { method: 'POST', path_template: '/v1/approvals/{approval_id}/decision' }, status: expected, ip_class: 'loopback',
    }, `${label}: an access.logged entry: attempted, denied, its reason_code, route, status and the caller's address class`);
    return written[0]!;
  };
  const sod3 = await denied('SOD-3: a contributor decides step 1', contributor, 1, 403, 'role_required');
  t.same(sod3.actor, user('user_carl'), 'the denial names the token subject');
  await denied('SOD-3: an executive decides step 1', executive, 1, 403, 'role_required');
  await denied('SOD-1: the requester decides its own', requester, 1, 403, 'self_approval_forbidden');
  const asReq = await h.wrote(t, 'SOD-1 with the requester naming itself', ['access.logged'], () => h.call(`/v1/approvals/${id}/decision`, { token: requester, body: { step: 1, decision: 'approve', reason: 'Mine', actor: user('user_raj') } }));
  problem(t, asReq.answer, 403, 'self_approval_forbidden', 'SOD-1 naming itself');

  const { answer: access, written: viewedLog } = await h.wrote(t, 'GET /v1/access-log', ['access.logged'], () => h.call('/v1/access-log?action=attempted&outcome=denied', { token: reviewer }));
  status(t, access, 200, 'GET /v1/access-log');
  t.same(access.json.entries.map((e: { actor: { id: string }; reason_code: string }) => [e.actor.id, e.reason_code]), [['user_carl', 'role_required'], ['user_evan', 'role_required'], ['user_raj', 'self_approval_forbidden'], ['user_raj', 'self_approval_forbidden']], 'the access log shows each denial under its token subject');
  t.match(viewedLog[0]?.payload, { action: 'viewed', outcome: 'allowed' }, 'the access-log read logged itself');

  const keyedStep1 = (token: string) => () =>
    h.call(`/v1/approvals/${id}/decision`, { token, headers: { 'Idempotency-Key': 'decide-step-1' }, body: { step: 1, decision: 'approve', reason: 'Reviewed the bias testing evidence' } });
  const step1 = await h.wrote(t, 'step 1 by the reviewer', ['approval.decided', 'access.logged'], keyedStep1(reviewer));
  status(t, step1.answer, 201, 'step 1');
  t.equal(step1.answer.json.approval.status, 'pending');
  t.same(step1.written[0]?.actor, user('user_rita'), 'the decision names the reviewer');
  t.notOk(step1.answer.json.approval.non_claims.some((c: string) => IDENTITY_NON_CLAIM.test(c)), 'the decision answer carries no asserted-identity non-claim');
  // The reviewer's own retry replays; a contributor sending the same key and body must still meet SOD-3.
  const retry = await h.wrote(t, "the reviewer's retry of step 1", [], keyedStep1(reviewer));
  t.same([retry.answer.status, retry.answer.headers.get('idempotent-replayed')], [200, 'true'], "the reviewer's retry is a replay");
  const replayed = await h.observe(keyedStep1(contributor));
  t.comment(`a contributor, the reviewer's key and body: ${replayed.answer.status} replayed=${replayed.answer.headers.get('idempotent-replayed')} wrote ${JSON.stringify(replayed.written.map((e) => [e.kind, e.payload.outcome]))}`);
  t.same([replayed.answer.status, replayed.answer.json?.code], [422, 'idempotency_key_reused'], "a contributor reusing the reviewer's key and body sends another request under a used key: refused, never the reviewer's decision");
  t.same(replayed.written, [], 'and nothing is written');
  await denied('SOD-4: the reviewer, now also an executive by token, decides step 2', reviewerAsExec, 2, 409, 'one_person_one_step');
  await denied('SOD-5: the asset owner decides the last step', owner, 2, 403, 'owner_cannot_finalise');
  await denied('SOD-3: a reviewer-only token at step 2', await h.idp.mint({ sub: 'user_ravi', gov_roles: ['governance_reviewer'] }), 2, 403, 'role_required');
  const step2 = await h.wrote(t, 'step 2 by the executive', ['approval.decided', 'access.logged'], decide(executive, 2));
  status(t, step2.answer, 201, 'step 2');
  t.equal(step2.answer.json.approval.status, 'approved');
  t.notOk(step2.answer.json.approval.non_claims.some((c: string) => IDENTITY_NON_CLAIM.test(c)), 'no asserted-identity non-claim once approved');
  const { answer: assetNow } = await h.wrote(t, 'GET the asset', [], () => h.call('/v1/governance/assets/cv-screener', { token: reviewer }));
  t.same([assetNow.status, assetNow.json.status, assetNow.json.in_use_allowed], [200, 'approved', true], 'the asset is approved');
  const exported = await h.wrote(t, 'GET /v1/exports/approvals', ['access.logged'], () => h.call('/v1/exports/approvals', { token: reviewer }));
  status(t, exported.answer, 200, 'GET /v1/exports/approvals');
  t.same(exported.answer.json.records.map((a: { approval_id: string; status: string; non_claims: string[] }) => [a.approval_id, a.status, a.non_claims]), [[id, 'approved', []]], 'the exported approval, with no non-claim');
  t.notOk(exported.answer.json.non_claims.some((c: string) => IDENTITY_NON_CLAIM.test(c)), 'the approvals export carries no asserted-identity non-claim');
  const decided = (await h.events()).filter((e) => e.kind === 'approval.decided');
  t.same(decided.map((e) => [e.payload.step, e.actor]), [[1, user('user_rita')], [2, user('user_evan')]], 'two decisions, by two token subjects');
  t.same((await h.wrote(t, 'GET /v1/team again', [], () => h.call('/v1/team', { token: reviewer }))).answer.json.members, [], 'still no recorded team: the roles came from the tokens');

  // Cross-scope: another tenant's token and headers see nothing of acme's.
  const stranger = await h.idp.mint({ sub: 'user_zed', gov_tenant: 'other-co', gov_roles: ['owner', 'governance_reviewer'] });
  for (const [label, path, body] of [
    ['the asset', '/v1/governance/assets/cv-screener', undefined],
    ['its risk', '/v1/governance/assets/cv-screener/risk', undefined],
    ['the approval', `/v1/approvals/${id}`, undefined],
    ['a decision', `/v1/approvals/${id}/decision`, { step: 2, decision: 'approve', reason: 'x' }],
  ] as const) {
    const { answer, written } = await h.wrote(t, `other tenant: ${label}`, ['access.logged'], () => h.call(path, { token: stranger, scope: OTHER, ...(body === undefined ? {} : { body }) }));
    problem(t, answer, 404, 'not_found_in_scope', `other tenant: ${label}`);
    t.same([written[0]?.tenant_id, written[0]?.payload.outcome], ['other-co', 'denied'], `other tenant: ${label}: the denial is logged in the caller's tenant`);
  }
  const { answer: list } = await h.wrote(t, 'other tenant: the list', [], () => h.call('/v1/governance/assets', { token: stranger, scope: OTHER }));
  t.same([list.status, list.json.assets], [200, []], "another tenant's list is empty");
  const { answer: sameTenantOtherWs } = await h.wrote(t, 'another workspace: the asset', ['access.logged'], () => h.call('/v1/governance/assets/cv-screener', { token: reviewer, scope: { ...ACME, workspace_id: 'ws-2' } }));
  problem(t, sameTenantOtherWs, 404, 'not_found_in_scope', 'the same tenant, another workspace');

  // The log holds exactly the events the requests wrote, and verifies.
  const log = await verifyDatabaseLog(h.url);
  const all = await h.events();
  t.match(log, { ok: true, first_bad_seq: null, problem: null }, 'verifyDatabaseLog: ok');
  t.equal(log.event_count, all.length, 'event_count is the table\'s');
  t.equal(log.head.seq, all.length);
  t.ok(log.head.agrees, 'the head row agrees');
  t.equal(log.event_count, h.seen(), 'every event in the log is one this test saw written');
  t.same(h.errors, [], 'no server error');
});

t.test("a session's provenance names the binding's token subject, with no preview identity non-claim", async (t) => {
  const h = await hosted(t);
  if (h === null) return;
  const alice = await h.idp.mint({ gov_roles: ['contributor'] });
  const bind = { session_id: 'sess-1', principal: { type: 'service_account', id: 'sa-ci' }, agent: 'intake-agent 0.4.1', transport: 'stdio' };
  status(t, (await h.wrote(t, 'POST /v1/sessions', ['session.bound', 'access.logged'], () => h.call('/v1/sessions', { token: alice, body: bind }))).answer, 201, 'POST /v1/sessions');
  const { answer } = await h.wrote(t, 'GET the provenance', ['access.logged'], () => h.call('/v1/sessions/sess-1/provenance', { token: alice }));
  status(t, answer, 200, 'GET /v1/sessions/{session_id}/provenance');
  t.same(answer.json.token_principal, { type: 'user', id: TEST_SUB, source: 'token' }, 'the verified subject that bound the session');
  t.same(answer.json.principal, { type: 'service_account', id: 'sa-ci', source: 'asserted' }, 'the principal the body named stays asserted');
  t.notOk(answer.json.non_claims.some((c: string) => /local preview/i.test(c)), "no preview non-claim: the hosted service authenticated who acted");
  t.ok(answer.json.non_claims.some((c: string) => /subjects of the OIDC tokens this service verified/.test(c)), 'the hosted non-claim instead');
  t.same(h.errors, [], 'no server error');
});

t.test('routes the hosted service does not serve: the console and the forge API', async (t) => {
  const h = await hosted(t);
  if (h === null) return;
  const token = await h.idp.mint();
  const health = await h.call('/health', { scope: null });
  const paths: string[] = health.json.routes.map((r: { path: string }) => r.path);
  t.ok(paths.includes('/v1/tasks') && paths.includes('/v1/approvals/{approval_id}/decision'), 'the governance API is listed');
  t.same(paths.filter((p) => p.startsWith('/console') || p.startsWith('/admin/console')), [], 'no console route is listed');
  const forge = new Set(QUOTA_ROUTES.map((r) => r.path));
  t.ok(forge.has('/api/v1/admin/quota/groups'), 'the forge quota route exists in the route table');
  t.same(paths.filter((p) => forge.has(p) || p.startsWith('/api/') || p.startsWith('/admin/')), [], 'no forge route is listed');
  const openapi = await h.call('/openapi.json', { scope: null });
  t.equal(openapi.status, 200);
  t.same(Object.keys(openapi.json.paths).filter((p) => p.startsWith('/console') || p.startsWith('/api/') || p.startsWith('/admin/')), [], 'nor in the OpenAPI document');

  for (const [method, path, withToken] of [
    ['GET', '/console', false],
    ['GET', '/console', true],
    ['GET', '/console/login', false],
    ['GET', '/console/assets/app.js', false],
    ['GET', '/api/v1/admin/quota/groups', false],
    ['GET', '/api/v1/admin/quota/groups', true],
    ['GET', '/admin/quota/groups', true],
    ['POST', '/admin/console/login-codes', true],
  ] as const) {
    const { answer } = await h.wrote(t, `${method} ${path}`, [], () => h.call(path, { method, scope: null, ...(withToken ? { token } : {}), ...(method === 'POST' ? { body: {} } : {}) }));
    problem(t, answer, 404, 'route_not_found', `${method} ${path}${withToken ? ' with a token' : ''}`);
  }
  const unauth = await h.call('/admin/console/login-codes', { method: 'POST', scope: null, body: {} });
  problem(t, unauth, 404, 'route_not_found', 'not served without a token either');
  t.match(await verifyDatabaseLog(h.url), { ok: true, event_count: 0 }, 'nothing written, the log intact');
  t.same(h.errors, [], 'no server error');
});
