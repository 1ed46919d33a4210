// The governance view (placeholder until its helper lands it).
import type { Route } from '../router.ts';
import { Page } from '../ui.tsx';

export function GovernanceView(_props: { route: Route }) {
  return (
    <Page title="Governance">
      <p>Not built yet.</p>
    </Page>
  );
}
