import { openIndexDb } from './src/store/index-db.ts';
import { EXTRA_PROJECTIONS } from './src/store/projections/registry.ts';
import { rmSync } from 'node:fs';
rmSync('/tmp/idx.sqlite', { force: true }); rmSync('/tmp/idx.sqlite-wal', { force: true }); rmSync('/tmp/idx.sqlite-shm', { force: true });
const idx = openIndexDb('/tmp/idx.sqlite', EXTRA_PROJECTIONS);
let seq = 0;
const mk = () => { seq++; const event: any = { schema_version: 'service.event.v1', event_id: `evt_${seq}xxxxxxxxxxxxxxxxx`, seq, kind: 'ext.acme.note', tenant_id: 't1', workspace_id: 'w1', project_id: 'p1', transport: 'customer', recorded_at: new Date().toISOString(), idempotency_key: `k${seq}-1764115200000`, request_sha256: 'sha256:' + 'a'.repeat(64), payload: { text: `bench note ${seq} about the deployment` }, prev_hash: 'sha256:' + 'b'.repeat(64), event_hash: 'sha256:' + 'c'.repeat(64) }; return { event, line: JSON.stringify(event) }; };
for (const batch of [1, 20, 60]) {
  const t0 = performance.now(); const n = 6000;
  for (let i = 0; i < n / batch; i++) idx.applyBatch(Array.from({ length: batch }, mk), seq * 700);
  console.log(`batch ${batch}: ${((performance.now() - t0) / n * 1000).toFixed(1)} µs/event`);
}
idx.close();
