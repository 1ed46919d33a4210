// Session provenance (docs/governance/sessions.md): what POST /v1/sessions
// stores in session.bound, and the view GET /v1/sessions/{session_id}/provenance folds from the
// session's binding and the envelopes of its events. Two rules hold whatever the caller sends:
// a host is shown (and, through the derived door, stored) only as a per-tenant salted hash, and an
// IP address only as its class. A raw IP inside any other shown string is replaced by a marker
// naming its class, so a raw adapter write cannot make the read disclose one. Pure: no clock, store
// or network.
import { createHmac } from 'node:crypto';
import type { Actor, StoredEvent, Transport } from '../event.ts';
import { transportPrincipal } from '../event.ts';

export const SESSION_BOUND = 'session.bound';
export const IP_CLASSES = ['loopback', 'private', 'link_local', 'cgnat', 'public', 'unknown'] as const;
export type IpClass = (typeof IP_CLASSES)[number];
export type Source = 'observed' | 'token' | 'asserted';

/** The body of POST /v1/sessions (schemas/api/session-bind-request.json). */
export type SessionBindBody = {
  session_id: string;
  principal: { type: 'user' | 'service_account'; id: string };
  agent?: string;
  agent_id?: string;
  provider_name?: string;
  client_app?: string;
  host?: string;
  ip?: string;
  ip_class?: IpClass;
  transport?: string;
  source_harness?: string;
  actor?: Actor;
};

/** The session.bound payload (schemas/events/session-bound.json); `host` only from a raw adapter write. */
export type SessionBoundPayload = {
  principal: { type: 'user' | 'service_account'; id: string };
  agent?: string;
  agent_id?: string;
  provider_name?: string;
  client_app?: string;
  host?: string;
  host_sha256?: string;
  ip_class?: string;
  transport?: string;
  source_harness?: string;
};

/** The tenant's key for host hashes: an HMAC of the server secret and the tenant (as team e-mails). */
export function tenantHostKey(secret: string | Uint8Array, tenantId: string): Buffer {
  return createHmac('sha256', secret).update(`gov.session.host\n${tenantId}`).digest();
}

/** `sha256:` + HMAC-SHA-256 of the trimmed, lower-cased host under the tenant's key. */
export function hostSha256(host: string, tenantKey: Uint8Array): string {
  return `sha256:${createHmac('sha256', tenantKey).update(host.trim().toLowerCase()).digest('hex')}`;
}

const V4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const isIPv4 = (s: string): boolean => V4.test(s);

/** RFC 4291 text forms: eight 1–4 hex groups, one `::` for a run of zeros, an IPv4 tail allowed. */
function isIPv6(s: string): boolean {
  let text = s;
  const tail = /(^|:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    if (!isIPv4(tail[2]!)) return false;
    text = `${text.slice(0, tail.index + tail[1]!.length)}0:0`; // the IPv4 tail is two groups
  }
  const halves = text.split('::');
  if (halves.length > 2) return false;
  const groups = halves.flatMap((h) => (h === '' ? [] : h.split(':')));
  if (!groups.every((g) => /^[0-9A-Fa-f]{1,4}$/.test(g))) return false;
  return halves.length === 2 ? groups.length <= 7 : groups.length === 8;
}

function v4Class(ip: string): IpClass {
  const [a, b] = ip.split('.').map(Number) as [number, number];
  if (a === 127) return 'loopback';
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return 'private';
  if (a === 169 && b === 254) return 'link_local';
  if (a === 100 && b >= 64 && b <= 127) return 'cgnat';
  if (a === 0) return 'unknown';
  return 'public';
}

/** The class of an IP address (docs/governance/sessions.md); anything that is not one is `unknown`. */
export function classifyIp(raw: string): IpClass {
  const bare = raw.trim().replace(/^\[|\]$/g, '');
  const zone = bare.indexOf('%'); // an IPv6 zone id (fe80::1%eth0) says nothing of the address's class
  const ip = zone < 0 ? bare : bare.slice(0, zone);
  if (isIPv4(ip)) return v4Class(ip);
  if (!isIPv6(ip)) return 'unknown';
  const lower = ip.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped) return v4Class(mapped[1]!);
  if (lower === '::1') return 'loopback';
  if (lower === '::') return 'unknown';
  if (/^f[cd]/.test(lower)) return 'private';
  if (/^fe[89ab]/.test(lower)) return 'link_local';
  return 'public';
}

// A run of the characters an IP is written with; it is (or holds) an address when it has two
// colons (IPv6) or a dotted quad of 1–3 digit groups (IPv4). Marking the whole run over-redacts a
// little (a version such as 1.2.3.4 is marked too), which is the side to err on.
const IP_RUN = /[0-9A-Fa-f:.]+/g;
const DOTTED_QUAD = /\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}/;

function holdsIp(run: string): boolean {
  return (run.match(/:/g)?.length ?? 0) >= 2 || DOTTED_QUAD.test(run);
}

/** Whether a string holds something that reads as an IP address. */
export function containsIp(text: string): boolean {
  return [...text.matchAll(IP_RUN)].some((m) => holdsIp(m[0]));
}

/** The string with every IP-like run replaced by `[ip:<class>]`. */
export function redactIps(text: string): string {
  return text.replace(IP_RUN, (run) => (holdsIp(run) ? `[ip:${classifyIp(run)}]` : run));
}

/** The members of a bind request that must not hold an IP address (`ip` is the one that may), by pointer. */
const IP_FREE_MEMBERS: ReadonlyArray<readonly [string, string?]> = [
  ['session_id'], ['principal', 'id'], ['agent'], ['agent_id'], ['provider_name'], ['client_app'], ['transport'], ['source_harness'], ['actor', 'id'],
];

/**
 * The pointer of the first member of a bind request (POST /v1/sessions, or the session.bind.v1
 * template's gate) that holds a raw IP address, else null. Any JSON is taken: what is not a string
 * where a string belongs is the schema's to refuse.
 */
export function rawIpMember(body: unknown): string | null {
  for (const [name, inner] of IP_FREE_MEMBERS) {
    let value = isObject(body) ? body[name] : undefined;
    if (inner !== undefined) value = isObject(value) ? value[inner] : undefined;
    if (typeof value === 'string' && containsIp(value)) return inner === undefined ? `/${name}` : `/${name}/${inner}`;
  }
  return null;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The session.bound payload of POST /v1/sessions: the host hashed under the tenant's key and never
 * stored; `ip` classified and dropped (its class wins over a stated ip_class, as it is derived from
 * the address). For a body the session.bind.v1 gate passed, which refuses a raw IP in any other
 * member (rawIpMember): the derived door stores none.
 */
export function bindPayload(body: SessionBindBody, tenantKey: Uint8Array): SessionBoundPayload {
  const payload: SessionBoundPayload = { principal: { type: body.principal.type, id: body.principal.id } };
  if (body.agent !== undefined) payload.agent = body.agent;
  if (body.agent_id !== undefined) payload.agent_id = body.agent_id;
  if (body.provider_name !== undefined) payload.provider_name = body.provider_name;
  if (body.client_app !== undefined) payload.client_app = body.client_app;
  if (body.host !== undefined) payload.host_sha256 = hostSha256(body.host, tenantKey);
  const ipClass = body.ip !== undefined ? classifyIp(body.ip) : body.ip_class;
  if (ipClass !== undefined) payload.ip_class = ipClass;
  if (body.transport !== undefined) payload.transport = body.transport;
  if (body.source_harness !== undefined) payload.source_harness = body.source_harness;
  return payload;
}

const HASH = /^sha256:[0-9a-f]{64}$/;
const shown = (v: unknown): string | null => (typeof v === 'string' ? redactIps(v) : null);

const ASSERTED_NON_CLAIM = 'Fields marked asserted were reported by the caller (an adapter or POST /v1/sessions) and are not verified.';
const IP_NON_CLAIM = 'IP addresses are not shown, only their class; host names only as a per-tenant salted hash.';

/** The view's non-claims, what the provenance does not prove, by whether the service authenticated its callers. */
export const PROVENANCE_NON_CLAIMS = {
  asserted: [ASSERTED_NON_CLAIM, 'The local preview authenticates tokens, not individual people or agents: token_principal names the token, not a person.', IP_NON_CLAIM],
  verified: [ASSERTED_NON_CLAIM, 'token_principal and actors_seen are the subjects of the OIDC tokens this service verified; it does not know who held a token.', IP_NON_CLAIM],
} as const;

/**
 * GET /v1/sessions/{session_id}/provenance from the session's events in seq order (every event of
 * the scope whose envelope names the session). The latest session.bound is the binding.
 * `identities` is 'verified' in the hosted service: its callers are authenticated, so the binding's
 * actor is the subject of the token it was written with, and token_principal names it; the
 * preview's tokens name only a transport.
 */
export function provenanceView(sessionId: string, events: readonly StoredEvent[], tenantKey: Uint8Array, identities: 'asserted' | 'verified' = 'asserted') {
  const bindings = events.filter((e) => e.kind === SESSION_BOUND);
  const bound = bindings.at(-1);
  const p = (bound?.payload ?? {}) as Partial<SessionBoundPayload>;
  const actors = new Map<string, { type: Actor['type']; id: string; events: number }>();
  const kinds: Record<string, number> = {};
  const transports = new Set<Transport>();
  for (const e of events) {
    const actor = e.actor ?? transportPrincipal(e.transport);
    const key = `${actor.type}\n${actor.id}`;
    const seen = actors.get(key) ?? { type: actor.type, id: redactIps(actor.id), events: 0 };
    seen.events += 1;
    actors.set(key, seen);
    kinds[e.kind] = (kinds[e.kind] ?? 0) + 1;
    transports.add(e.transport);
  }
  const sortedKinds = Object.fromEntries(Object.entries(kinds).sort(([a], [b]) => a.localeCompare(b)));
  const actorsSeen = [...actors.values()].sort((a, b) => b.events - a.events || a.type.localeCompare(b.type) || a.id.localeCompare(b.id));
  const agentActors = actorsSeen.filter((a) => a.type === 'agent');
  const agentId = shown(p.agent_id) ?? (agentActors.length === 1 ? agentActors[0]!.id : null);
  const agentName = shown(p.agent);
  const providerName = shown(p.provider_name);
  const hostHash = typeof p.host_sha256 === 'string' && HASH.test(p.host_sha256) ? p.host_sha256 : typeof p.host === 'string' ? hostSha256(p.host, tenantKey) : null;
  const ipClass = typeof p.ip_class === 'string' ? ((IP_CLASSES as readonly string[]).includes(p.ip_class) ? p.ip_class : 'unknown') : null;
  const first = events[0];
  const last = events.at(-1);
  const otel: Record<string, string> = { 'gen_ai.conversation.id': sessionId };
  if (agentName !== null) otel['gen_ai.agent.name'] = agentName;
  if (agentId !== null) otel['gen_ai.agent.id'] = agentId;
  if (providerName !== null) otel['gen_ai.provider.name'] = providerName;
  return {
    session_id: sessionId,
    bound: bound ? { event_id: bound.event_id, seq: bound.seq, recorded_at: bound.recorded_at, bindings: bindings.length } : null,
    window: {
      first_seq: first?.seq ?? null, last_seq: last?.seq ?? null, event_count: events.length,
      first_seen_at: first?.recorded_at ?? null, last_seen_at: last?.recorded_at ?? null,
    },
    principal: p.principal ? { type: p.principal.type, id: redactIps(p.principal.id), source: 'asserted' as Source } : null,
    token_principal: bound ? { ...tokenPrincipalOf(bound, identities), source: 'token' as Source } : null,
    agent: agentName !== null || agentId !== null || providerName !== null ? { name: agentName, id: agentId, provider_name: providerName, source: 'asserted' as Source } : null,
    client_app: p.client_app !== undefined ? { name: shown(p.client_app), source: 'asserted' as Source } : null,
    host: hostHash !== null ? { name_sha256: hostHash, source: 'asserted' as Source } : null,
    ip_class: ipClass !== null ? { value: ipClass, source: 'asserted' as Source } : null,
    transport: { classes: [...transports].sort(), source: 'observed' as Source },
    declared_transport: p.transport !== undefined ? { value: shown(p.transport), source: 'asserted' as Source } : null,
    source_harness: p.source_harness !== undefined ? { name: shown(p.source_harness), source: 'asserted' as Source } : null,
    actors_seen: actorsSeen,
    kinds: sortedKinds,
    otel,
    non_claims: [...PROVENANCE_NON_CLAIMS[identities]],
  };
}

function tokenPrincipalOf(bound: StoredEvent, identities: 'asserted' | 'verified'): Actor {
  if (identities === 'asserted' || bound.actor === undefined) return transportPrincipal(bound.transport);
  return { type: bound.actor.type, id: redactIps(bound.actor.id) };
}

export type ProvenanceView = ReturnType<typeof provenanceView>;
