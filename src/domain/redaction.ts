// Redaction policy redaction.default.v1 (docs/contract.md §9): cuts credentials out of evidence
// references before they leave in a Proof Packet, and records each cut so the manifest can hash it.
// It only ever removes: a ref that was partial or removed stays so, nothing is restored.
import type { RedactionManifest, RedactionManifestAction } from './contract/schema-types.gen.ts';
import type { EvidenceRef } from './event.ts';

export const REDACTION_POLICY_ID = 'redaction.default.v1';
export const REDACTED = 'REDACTED';

/**
 * A query or fragment parameter is secret when its decoded, lower-cased name contains one of these
 * (substring match, so `X-Amz-Signature`, `client_secret` and `apiKey` are caught; over-redacting a
 * harmless `author=` is the accepted price of never leaking a credential).
 */
export const SECRET_NAME_PARTS: readonly string[] = [
  'token', 'key', 'secret', 'password', 'passwd', 'sig', 'signature', 'auth', 'credential', 'api_key', 'access_token',
];

/** One cut, as the manifest's actions list it (schemas/common/redaction-manifest.json). */
export type RedactionAction = RedactionManifestAction;
export type RedactionRule = RedactionAction['rule'];
export type RedactionField = RedactionAction['field'];
export type RedactionSummary = RedactionManifest['summary'];
export type RedactionResult = { refs: EvidenceRef[]; actions: RedactionAction[]; summary: RedactionSummary };

/** The schema's length limits (uri 2048, source 256); a cut that no longer fits replaces the whole member. */
const MAX_LENGTH: Record<RedactionField, number> = { uri: 2048, source: 256 };
const RULE_ORDER: readonly RedactionRule[] = ['userinfo', 'secret_param', 'oversize'];

// scheme://userinfo@host: greedy up to the last '@' before the path, since a raw password may hold '@'.
// A scheme of at most 64 characters: unbounded, a long run of scheme characters without "://" was
// scanned again from each of its characters (quadratic in caller text).
const URL_USERINFO = /([A-Za-z][A-Za-z0-9+.-]{0,63}:\/\/)([^\s/?#]*)@/g;
// user:pass@rest at the start of a string that is not a scheme:// URL (scp-like git remotes).
const BARE_USERINFO = /^([^\s:/@?#]+:[^\s/?#]*)@/;
// name=value after a query, fragment or parameter separator, or at a word start in free text.
const PARAM = /(^|[?&#;\s])([^=&#;\s?]+)=([^&#;\s]*)/g;

export function isSecretName(name: string): boolean {
  let decoded = name;
  try {
    decoded = decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    // A malformed escape: judge the raw name, which is still what a reader would see.
  }
  const lower = decoded.toLowerCase();
  return SECRET_NAME_PARTS.some((part) => lower.includes(part));
}

/** One string through the policy: the cut text and the rules that cut something, in rule order. */
export function redactText(text: string, maxLength = Number.POSITIVE_INFINITY): { text: string; rules: RedactionRule[] } {
  const rules = new Set<RedactionRule>();
  let out = text.replace(URL_USERINFO, (whole, scheme: string, userinfo: string) => {
    if (userinfo === '' || userinfo === REDACTED) return whole;
    rules.add('userinfo');
    return `${scheme}${REDACTED}@`;
  });
  if (!out.includes('://')) {
    out = out.replace(BARE_USERINFO, (whole, userinfo: string) => {
      if (userinfo === REDACTED) return whole;
      rules.add('userinfo');
      return `${REDACTED}@`;
    });
  }
  out = out.replace(PARAM, (whole, lead: string, name: string, value: string) => {
    if (value === '' || value === REDACTED || !isSecretName(name)) return whole;
    rules.add('secret_param');
    return `${lead}${name}=${REDACTED}`;
  });
  if (rules.size > 0 && out.length > maxLength) {
    rules.add('oversize');
    out = REDACTED;
  }
  return { text: out, rules: RULE_ORDER.filter((r) => rules.has(r)) };
}

/** Applies the policy to every ref, in order; the summary counts the refs by their final state. */
export function redactEvidenceRefs(refs: readonly EvidenceRef[]): RedactionResult {
  const out: EvidenceRef[] = [];
  const actions: RedactionAction[] = [];
  const summary: RedactionSummary = { none: 0, partial: 0, removed: 0 };
  for (const ref of refs) {
    const next: EvidenceRef = { ...ref };
    let cut = false;
    for (const field of ['uri', 'source'] as const) {
      const value = ref[field];
      if (value === undefined) continue;
      const result = redactText(value, MAX_LENGTH[field]);
      if (result.rules.length === 0) continue;
      cut = true;
      next[field] = result.text;
      for (const rule of result.rules) actions.push({ artifact_id: ref.artifact_id, field, rule });
    }
    // A cut lowers `none` to `partial`; `removed` is already the strongest state and stays.
    if (cut && next.redaction === 'none') next.redaction = 'partial';
    summary[next.redaction]++;
    out.push(next);
  }
  return { refs: out, actions, summary };
}
