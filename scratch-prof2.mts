import { appDepsOf, openServiceDeps, newTokens } from './src/deps.ts';
import { createApp } from './src/server/create-app.ts';
import { rmSync } from 'node:fs';
rmSync('/tmp/prof', { recursive: true, force: true });
const s = await openServiceDeps({ dataDir: '/tmp/prof' });
const tokens = newTokens();
const app = createApp(appDepsOf(s, { tokens, port: () => 7337 }));
const headers = { Host: '127.0.0.1:7337', Authorization: `Bearer ${tokens.customer}`, 'Content-Type': 'application/json', 'X-Tenant-Id': 't1', 'X-Workspace-Id': 'w1', 'X-Project-Id': 'p1' };
const body = (i: number) => JSON.stringify({ kind: 'ext.acme.note', tenant_id: 't1', workspace_id: 'w1', project_id: 'p1', payload: { text: `bench note ${i} about the deployment` } });
const N = Number(process.env.N ?? 2000);
const C = Number(process.env.C ?? 1);
const t0 = performance.now();
let i = 0;
await Promise.all(Array.from({ length: C }, async () => {
  while (i < N) {
    const k = i++;
    const res = await app.request('http://127.0.0.1:7337/v1/events', { method: 'POST', headers: { ...headers, 'Idempotency-Key': `k${k}` }, body: body(k) });
    if (res.status !== 201) throw new Error(String(res.status));
  }
}));
const ms = performance.now() - t0;
console.error(`C=${C} ${N} appends in ${ms.toFixed(0)} ms: ${(N / ms * 1000).toFixed(0)}/s, ${(ms / N * 1000).toFixed(0)} µs each (wall)`);
await s.store.close();
