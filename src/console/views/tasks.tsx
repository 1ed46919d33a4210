// The tasks view (placeholder until its helper lands it).
import type { Route } from '../router.ts';
import { Page } from '../ui.tsx';

export function TasksView(_props: { route: Route }) {
  return (
    <Page title="Tasks">
      <p>Not built yet.</p>
    </Page>
  );
}
