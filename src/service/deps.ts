// What the application services need, built once by the composition root (src/deps.ts).
import type { TemplateRegistry } from '../domain/templates.ts';
import type { SchemaRegistry } from '../schema-registry.ts';
import type { KeyRing } from '../store/keys.ts';
import type { RiskPolicy } from '../domain/governance/risk-policy.ts';
import type { RegulatoryProfile } from '../domain/governance/regulatory-profile.ts';
import type { VendorQuestionnaire } from '../domain/governance/vendors-questionnaire.ts';
import type { GovernanceQueries } from '../store/governance-queries.ts';
import type { Quarantine } from '../store/quarantine.ts';
import type { Queries } from '../store/queries.ts';
import type { Store } from '../store/store.ts';

export type ServiceDeps = {
  store: Store;
  queries: Queries;
  /** The governance projections: assets, approvals, teams. */
  gov: GovernanceQueries;
  /** The risk policy evaluations use (gov.risk.default, pinned). */
  riskPolicy: RiskPolicy;
  /** Raw evidence bytes and sanitized projections, content-addressed under the data dir. */
  quarantine: Quarantine;
  /** The regulatory profiles by id (fixtures/regulatory/*.json, checked and loaded at start). */
  regulatoryProfiles: ReadonlyMap<string, RegulatoryProfile>;
  /** The vendor questionnaire assessments answer (gov.vendor.questions.v1, pinned). */
  vendorQuestions: VendorQuestionnaire;
  registry: SchemaRegistry;
  templates: TemplateRegistry;
  /** The preview's signing keys (packets, attestations, signed checkpoints). */
  keys: KeyRing;
  clock: () => Date;
  /** Makes a fresh id with the given prefix, e.g. newId('evt') → evt_…; counters in tests. */
  newId: (prefix: string) => string;
  /**
   * 'verified' in the hosted service (callers are authenticated by OIDC tokens), 'asserted' in the
   * preview (its tokens name a transport, and actors are what callers say): answers state which.
   */
  identities?: 'asserted' | 'verified';
  /**
   * Which deployment serves: 'preview' (the default: a local preview, as its packets say) or
   * 'hosted' (`gov serve`, whose packets carry the hosted non-claims, docs/hosting.md).
   */
  deployment?: 'preview' | 'hosted';
};
