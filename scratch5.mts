import { openStore } from './src/store/store.ts';
import { existsSync } from 'node:fs';
if (!existsSync('/tmp/big/events.jsonl')) {
  const s = await openStore({ dataDir: '/tmp/big', clock: () => new Date(), warn: () => {} });
  let n = 0;
  for (let b = 0; b < 20; b++) {
    await Promise.all(Array.from({ length: 5000 }, () => { n++; return s.append([{ event_id: `evt_${n}`, kind: n % 10 === 0 ? 'task.checkpoint.written' : 'ext.acme.note', tenant_id: 't1', workspace_id: 'w1', project_id: 'p1', task_id: n % 10 === 0 ? 'task-1' : undefined, transport: 'customer', idempotency_key: null, request_sha256: null, payload: { text: `bench note ${n} about the deployment of service ${n % 97}` } } as any]); }));
  }
  await s.close();
}
const { rebuildIndex, recoverTail, logPathOf } = await import('./src/store/store.ts');
const tail = recoverTail(logPathOf('/tmp/big'), () => {});
const t0 = performance.now();
const idx = rebuildIndex('/tmp/big', tail);
const ms = performance.now() - t0;
console.log(`rebuilt ${idx.lastSeq()} in ${ms.toFixed(0)} ms = ${(idx.lastSeq() / ms * 1000).toFixed(0)}/s`);
idx.close();
