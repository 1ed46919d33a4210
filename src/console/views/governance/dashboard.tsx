// The governance dashboard (GET /v1/governance/dashboard): the counts as the API answers them —
// assets by tier and status, approvals, reviews, incidents and their Art. 73 clocks, vendors (expired,
// expiring, open critical, by maturity), evidence by effective trust and by the basis of that trust,
// and posture per profile. It counts what was recorded, not the world.
import { failureOf, Loaded, NonClaims, useConsole, useLoad } from '../../ui.tsx';
import { Badge, Card, counts, govHref, IncidentLink } from './common.tsx';

/** The dashboard's trust levels and bases, lowest first (schemas/api/dashboard.json). */
const TRUSTS = ['untrusted_external', 'customer_asserted', 'sanitized_projection', 'trusted_internal'] as const;
const BASES = ['asserted', 'sanitized', 'reviewed', 'review_rejected'] as const;
/** vendor_maturity is derived 0–4; a level with no vendor still has its row. */
const MATURITIES = ['0', '1', '2', '3', '4'] as const;

export function Dashboard() {
  const { client } = useConsole();
  const [load] = useLoad(async () => {
    const res = await client.call('GET /v1/governance/dashboard');
    return res.status === 200 ? res.body : failureOf(res);
  }, []);
  return (
    <Loaded load={load}>
      {(d) => (
        <>
          <p class="note">
            As of seq {d.last_seq} ({d.as_of}). It counts what was recorded, not the world.
          </p>
          <div class="grid" aria-label="Dashboard counts" role="group">
            <Card label="Assets" value={d.assets.total}>
              <div class="note">{counts(d.assets.by_tier)}</div>
            </Card>
            <Card label="Approvals pending" value={d.approvals.pending}>
              <div class="note">
                overdue {d.approvals.overdue} · {counts(d.approvals.pending_by_assignee_role)}
              </div>
            </Card>
            <Card label="Reviews open" value={d.reviews.open}>
              <div class="note">
                upcoming {d.reviews.upcoming} · due {d.reviews.due} · overdue {d.reviews.overdue}
              </div>
            </Card>
            <Card label="Incidents open" value={d.incidents.open}>
              <div class="note">
                {counts(d.incidents.open_by_severity)} · serious {d.incidents.serious_open}
              </div>
            </Card>
            <Card label="Art. 73 clocks running" value={d.incidents.clocks.running}>
              <div class="note">
                overdue {d.incidents.clocks.overdue} · due in 7 days {d.incidents.clocks_due_7d}
              </div>
            </Card>
            <Card label="Vendors" value={d.vendors.assessed}>
              <div class="note">
                open critical {d.vendors.open_critical} · expired {d.vendors.expired} · expiring in 30 days {d.vendors.expiring_30d}
              </div>
            </Card>
            <Card label="Evidence artifacts" value={d.evidence.artifacts}>
              <div class="note">
                verified {d.evidence.verified} · untrusted {d.evidence.untrusted}
              </div>
            </Card>
          </div>
          <div class="grid dash-breakdowns">
            <Breakdown id="dash-trust" title="Evidence by effective trust" what="Trust" rows={TRUSTS.map((k) => [k, d.evidence.by_content_trust[k]])} />
            <Breakdown id="dash-basis" title="Evidence by basis of its trust" what="Basis" rows={BASES.map((k) => [k, d.evidence.by_basis[k]])} />
            <Breakdown
              id="dash-maturity"
              title="Vendors by maturity"
              what="Maturity (0–4)"
              rows={[...new Set([...MATURITIES, ...Object.keys(d.vendors.by_maturity)])].map((k) => [k, d.vendors.by_maturity[k] ?? 0])}
            />
          </div>
          <h2 id="dash-assets">Assets by status</h2>
          <p>
            {Object.entries(d.assets.by_status)
              .filter(([, n]) => n > 0)
              .map(([s, n]) => (
                <a key={s} href={govHref(['assets'], { status: s })} class="pv-chip">
                  <Badge value={s} /> {n}
                </a>
              ))}
            {d.assets.total === 0 && <span class="note">No assets registered.</span>}
          </p>
          {d.incidents.serious_open_incidents.length > 0 && (
            <>
              <h2 id="dash-serious">Serious open incidents</h2>
              <ul aria-labelledby="dash-serious">
                {d.incidents.serious_open_incidents.map((i) => (
                  <li key={i.incident_id}>
                    <IncidentLink id={i.incident_id} /> <Badge value={i.severity} /> <Badge value={i.status} /> basis {i.basis ?? '—'}, aware {i.aware_at}
                  </li>
                ))}
              </ul>
            </>
          )}
          <h2 id="dash-posture">Posture per profile</h2>
          <div class="table-wrap">
            <table class="pv-wide" aria-labelledby="dash-posture">
              <thead>
                <tr>
                  <th scope="col">Profile</th>
                  <th scope="col">Requirements</th>
                  <th scope="col">Applicable</th>
                  <th scope="col">Met</th>
                  <th scope="col">Met %</th>
                  <th scope="col">Verified %</th>
                </tr>
              </thead>
              <tbody>
                {d.posture.map((p) => (
                  <tr key={p.profile_id}>
                    <th scope="row">
                      <a href={govHref(['posture'], { profile: p.profile_id })}>{p.profile_id}</a>
                    </th>
                    <td>{p.requirements}</td>
                    <td>{p.applicable}</td>
                    <td>{p.met}</td>
                    <td>{p.met_pct ?? '—'}</td>
                    <td>{p.verified_pct ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <NonClaims items={d.non_claims} />
        </>
      )}
    </Loaded>
  );
}

/** One count object as a small table, every row shown (a zero says as much as a number). */
function Breakdown({ id, title, what, rows }: { id: string; title: string; what: string; rows: [string, number][] }) {
  return (
    <section class="card" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      <table aria-labelledby={id}>
        <thead>
          <tr>
            <th scope="col">{what}</th>
            <th scope="col">Count</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(([key, n]) => (
            <tr key={key} data-key={key}>
              <th scope="row">{key.replace(/_/g, ' ')}</th>
              <td>{n}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
