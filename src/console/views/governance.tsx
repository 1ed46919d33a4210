// Governance (#/governance/<section>[/<id>]): the dashboard, assets with risk tiers, the approvals
// queue, incidents and posture per profile, read-only. A section appears only when the server
// lists its route in GET /health, so the page works against a server without some areas.
import type { Route } from '../router.ts';
import { failureOf, Loaded, Page, useConsole, useLoad } from '../ui.tsx';
import { govHref, type Section } from './governance/common.tsx';
import { Dashboard } from './governance/dashboard.tsx';
import { ApprovalDetail, Approvals, AssetDetail, Assets, IncidentDetail, Incidents, Posture } from './governance/sections.tsx';

const SECTIONS: readonly { key: Section; label: string; route: string }[] = [
  { key: 'dashboard', label: 'Dashboard', route: 'GET /v1/governance/dashboard' },
  { key: 'assets', label: 'Assets', route: 'GET /v1/governance/assets' },
  { key: 'approvals', label: 'Approvals', route: 'GET /v1/approvals' },
  { key: 'incidents', label: 'Incidents', route: 'GET /v1/incidents' },
  { key: 'posture', label: 'Posture', route: 'GET /v1/regulatory/posture' },
];

export function GovernanceView({ route }: { route: Route }) {
  const { client } = useConsole();
  const [health] = useLoad(async () => {
    const res = await client.health();
    return res.status === 200 ? new Set(res.body.routes.map((r) => `${r.method} ${r.path}`)) : failureOf(res);
  }, []);
  // The page keeps its heading while /health loads or fails (the server did not answer).
  if (health.state !== 'ready') {
    return (
      <Page title="Governance">
        <Loaded load={health}>{() => null}</Loaded>
      </Page>
    );
  }
  return (
    <Loaded load={health}>
      {(routes) => {
        const has = (r: string) => routes.has(r);
        const present = SECTIONS.filter((s) => has(s.route) && (s.key !== 'posture' || has('GET /v1/regulatory/profiles')));
        const current = present.find((s) => s.key === route.parts[1]) ?? (route.parts[1] === undefined ? present[0] : undefined);
        const id = route.parts[2];
        return (
          <Page title={current ? `Governance · ${current.label}` : 'Governance'}>
            {present.length === 0 ? (
              <p class="note">This server lists none of the governance routes in GET /health.</p>
            ) : (
              <nav aria-label="Governance sections" class="pv-subnav">
                <ul>
                  {present.map((s) => (
                    <li key={s.key}>
                      <a href={govHref([s.key])} aria-current={s === current ? 'page' : undefined}>
                        {s.label}
                      </a>
                    </li>
                  ))}
                </ul>
              </nav>
            )}
            {current === undefined ? (
              present.length > 0 && <p class="note">This server has no governance section “{route.parts[1]}”.</p>
            ) : (
              <SectionView key={`${current.key}/${id ?? ''}`} section={current.key} id={id} query={route.query} has={has} />
            )}
          </Page>
        );
      }}
    </Loaded>
  );
}

function SectionView({ section, id, query, has }: { section: Section; id: string | undefined; query: URLSearchParams; has: (route: string) => boolean }) {
  switch (section) {
    case 'dashboard':
      return <Dashboard />;
    case 'assets':
      return id !== undefined && has('GET /v1/governance/assets/{asset_id}') ? <AssetDetail id={id} has={has} /> : <Assets key={query.toString()} query={query} />;
    case 'approvals':
      return id !== undefined && has('GET /v1/approvals/{approval_id}') ? <ApprovalDetail id={id} /> : <Approvals key={query.toString()} query={query} />;
    case 'incidents':
      return id !== undefined && has('GET /v1/incidents/{incident_id}') ? <IncidentDetail id={id} /> : <Incidents key={query.toString()} query={query} />;
    case 'posture':
      return <Posture query={query} />;
  }
}
