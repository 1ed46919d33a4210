// The search view (placeholder until its helper lands it).
import type { Route } from '../router.ts';
import { Page } from '../ui.tsx';

export function SearchView(_props: { route: Route }) {
  return (
    <Page title="Search">
      <p>Not built yet.</p>
    </Page>
  );
}
