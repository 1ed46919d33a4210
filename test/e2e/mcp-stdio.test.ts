// `gov mcp` as a real child process against a real preview (served in this process): the SDK's stdio client completes
// create → checkpoint → closeout, and a raw pipe proves stdout carries JSON-RPC 2.0 and nothing else.
import t, { type Test } from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { spawn } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PreviewHandle } from '../../src/deps.ts';
import { inProcessPreview } from '../fixtures/served-app.ts';
import { SCOPE_A, tempDir } from '../fixtures/test-app.ts';
import { GOV_BIN, runGov } from '../fixtures/spawn-preview.ts';

const scopeEnv = { GOV_TENANT_ID: SCOPE_A.tenant_id, GOV_WORKSPACE_ID: SCOPE_A.workspace_id, GOV_PROJECT_ID: SCOPE_A.project_id };
const baseEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };

const evidence = {
  artifact_id: 'build-314',
  uri: 'https://ci.internal.test/builds/314',
  evidence_type: 'artifact',
  sha256: 'c'.repeat(64),
  confidence: 'claimed',
  redaction: 'none',
  content_trust: 'trusted_internal',
  captured_at: '2026-11-01T09:00:00Z',
};

async function preview(t: Test): Promise<{ p: PreviewHandle; tokenFile: string; cwd: string; dataDir: string }> {
  // The preview runs in this process; `gov mcp` is the real child process under test.
  const p = await inProcessPreview(t, tempDir(t, 'gov-mcp-preview-'));
  const secrets = tempDir(t, 'gov-mcp-secret-');
  const tokenFile = join(secrets, 'token');
  writeFileSync(tokenFile, `${p.tokens.customer}\n`, { mode: 0o600 });
  // The front door's own working dir and data dir stay empty: it has no business there.
  return { p, tokenFile, cwd: tempDir(t, 'gov-mcp-cwd-'), dataDir: tempDir(t, 'gov-mcp-data-') };
}

t.test('the SDK stdio client runs the task lifecycle through gov mcp', async (t) => {
  const { p, tokenFile, cwd, dataDir } = await preview(t);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [GOV_BIN, 'mcp', '--base-url', p.baseUrl, '--token-file', tokenFile],
    env: { ...baseEnv, ...scopeEnv, GOV_DATA_DIR: dataDir },
    cwd,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr!.on('data', (d) => (stderr += d));
  // Set before connect: the client chains these, so every parsed message and every unparsable line is seen.
  const seen: unknown[] = [];
  const transportErrors: Error[] = [];
  transport.onmessage = (message) => seen.push(message);
  transport.onerror = (err) => transportErrors.push(err);
  const client = new Client({ name: 'gov-e2e', version: '1.0.0' });
  await client.connect(transport);
  t.teardown(() => client.close());

  t.match(client.getInstructions(), /access_policy=api_only_no_local_fallback/);
  t.equal((await client.listTools()).tools.length, 10);
  const call = async (name: string, args: Record<string, unknown>) => {
    const res = await client.callTool({ name, arguments: args });
    return { isError: res.isError === true, structured: res.structuredContent as any, text: (res.content as { text: string }[])[0]!.text };
  };
  const created = await call('task_create', { task_id: 'task-e2e', title: 'Pin the base image of the release builder', session_id: 'sess-e2e' });
  t.equal(created.structured.status, 201, 'created');
  const cp = await call('task_checkpoint', { task_id: 'task-e2e', progress: 'Base image pinned by digest in the builder Dockerfile' });
  t.equal(cp.structured.status, 201, 'checkpoint written');
  const failed = await call('task_closeout', { task_id: 'task-e2e', outcome: 'completed', summary: 'Pinned the base image.', verification: ['Release build 314 succeeded with the pinned digest'], evidence_refs: [evidence], context_lines: ['TBD'], future_agent_traps: ['TBD'] });
  t.equal(failed.isError, true);
  t.equal(failed.structured.status, 422);
  for (const prompt of failed.structured.body.repair_prompt) t.ok(failed.text.includes(prompt), 'repair prompt in the text');
  const closed = await call('task_closeout', {
    task_id: 'task-e2e',
    outcome: 'completed',
    summary: 'Pinned the base image of the release builder by digest.',
    verification: ['Release build 314 succeeded with the pinned digest'],
    evidence_refs: [evidence],
    context_lines: ['The builder Dockerfile lives in tools/release/Dockerfile and pins by sha256 digest'],
    future_agent_traps: ['Renovate rewrites the digest weekly; the pin comment must stay on the FROM line'],
  });
  t.equal(closed.isError, false, 'closed after following the prompts');
  t.equal(closed.structured.body.task.status, 'closed');
  const timeline = await call('task_timeline', { task_id: 'task-e2e' });
  t.same(timeline.structured.body.events.map((e: any) => e.kind), ['task.created', 'task.checkpoint.written', 'task.closed']);

  await client.close();
  t.same(transportErrors, [], 'every stdout line parsed as a JSON-RPC message');
  t.equal(seen.length, 7, 'one message per request (initialize, tools/list, five calls), nothing else');
  t.ok(seen.every((m: any) => m.jsonrpc === '2.0'), 'all JSON-RPC 2.0');
  t.match(stderr, /gov mcp: serving tools on stdio for http:\/\/127\.0\.0\.1:\d+/, 'the start-up line goes to stderr');
  t.notOk(stderr.includes(p.tokens.customer), 'the token is never logged');
  t.same(readdirSync(dataDir), [], 'nothing created in the data dir');
  t.same(readdirSync(cwd), [], 'nothing created in the working dir');
});

t.test('raw stdout: line-delimited JSON-RPC 2.0 only, and a clean exit when stdin ends', async (t) => {
  const { p, tokenFile, cwd } = await preview(t);
  const child = spawn(process.execPath, [GOV_BIN, 'mcp', '--base-url', p.baseUrl, '--token-file', tokenFile], { cwd, env: { ...baseEnv, ...scopeEnv }, stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const answered = new Promise<void>((resolve) => {
    child.stdout.on('data', (d) => {
      out += d;
      if ((out.match(/"id":\s*\d+/g) ?? []).length >= 4) resolve();
    });
  });
  const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
  send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'service_health', arguments: {} } });
  send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'task_timeline', arguments: { task_id: 'no-such-task' } } });
  await answered;
  child.stdin.end();
  t.equal(await exited, 0, 'exits 0 when stdin ends');

  t.ok(out.endsWith('\n'), 'stdout ends with a newline');
  const lines = out.slice(0, -1).split('\n');
  const messages = lines.map((line) => JSON.parse(line));
  t.same(messages.map((m) => m.id), [1, 2, 3, 4], 'one answer per request, nothing else');
  for (const m of messages) {
    t.equal(m.jsonrpc, '2.0');
    t.ok('result' in m !== 'error' in m, 'a result or an error');
  }
  t.equal(messages[0].result.serverInfo.name, 'gov');
  t.equal(messages[2].result.structuredContent.access_policy, 'api_only_no_local_fallback');
  t.equal(messages[3].result.isError, true);
  t.equal(messages[3].result.structuredContent.body.code, 'task_not_found');
  t.notOk(err.includes(p.tokens.customer));
});

t.test('nothing configured: exit 3 with one sentence on stderr, nothing on stdout', async (t) => {
  const empty = tempDir(t, 'gov-mcp-empty-');
  const res = await runGov(['mcp'], { cwd: empty, env: { GOV_DATA_DIR: join(empty, 'nowhere'), GOV_BASE_URL: '', GOV_TOKEN: '' } });
  t.equal(res.code, 3);
  t.equal(res.stdout, '');
  t.match(res.stderr, /gov preview start/);
  t.same(readdirSync(empty), [], 'the missing data dir is not created');
  const help = await runGov(['mcp', '--help']);
  t.equal(help.code, 0);
  t.match(help.stdout, /--token-file <file>/);
  t.match(help.stdout, /\$ gov mcp/);
});
