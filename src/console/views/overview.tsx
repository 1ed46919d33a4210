// The overview (#/): GET /health — status, release, the store's counters when the server answers its
// detail, and every route it serves with its class (docs/contract.md §2).
import { useState } from 'preact/hooks';
import type { Health } from '../../domain/contract/schema-types.gen.ts';
import type { Route } from '../router.ts';
import { failureOf, Loaded, Page, useConsole, useLoad } from '../ui.tsx';

type Detail = NonNullable<Health['detail']> & { data_dir?: string; version?: string };

export function OverviewView(_props: { route: Route }) {
  const { client } = useConsole();
  const [load, reload] = useLoad(async () => {
    const res = await client.health();
    return res.status === 200 ? res.body : failureOf(res);
  }, [client]);

  return (
    <Page
      title="Overview"
      actions={
        <button type="button" onClick={reload}>
          Refresh
        </button>
      }
    >
      <Loaded load={load}>{(health) => <HealthView health={health} />}</Loaded>
    </Page>
  );
}

function HealthView({ health }: { health: Health }) {
  const detail = health.detail as Detail | undefined;
  const classes = countClasses(health.routes);
  const [filter, setFilter] = useState('');
  const needle = filter.trim().toLowerCase();
  const routes = needle === '' ? health.routes : health.routes.filter((r) => `${r.method} ${r.path} ${r.status}`.toLowerCase().includes(needle));
  return (
    <>
      <dl class="grid stats" aria-label="Server">
        <Stat label="Status">
          <span class={health.status === 'ok' ? 'badge ok' : 'badge warn'}>{health.status}</span>
        </Stat>
        <Stat label="Release">{health.release_label}</Stat>
        <Stat label="Mode">{health.mode}</Stat>
        {detail?.version !== undefined && <Stat label="Version">{detail.version}</Stat>}
        {detail && (
          <>
            <Stat label="Events">{detail.event_count.toLocaleString()}</Stat>
            <Stat label="Last seq">{detail.last_seq.toLocaleString()}</Stat>
            <Stat label="Index seq">{detail.index_seq.toLocaleString()}</Stat>
            <Stat label="Index state">
              <span class={detail.index_state === 'current' ? 'badge ok' : detail.index_state === 'catching_up' ? 'badge warn' : 'badge bad'}>{detail.index_state}</span>
            </Stat>
            <Stat label="Uptime">{formatUptime(detail.uptime_s)}</Stat>
          </>
        )}
      </dl>
      {detail?.index_error && (
        <div class="error" role="alert">
          <strong>The index writer is failing</strong>
          <p>{detail.index_error}</p>
        </div>
      )}
      {detail?.data_dir !== undefined && (
        <p>
          Data dir: <code>{detail.data_dir}</code>
        </p>
      )}
      {!detail && (
        <p class="note">This server answered the public health only: event counts, the index and the data dir are in the detail, which it gives to the operator transport.</p>
      )}

      <h2 id="routes-title">Routes</h2>
      <p class="note">
        {health.routes.length} routes: {Object.entries(classes).map(([cls, n], i) => `${i > 0 ? ', ' : ''}${n} ${cls}`)}. <code>live</code> is on the hosted API,{' '}
        <code>preview</code> is served by this preview, <code>target</code> is not served yet.
      </p>
      <form class="inline" role="search" aria-label="Route search" onSubmit={(e) => e.preventDefault()}>
        <label>
          Filter routes
          <input type="search" value={filter} placeholder="/v1/tasks, POST, target…" onInput={(e) => setFilter(e.currentTarget.value)} />
        </label>
        {needle !== '' && (
          <span class="note" role="status">
            {routes.length} of {health.routes.length}
          </span>
        )}
      </form>
      <div class="table-wrap">
        <table aria-labelledby="routes-title">
          <thead>
            <tr>
              <th scope="col">Method</th>
              <th scope="col">Path</th>
              <th scope="col">Class</th>
            </tr>
          </thead>
          <tbody>
            {routes.map((r) => (
              <tr key={`${r.method} ${r.path}`}>
                <td class="mono">{r.method}</td>
                <td class="mono path">{r.path}</td>
                <td>
                  <span class={r.status === 'target' ? 'badge warn' : r.status === 'live' ? 'badge ok' : 'badge'}>{r.status}</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

function Stat({ label, children }: { label: string; children: preact.ComponentChildren }) {
  return (
    <div class="card">
      <dt>{label}</dt>
      <dd class="value">{children}</dd>
    </div>
  );
}

function countClasses(routes: Health['routes']): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of routes) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
}

function formatUptime(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds)} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
}
