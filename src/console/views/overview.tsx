// The overview view (placeholder until its helper lands it).
import type { Route } from '../router.ts';
import { Page } from '../ui.tsx';

export function OverviewView(_props: { route: Route }) {
  return (
    <Page title="Overview">
      <p>Not built yet.</p>
    </Page>
  );
}
