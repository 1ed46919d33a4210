// The packets view (placeholder until its helper lands it).
import type { Route } from '../router.ts';
import { Page } from '../ui.tsx';

export function PacketsView(_props: { route: Route }) {
  return (
    <Page title="Packets">
      <p>Not built yet.</p>
    </Page>
  );
}
