// The events view (placeholder until its helper lands it).
import type { Route } from '../router.ts';
import { Page } from '../ui.tsx';

export function EventsView(_props: { route: Route }) {
  return (
    <Page title="Events">
      <p>Not built yet.</p>
    </Page>
  );
}
