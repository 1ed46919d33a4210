// The hosted service's clients end to end: the real `gov mcp` and `gov packet verify` child
// processes against `gov serve` (src/hosted.ts, served in this process) on a real PostgreSQL
// database with real signed JWTs from a test identity provider (test/fixtures/oidc.ts). The MCP
// front door acts as the token's subject and explains an expired token; a packet the hosted
// service assembles verifies online and a tampered copy does not; a preview promoted with
// importDataDir keeps its packets verifiable online, its keys served by the hosted /v1/keys.
// The server answers from this very process: every child runs asynchronously (never *Sync).
// Without GOV_TEST_DATABASE_URL every test shows a SKIP line (test/fixtures/postgres.ts).
import t, { type Test } from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StoredEvent } from '../../src/domain/event.ts';
import { HOSTED_NON_CLAIMS } from '../../src/domain/packet-assembly.ts';
import { startHosted, type HostedHandle } from '../../src/hosted.ts';
import { importDataDir, migrateDatabase } from '../../src/store/pg/pg-log-tools.ts';
import { TEST_SUB, testIssuer, type TestIssuer } from '../fixtures/oidc.ts';
import { testDatabase } from '../fixtures/postgres.ts';
import { inProcessPreview } from '../fixtures/served-app.ts';
import { GOV_BIN, runGov, scopeHeaders } from '../fixtures/spawn-preview.ts';
import { answerOf, tempDir } from '../fixtures/test-app.ts';
import { closeout, evidence } from '../fixtures/bodies.ts';

type Scope = { tenant_id: string; workspace_id: string; project_id: string };
const ACME: Scope = { tenant_id: 'acme', workspace_id: 'ws-1', project_id: 'proj-1' };
const scopeEnv = (s: Scope) => ({ GOV_TENANT_ID: s.tenant_id, GOV_WORKSPACE_ID: s.workspace_id, GOV_PROJECT_ID: s.project_id });
const baseEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
const HIGH = { data_sensitivity: 3, decision_impact: 3, autonomy: 2, vendor_maturity: 2, prohibited_practice: 0 };

type Answer = { status: number; json: any; text: string };
type Api = (method: string, path: string, body?: unknown) => Promise<Answer>;

/** fetch against a base URL with a bearer token and a scope; the answer's status, JSON and text. */
function apiOf(baseUrl: string, token: string, scope: Scope): Api {
  return async (method, path, body) => {
    const { status, json, text } = await answerOf(
      await fetch(`${baseUrl}${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, ...scopeHeaders(scope), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
    return { status, json, text };
  };
}

/** A fresh migrated database, the identity provider and the hosted server on it; null (after a SKIP line) without PostgreSQL. */
async function hosted(t: Test, prepare?: (url: string) => Promise<void>): Promise<{ url: string; idp: TestIssuer; server: HostedHandle; errors: string[] } | null> {
  const url = await testDatabase(t);
  if (url === null) return null;
  await migrateDatabase(url);
  if (prepare) await prepare(url);
  const idp = await testIssuer();
  t.teardown(() => idp.close());
  const errors: string[] = [];
  const server = await startHosted({ databaseUrl: url, host: '127.0.0.1', port: 0, oidc: idp.config() }, { warn: () => {}, logError: (line) => void errors.push(line) });
  // Registered after testDatabase's drop, so it runs first: the pool is closed before the drop.
  t.teardown(() => server.stop());
  return { url, idp, server, errors };
}

/** A file holding only the token (a JWT), as gov mcp and gov packet verify take it. */
function tokenFileOf(t: Test, token: string): string {
  const file = join(tempDir(t, 'gov-hosted-token-'), 'token');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return file;
}

/** `gov mcp --base-url --token-file` as a real child process, and the SDK's stdio client connected to it. */
async function mcpClient(t: Test, baseUrl: string, tokenFile: string, scope: Scope) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [GOV_BIN, 'mcp', '--base-url', baseUrl, '--token-file', tokenFile],
    env: { ...baseEnv, ...scopeEnv(scope), GOV_DATA_DIR: tempDir(t, 'gov-hosted-mcp-data-') },
    cwd: tempDir(t, 'gov-hosted-mcp-cwd-'),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr!.on('data', (d) => (stderr += d));
  const client = new Client({ name: 'gov-hosted-e2e', version: '1.0.0' });
  await client.connect(transport);
  t.teardown(() => client.close());
  const call = async (name: string, args: Record<string, unknown>) => {
    const res = await client.callTool({ name, arguments: args });
    return { isError: res.isError === true, structured: res.structuredContent as any, text: (res.content as { text: string }[])[0]!.text };
  };
  return { client, call, stderr: () => stderr };
}

/** `gov packet verify FILE --base-url --token-file --json`, asynchronously (the server is in this process). */
async function verifyOnline(file: string, baseUrl: string, tokenFile: string) {
  const res = await runGov(['packet', 'verify', file, '--base-url', baseUrl, '--token-file', tokenFile, '--json'], { env: { GOV_TOKEN: '', GOV_BASE_URL: '' } });
  let report: any = null;
  try {
    report = JSON.parse(res.stdout);
  } catch {
    report = null;
  }
  return { ...res, report };
}

/** Every check of a verification report with its status: all must be 'pass'. */
function failedChecks(report: any): string[] {
  return Object.entries((report?.checks ?? {}) as Record<string, { status: string; code?: string; detail?: string }>)
    .filter(([, c]) => c.status !== 'pass')
    .map(([name, c]) => `${name}: ${c.status} ${c.code ?? ''} ${c.detail ?? ''}`);
}

/** The packet's JSON text with the last byte of `needle` (an ASCII digit inside a string value) changed: the JSON and its schema still hold. */
function tamperOneByte(text: string, needle: string): string {
  const at = text.indexOf(needle);
  if (at < 0) throw new Error(`the packet text does not hold ${needle}`);
  const i = at + needle.length - 1;
  const digit = Number(text[i]);
  if (!Number.isInteger(digit)) throw new Error(`${needle} does not end with a digit`);
  return `${text.slice(0, i)}${(digit + 1) % 10}${text.slice(i + 1)}`;
}

t.test('gov mcp against gov serve: a real MCP client acts as the token subject; an expired token is explained', async (t) => {
  const h = await hosted(t);
  if (h === null) return;
  const token = await h.idp.mint({ gov_tenant: ACME.tenant_id, gov_roles: ['contributor'] });
  const api = apiOf(h.server.baseUrl, token, ACME);
  const mcp = await mcpClient(t, h.server.baseUrl, tokenFileOf(t, token), ACME);

  t.match(mcp.client.getInstructions(), /access_policy=api_only_no_local_fallback/);
  const tools = (await mcp.client.listTools()).tools.map((tool) => tool.name);
  t.ok(tools.includes('task_create') && tools.includes('task_timeline') && tools.includes('service.risk.evaluate'), `tools listed: ${tools.join(', ')}`);

  const health = await mcp.call('service_health', {});
  t.equal(health.isError, false, 'service_health answers');
  t.equal(health.structured.body.mode, 'hosted', 'the front door talks to the hosted service');

  // A write tool: the event it wrote names the token subject.
  const created = await mcp.call('task_create', { task_id: 'task-mcp', title: 'Pin the base image of the release builder', session_id: 'sess-mcp' });
  t.equal(created.isError, false, created.text.slice(0, 400));
  t.equal(created.structured.status, 201, 'task_create: 201');
  t.same(created.structured.body.event.actor, { type: 'user', id: TEST_SUB }, "task_create's event names the token subject");
  const cp = await mcp.call('task_checkpoint', { task_id: 'task-mcp', progress: 'Base image pinned by digest in the builder Dockerfile' });
  t.equal(cp.structured.status, 201, 'task_checkpoint: 201');

  // A read tool.
  const timeline = await mcp.call('task_timeline', { task_id: 'task-mcp' });
  t.equal(timeline.isError, false);
  t.same(timeline.structured.body.events.map((e: StoredEvent) => e.kind), ['task.created', 'task.checkpoint.written'], 'task_timeline reads what the tools wrote');

  // The risk tool on an asset registered over HTTP.
  const reg = await api('POST', '/v1/governance/assets', {
    asset_id: 'cv-screener',
    name: 'CV screener',
    purpose: 'Rank job applications for recruiters',
    owner: { type: 'user', id: 'user_olivia' },
    deployment_context: 'HR, internal',
    models: [{ provider: 'acme', name: 'rank-1' }],
  });
  t.equal(reg.status, 201, `the asset registered over HTTP: ${reg.text.slice(0, 300)}`);
  const risk = await mcp.call('service.risk.evaluate', { asset_id: 'cv-screener', risk_inputs: HIGH });
  t.equal(risk.isError, false, risk.text.slice(0, 400));
  t.equal(risk.structured.status, 201, 'service.risk.evaluate: 201');
  t.equal(risk.structured.body.evaluation?.tier, 'high', 'the server computed the tier');
  t.match(risk.structured.body.event, { event_id: String, seq: Number, event_hash: String }, "the evaluation's event binding");

  // Read back over HTTP: the stored events name the token subject.
  const http = await api('GET', '/v1/tasks/task-mcp/timeline');
  t.equal(http.status, 200);
  t.same(
    http.json.events.map((e: StoredEvent) => [e.kind, e.actor]),
    [
      ['task.created', { type: 'user', id: TEST_SUB }],
      ['task.checkpoint.written', { type: 'user', id: TEST_SUB }],
    ],
    'the HTTP timeline shows every MCP write under the token subject',
  );
  // The risk evaluation's events (risk.evaluated, approval.requested, access.logged) read back over HTTP.
  const approvalId = risk.structured.body.evaluation?.approval_id as string;
  const approval = await api('GET', `/v1/approvals/${approvalId}`);
  t.equal(approval.status, 200, 'the approval the evaluation requested');
  t.same(approval.json?.requested_by, { type: 'user', id: TEST_SUB }, 'approval.requested names the token subject as the requester');
  const access = await api('GET', '/v1/access-log');
  t.equal(access.status, 200, 'the access log');
  const evaluationId = risk.structured.body.evaluation?.evaluation_id as string;
  const logged = (access.json?.entries ?? []).find((e: { resource: { type: string; id: string } }) => e.resource.type === 'risk_evaluation' && e.resource.id === evaluationId);
  t.match(logged, { seq: risk.structured.body.event.seq + 2, actor: { type: 'user', id: TEST_SUB }, transport: 'customer', action: 'created', outcome: 'allowed' }, "the evaluation's access.logged event names the token subject");
  // Another tenant's scope argument: the token does not grant it.
  const other = await mcp.call('task_timeline', { task_id: 'task-mcp', tenant_id: 'other-co' });
  t.equal(other.isError, true, 'a scope the token does not grant is an error result');
  t.equal(other.structured.status, 403, `another tenant: 403 (${other.structured.body?.code})`);

  await mcp.client.close();
  t.notOk(mcp.stderr().includes(token), 'the token is never logged');

  // An expired token: the tool answers an error result naming token_expired and the catalogue's advice.
  const expired = await h.idp.mint({ gov_tenant: ACME.tenant_id, gov_roles: ['contributor'] }, { expiresIn: '-5m' });
  const stale = await mcpClient(t, h.server.baseUrl, tokenFileOf(t, expired), ACME);
  for (const [tool, args] of [
    ['task_timeline', { task_id: 'task-mcp' }],
    ['task_create', { task_id: 'task-late', title: 'A task with an expired token', session_id: 'sess-late' }],
  ] as const) {
    const res = await stale.call(tool, args);
    t.equal(res.isError, true, `${tool} with an expired token: an error result`);
    t.equal(res.structured.status, 401, `${tool}: 401`);
    t.equal(res.structured.error?.code, 'token_expired', `${tool}: the error code is token_expired`);
    t.match(res.text, /token_expired/, `${tool}: the text names token_expired`);
    t.match(res.text, /The bearer token has expired: give gov mcp a fresh token from your identity provider\./, `${tool}: the text carries the catalogue's mcp advice`);
  }
  await stale.client.close();
  t.notOk(stale.stderr().includes(expired), 'the expired token is never logged');
  t.equal((await api('GET', '/v1/tasks/task-late/timeline')).status, 404, 'the expired token wrote nothing');
  t.same(h.errors, [], 'no server error');
});

t.test('a Proof Packet issued by the hosted service verifies online with gov packet verify; a one-byte tamper fails', async (t) => {
  const h = await hosted(t);
  if (h === null) return;
  const token = await h.idp.mint({ gov_tenant: ACME.tenant_id, gov_roles: ['owner'] });
  const api = apiOf(h.server.baseUrl, token, ACME);
  const tokenFile = tokenFileOf(t, token);
  const dir = tempDir(t, 'gov-hosted-packet-');

  t.equal((await api('POST', '/v1/tasks', { task_id: 'task-1', title: 'Pin the base image of the release builder', session_id: 'sess-1' })).status, 201, 'task created');
  t.equal((await api('POST', '/v1/tasks/task-1/checkpoints', { progress: 'Base image pinned by digest in the builder Dockerfile', evidence_refs: [evidence] })).status, 201, 'checkpoint with evidence');
  const closed = await api('POST', '/v1/tasks/task-1/closeout', closeout);
  t.equal(closed.status, 201, `closed: ${closed.text.slice(0, 300)}`);
  const assembled = await api('POST', '/v1/proof-packets', { task_ids: ['task-1'], integrity_class: 'signed_and_receipted' });
  t.equal(assembled.status, 201, `packet assembled: ${assembled.text.slice(0, 400)}`);
  const packet = assembled.json;
  t.equal(packet.integrity?.integrity_class, 'signed_and_receipted', 'signed and receipted');
  t.ok(packet.receipt_id ?? packet.integrity?.receipt_id, 'the packet names its receipt');
  t.same(packet.non_claims.slice(0, 3), HOSTED_NON_CLAIMS, 'the hosted non-claims: authenticated callers, a software key, one shared database');
  t.notOk(packet.non_claims.some((c: string) => /local preview/.test(c)), 'never the preview\'s');

  const file = join(dir, 'packet.json');
  const text = JSON.stringify(packet, null, 2);
  writeFileSync(file, text);
  const ok = await verifyOnline(file, h.server.baseUrl, tokenFile);
  t.equal(ok.code, 0, `gov packet verify exits 0: ${ok.stderr}${ok.code === 0 ? '' : ok.stdout}`);
  t.match(ok.report, { mode: 'online', ok: true, current: true, latest_status: packet.packet_status }, 'verified online; the hosted latest issue is this one');
  t.same(failedChecks(ok.report), [], 'every check passes');
  t.ok(['packet_hash', 'signature', 'hash_chain', 'receipt'].every((name) => ok.report?.checks?.[name]?.status === 'pass'), 'packet_hash, signature, hash_chain and receipt all pass');

  // One byte of an evidence reference's artifact id changed: the JSON and the schema still hold, the hash does not.
  const tamperedFile = join(dir, 'tampered.json');
  const tamperedText = tamperOneByte(text, '"artifact_id": "ci-run-91');
  t.equal(Buffer.byteLength(tamperedText), Buffer.byteLength(text), 'same length');
  t.equal([...Buffer.from(tamperedText)].filter((b, i) => b !== Buffer.from(text)[i]).length, 1, 'exactly one byte differs');
  writeFileSync(tamperedFile, tamperedText);
  const bad = await verifyOnline(tamperedFile, h.server.baseUrl, tokenFile);
  t.equal(bad.code, 1, `a tampered packet: exit 1 (${bad.stderr.trim()})`);
  t.match(bad.report, { mode: 'online', ok: false, checks: { packet_hash: { status: 'fail' } } }, 'the packet hash fails');

  // A token for another tenant cannot verify it (the packet names its own scope).
  const outsider = tokenFileOf(t, await h.idp.mint({ gov_tenant: 'other-co' }));
  const refused = await verifyOnline(file, h.server.baseUrl, outsider);
  t.not(refused.code, 0, `another tenant's token: not verified (exit ${refused.code}: ${refused.stderr.trim()})`);
  t.same(h.errors, [], 'no server error');
});

t.test("a promoted preview's packets still verify online against the hosted service", async (t) => {
  const dataDir = tempDir(t, 'gov-hosted-promote-');
  const p = await inProcessPreview(t, dataDir);
  const papi = apiOf(p.baseUrl, p.tokens.customer, ACME);
  t.equal((await papi('POST', '/v1/tasks', { task_id: 'task-p', title: 'Pin the base image of the release builder', session_id: 'sess-p' })).status, 201, 'preview: task created');
  t.equal((await papi('POST', '/v1/tasks/task-p/checkpoints', { progress: 'Base image pinned by digest in the builder Dockerfile', evidence_refs: [evidence] })).status, 201, 'preview: checkpoint');
  const pclosed = await papi('POST', '/v1/tasks/task-p/closeout', closeout);
  t.equal(pclosed.status, 201, `preview: closed ${pclosed.text.slice(0, 300)}`);
  const assembled = await papi('POST', '/v1/proof-packets', { task_ids: ['task-p'], integrity_class: 'signed_and_receipted' });
  t.equal(assembled.status, 201, `preview: packet assembled ${assembled.text.slice(0, 300)}`);
  const packet = assembled.json;
  const previewKeys = await papi('GET', '/v1/keys');
  t.equal(previewKeys.status, 200);
  const dir = tempDir(t, 'gov-hosted-promote-files-');
  const file = join(dir, 'packet.json');
  writeFileSync(file, JSON.stringify(packet));
  await p.stop();

  let imported: Awaited<ReturnType<typeof importDataDir>> | null = null;
  const h = await hosted(t, async (url) => {
    imported = await importDataDir(dataDir, url);
  });
  if (h === null) return;
  t.match(imported, { keys_copied: true }, "the preview's keys were copied");
  const events = (imported as { events: number } | null)?.events ?? 0;
  t.ok(events >= 4, `imported ${events} events`);

  const token = await h.idp.mint({ gov_tenant: ACME.tenant_id, gov_roles: ['auditor'] });
  const hapi = apiOf(h.server.baseUrl, token, ACME);
  const hostedKeys = await hapi('GET', '/v1/keys');
  t.equal(hostedKeys.status, 200);
  t.same(hostedKeys.json, previewKeys.json, "the hosted /v1/keys answers exactly the preview's");

  const online = await verifyOnline(file, h.server.baseUrl, tokenFileOf(t, token));
  t.equal(online.code, 0, `the preview's packet verifies online against the hosted service: ${online.stderr}${online.code === 0 ? '' : online.stdout}`);
  t.match(online.report, { mode: 'online', ok: true, current: true, latest_status: packet.packet_status }, "verified online; the hosted service knows the preview's issue of the packet");
  const tampered = join(dir, 'tampered.json');
  writeFileSync(tampered, tamperOneByte(JSON.stringify(packet), '"artifact_id":"ci-run-91'));
  const bad = await verifyOnline(tampered, h.server.baseUrl, tokenFileOf(t, token));
  t.equal(bad.code, 1, `the preview's packet with one byte changed: exit 1 against the hosted service (${bad.stderr.trim()})`);
  t.match(bad.report, { ok: false, checks: { packet_hash: { status: 'fail' } } });
  t.same(failedChecks(online.report), [], 'every check passes');
  t.same(h.errors, [], 'no server error');
});
