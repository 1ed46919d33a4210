import { openServiceDeps } from './src/deps.ts';
import { closeTask, createTask } from './src/service/tasks-service.ts';
import { rmSync } from 'node:fs';
rmSync('/tmp/st2', {recursive:true, force:true});
const d = await openServiceDeps({ dataDir: '/tmp/st2' });
const scope = { tenant_id: 'ta', workspace_id: 'ws', project_id: 'pp' };
const ctx = { scope, transport: 'customer' as const, idempotencyKey: null, requestSha256: 'sha256:' + 'a'.repeat(64) };
await createTask(d, ctx, { task_id: 'task-1', title: 'x', session_id: 's1' });
const evidence = { artifact_id: 'ci-run-77', uri: 'https://ci.internal.test/runs/77/log', evidence_type: 'log', sha256: 'a'.repeat(64), confidence: 'claimed', redaction: 'none', content_trust: 'trusted_internal', captured_at: '2026-11-01T09:00:00Z' };
try {
console.log(await closeTask(d, ctx, 'task-1', { outcome: 'completed', summary: 'Rotated the signing key of the billing exporter.', verification: ['Ran the exporter test suite: 41 of 41 pass'], evidence_refs: [evidence], context_lines: ['The billing exporter reads its key from vault path billing'], future_agent_traps: ['Rotating the key without re-signing pending exports breaks'] }));
} catch (e) { console.error(e); }
await d.store.close();
