// The quota view (placeholder until its helper lands it).
import type { Route } from '../router.ts';
import { Page } from '../ui.tsx';

export function QuotaView(_props: { route: Route }) {
  return (
    <Page title="Quota">
      <p>Not built yet.</p>
    </Page>
  );
}
