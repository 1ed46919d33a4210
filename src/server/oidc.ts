// The hosted deployment's (`gov serve`) bearer tokens: OIDC JWTs from the customer's identity
// provider, checked here against its signing keys (a JWKS, fetched or read once from a file), its
// issuer and our audience, with an allow-list of asymmetric algorithms only — a symmetric one would
// let anyone holding the public key sign (the HS256 key confusion), and `none` signs nothing. What
// the token grants (tenants, workspaces, team roles, the operator flag) is read from configurable
// claims into the request's Identity (env.ts). Every refusal names the check that failed and never
// repeats the token.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createLocalJWKSet, createRemoteJWKSet, decodeProtectedHeader, errors, jwtVerify, type JSONWebKeySet, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { isId } from '../domain/event.ts';
import { TEAM_ROLES, type TeamRole } from '../domain/governance/team.ts';
import { AppError } from '../errors.ts';
import type { Identity } from './env.ts';

/** How the hosted service checks a bearer token and reads what it grants (docs/hosting.md). */
export type OidcConfig = {
  /** The exact `iss` a token must carry. */
  issuer: string;
  /** A value the token's `aud` must be or contain. */
  audience: string;
  /** The issuer's signing keys: a JWKS fetched from a URL (cached, refetched for an unknown kid), or a file read once at start. */
  jwks: { url: string } | { file: string };
  /** The signing algorithms accepted: asymmetric ones only, never `none` nor HS*. */
  algorithms: string[];
  /** The claim naming the tenants the token grants: a string or an array of strings. */
  tenantClaim: string;
  /** The claim naming the workspaces it grants (string or array); absent, it grants every workspace of its tenants. */
  workspaceClaim: string;
  /** The claim holding the caller's roles (string or array; a dotted path such as `realm_access.roles` reaches into an object). */
  rolesClaim: string;
  /** The value of the roles claim that makes the request the operator transport. */
  operatorRole: string;
  /** How far a token's exp and nbf may be off the server's clock. */
  clockToleranceSeconds: number;
};

/** The algorithms accepted unless the configuration names others. */
export const DEFAULT_ALGORITHMS: readonly string[] = Object.freeze(['RS256', 'PS256', 'ES256', 'EdDSA']);

/** The algorithms a configuration may name: every asymmetric JWS algorithm jose verifies. */
const ASYMMETRIC_ALGORITHMS = new Set(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519']);

const DEFAULTS = {
  tenantClaim: 'gov_tenant',
  workspaceClaim: 'gov_workspace',
  rolesClaim: 'gov_roles',
  operatorRole: 'gov_operator',
  clockToleranceSeconds: 30,
} as const;

const MAX_CLOCK_TOLERANCE_SECONDS = 300;
/** How long a verified token is taken on trust again, and how many are remembered. */
const VERIFIED_TTL_MS = 60_000;
const VERIFIED_MAX = 10_000;
/**
 * The claim that says what kind of actor the subject is: `user` when absent; `agent` or
 * `service_account` for a machine's token (client credentials), so its events name it as such and
 * the rules that only users pass (deciding an approval) hold.
 */
export const ACTOR_TYPE_CLAIM = 'gov_actor_type';
const ACTOR_TYPES = ['user', 'agent', 'service_account'] as const;
/** Longer than any identity provider's token; a longer header is refused before it is parsed. */
const MAX_TOKEN_LENGTH = 16_384;
const ID_RULE = '2–128 letters, digits, _ . : - starting with a letter or digit';

/** What a verified token says: who the caller is, and whether it is the operator transport. */
export type VerifiedToken = { identity: Identity; operator: boolean };

/** Checks an Authorization header; throws AppError unauthorized, token_invalid or token_expired. */
export type OidcVerifier = { verify(authorization: string | undefined): Promise<VerifiedToken> };

/**
 * A complete configuration from the one given: defaults filled in, then checked. Throws AppError
 * usage_error naming the setting to fix (a symmetric algorithm or `none`, a JWKS URL over plain
 * HTTP to another host, an empty claim name, …).
 */
export function oidcConfigOf(partial: Partial<OidcConfig> & Pick<OidcConfig, 'issuer' | 'audience' | 'jwks'>): OidcConfig {
  const config: OidcConfig = {
    issuer: partial.issuer,
    audience: partial.audience,
    jwks: partial.jwks,
    algorithms: [...(partial.algorithms ?? DEFAULT_ALGORITHMS)],
    tenantClaim: partial.tenantClaim ?? DEFAULTS.tenantClaim,
    workspaceClaim: partial.workspaceClaim ?? DEFAULTS.workspaceClaim,
    rolesClaim: partial.rolesClaim ?? DEFAULTS.rolesClaim,
    operatorRole: partial.operatorRole ?? DEFAULTS.operatorRole,
    clockToleranceSeconds: partial.clockToleranceSeconds ?? DEFAULTS.clockToleranceSeconds,
  };
  requireText(config.issuer, 'The OIDC issuer', 'give the exact `iss` your identity provider puts in its tokens (its issuer URL, e.g. https://login.example.com/realms/acme)');
  requireText(config.audience, 'The OIDC audience', 'give the `aud` value your identity provider issues for this API');
  checkJwksSource(config.jwks);
  checkAlgorithms(config.algorithms);
  for (const name of ['tenantClaim', 'workspaceClaim', 'rolesClaim'] as const) requireText(config[name], `The OIDC ${name}`, 'give the name of the claim (or a dotted path into one)');
  requireText(config.operatorRole, 'The OIDC operatorRole', 'give the roles-claim value that marks an operator');
  if ((TEAM_ROLES as readonly string[]).includes(config.operatorRole)) {
    throw new AppError('usage_error', `The OIDC operatorRole must not be a team role (${config.operatorRole}): every holder of that role would become the operator. Give a role of its own, such as ${DEFAULTS.operatorRole}.`);
  }
  const tolerance = config.clockToleranceSeconds;
  if (typeof tolerance !== 'number' || !Number.isInteger(tolerance) || tolerance < 0 || tolerance > MAX_CLOCK_TOLERANCE_SECONDS) {
    throw new AppError('usage_error', `The OIDC clockToleranceSeconds must be a whole number of seconds from 0 to ${MAX_CLOCK_TOLERANCE_SECONDS}, not ${String(tolerance)}.`);
  }
  return config;
}

function requireText(value: unknown, what: string, advice: string): void {
  if (typeof value !== 'string' || value.trim() === '' || value.trim() !== value) {
    throw new AppError('usage_error', `${what} must be a non-empty string without surrounding spaces: ${advice}.`);
  }
}

function checkJwksSource(jwks: unknown): void {
  const source = (typeof jwks === 'object' && jwks !== null ? jwks : {}) as Record<string, unknown>;
  const hasUrl = 'url' in source;
  const hasFile = 'file' in source;
  if (hasUrl === hasFile) throw new AppError('usage_error', 'The OIDC jwks must be exactly one of {url} (the issuer\'s jwks_uri) or {file} (a JWKS document on disk).');
  if (hasFile) {
    requireText(source.file, 'The OIDC jwks.file', 'give the path of a JWKS document ({"keys": [...]})');
    return;
  }
  let url: URL;
  try {
    url = new URL(String(source.url));
  } catch {
    throw new AppError('usage_error', `The OIDC jwks.url is not a URL (${JSON.stringify(source.url)}): give the issuer's jwks_uri, e.g. https://login.example.com/.well-known/jwks.json.`);
  }
  // Keys fetched over plain HTTP could be swapped in transit, and whoever swaps them signs tokens.
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new AppError('usage_error', `The OIDC jwks.url must be https:// (plain http:// only to a loopback address), not ${url.protocol}//${url.host}: the signing keys must not be fetched where they can be swapped.`);
  }
}

function checkAlgorithms(algorithms: unknown): void {
  if (!Array.isArray(algorithms) || algorithms.length === 0) {
    throw new AppError('usage_error', `The OIDC algorithms must be a non-empty list, such as ${DEFAULT_ALGORITHMS.join(', ')}.`);
  }
  for (const alg of algorithms as unknown[]) {
    if (typeof alg === 'string' && (alg.toLowerCase() === 'none' || /^HS\d+$/i.test(alg))) {
      throw new AppError('usage_error', `The OIDC algorithms must not include ${alg}: ${alg === 'none' ? 'an unsigned token proves nothing' : 'a symmetric algorithm lets anyone who knows the key (for HS* over a JWKS, the public key) sign tokens'}. Use asymmetric ones only, such as ${DEFAULT_ALGORITHMS.join(', ')}.`);
    }
    if (typeof alg !== 'string' || !ASYMMETRIC_ALGORITHMS.has(alg)) {
      throw new AppError('usage_error', `The OIDC algorithms include ${JSON.stringify(alg)}, which is not a signing algorithm this server verifies: choose from ${[...ASYMMETRIC_ALGORITHMS].join(', ')}.`);
    }
  }
}

/**
 * The verifier of a configuration (checked again here, so no caller bypasses oidcConfigOf). A JWKS
 * file is read now, once: an unreadable file, or one holding a private or symmetric key, is an
 * AppError usage_error at start rather than a refusal of every request. `clock` is the time the
 * token's exp and nbf are checked against.
 */
export function createOidcVerifier(config: OidcConfig, clock: () => Date = () => new Date()): OidcVerifier {
  const checked = oidcConfigOf(config);
  const jwksUrl = 'url' in checked.jwks ? checked.jwks.url : null;
  const jwks: JWTVerifyGetKey = 'url' in checked.jwks ? createRemoteJWKSet(new URL(checked.jwks.url)) : createLocalJWKSet(readJwksFile(checked.jwks.file));
  // jose picks the only key of the token's type when the header names no kid; we require the kid
  // (docs/hosting.md), so a token is checked with the one key its issuer says signed it. Asked for
  // after jose's header and algorithm checks, which a token without a kid may also fail.
  const keys: JWTVerifyGetKey = (header, token) => {
    if (typeof header.kid !== 'string' || header.kid === '') throw missingKid(header);
    return jwks(header, token);
  };
  const options = {
    issuer: checked.issuer,
    audience: checked.audience,
    algorithms: checked.algorithms,
    clockTolerance: checked.clockToleranceSeconds,
    requiredClaims: ['exp', 'sub'],
  };

  // A client sends the same token for minutes: its verification (~0.2 ms of signature check) is
  // remembered by the token's hash for at most VERIFIED_TTL_MS and never past its exp, so a key
  // withdrawn from the JWKS stops being honoured within that time.
  const verified = new Map<string, { result: VerifiedToken; until: number }>();
  return {
    async verify(authorization) {
      const token = bearerTokenOf(authorization);
      const now = clock().getTime();
      const slot = createHash('sha256').update(token).digest('base64url');
      const hit = verified.get(slot);
      if (hit !== undefined && now < hit.until) return hit.result;
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, keys, { ...options, currentDate: new Date(now) }));
      } catch (err) {
        throw refusalOf(err, token, checked, jwksUrl);
      }
      const result = grantsOf(payload, checked);
      if (verified.size >= VERIFIED_MAX) verified.clear();
      verified.set(slot, { result, until: Math.min(now + VERIFIED_TTL_MS, (payload.exp as number) * 1000) });
      return result;
    },
  };
}

function readJwksFile(file: string): JSONWebKeySet {
  let document: unknown;
  try {
    document = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new AppError('usage_error', `The OIDC jwks.file ${file} could not be read as JSON (${(err as Error).message}): give the path of the issuer's JWKS document, saved from its jwks_uri.`, { cause: err });
  }
  const keys = (document as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || keys.length === 0 || !keys.every((k) => typeof k === 'object' && k !== null && !Array.isArray(k))) {
    throw new AppError('usage_error', `The OIDC jwks.file ${file} is not a JWKS document: it must be {"keys": [...]} with at least one public key.`);
  }
  for (const key of keys as Record<string, unknown>[]) {
    if (key.kty === 'oct' || 'd' in key) {
      throw new AppError('usage_error', `The OIDC jwks.file ${file} holds a private or symmetric key${typeof key.kid === 'string' ? ` (kid ${key.kid})` : ''}: it must hold only the issuer's public keys, as its jwks_uri publishes them.`);
    }
  }
  return document as JSONWebKeySet;
}

/** The compact JWT of an `Authorization: Bearer <JWT>` header; unauthorized or token_invalid otherwise. */
function bearerTokenOf(authorization: string | undefined): string {
  const match = /^Bearer +(\S+) *$/i.exec(authorization ?? '');
  if (!match) {
    throw new AppError('unauthorized', `Send Authorization: Bearer <JWT> with an access token from your identity provider${authorization === undefined ? '' : ' (the Authorization header sent is not the word Bearer, a space and a token)'}.`);
  }
  const token = match[1]!;
  if (token.length > MAX_TOKEN_LENGTH || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token)) {
    throw new AppError('token_invalid', 'The bearer token is malformed: it is not a compact JWT (three base64url parts joined by dots). Send the access token exactly as your identity provider issued it.');
  }
  return token;
}

function missingKid(header: { kid?: unknown; alg?: unknown }): AppError {
  return new AppError('token_invalid', `The bearer token's header names no key id (kid ${show(header.kid)}, alg ${show(header.alg)}): this server verifies a token only with the issuer's key its kid names. Configure your identity provider to put kid in its access tokens' header.`);
}

/** The AppError that names the check a token failed, from jose's error; the token itself never enters it. */
function refusalOf(err: unknown, token: string, config: OidcConfig, jwksUrl: string | null): AppError {
  if (err instanceof AppError) return err;
  const header = headerOf(token);
  const code = err instanceof errors.JOSEError ? err.code : undefined;
  const invalid = (message: string) => new AppError('token_invalid', message, { cause: err });
  switch (code) {
    case 'ERR_JWT_EXPIRED': {
      const exp = (err as errors.JWTExpired).payload.exp;
      return new AppError('token_expired', `The bearer token has expired (exp ${isoOf(exp)}, checked with ${config.clockToleranceSeconds}s tolerance): get a fresh token from your identity provider.`, { cause: err });
    }
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      return claimRefusal(err as errors.JWTClaimValidationFailed, config);
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return invalid(`The bearer token's algorithm (alg ${show(header.alg)}) is not allowed: this server accepts ${config.algorithms.join(', ')}. Configure your identity provider to sign access tokens with one of them.`);
    case 'ERR_JOSE_NOT_SUPPORTED': {
      // From the token, only a `crit` naming an extension jose does not understand (checked before
      // the alg, which the allow-list has passed otherwise); anything else is a JWKS key jose
      // cannot use, the service's fault (below).
      const unknown = unknownCriticalOf(header);
      if (unknown.length > 0) {
        return invalid(`The bearer token's header marks ${unknown.map((name) => show(name)).join(', ')} as critical (crit ${show(header.crit)}), an extension this server does not understand, so the token must be refused (RFC 7515 §4.1.11). Configure your identity provider not to put unknown critical header parameters in its access tokens.`);
      }
      break;
    }
    case 'ERR_JWKS_NO_MATCHING_KEY':
      return invalid(`The bearer token's key id (kid ${show(header.kid)}, alg ${show(header.alg)}) matches no key of the issuer's JWKS: the token was signed by a key this server does not know. Get a token from ${config.issuer}, or update the configured JWKS if the issuer rotated its keys.`);
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return invalid(`The bearer token's key id (kid ${show(header.kid)}, alg ${show(header.alg)}) matches several keys of the issuer's JWKS, so which one signed it is ambiguous: the issuer must publish each signing key under a kid of its own.`);
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return invalid(`The bearer token's signature does not verify with the issuer's key (kid ${show(header.kid)}): it was not signed by ${config.issuer}, or was altered. Send the token exactly as your identity provider issued it.`);
    case 'ERR_JWS_INVALID':
    case 'ERR_JWT_INVALID':
      return invalid(`The bearer token is malformed (${(err as Error).message}): send the access token exactly as your identity provider issued it.`);
  }
  // Not the token's fault: the JWKS could not be fetched or read, or a key in it is unusable. A 503
  // (the service cannot check tokens now; the client may retry), logged like every 5xx.
  const where = jwksUrl === null ? 'the configured JWKS file' : `the JWKS at ${jwksUrl}`;
  return new AppError('token_keys_unavailable', `Bearer tokens cannot be checked: ${where} could not be used (${(err as Error)?.message ?? String(err)}). Check that the identity provider's JWKS is reachable and holds its current public keys.`, { cause: err });
}

function claimRefusal(err: errors.JWTClaimValidationFailed, config: OidcConfig): AppError {
  const { claim, reason, payload } = err;
  // token_expired is for exp alone (a client refreshes on it); a token not valid yet is not cured
  // by a fresh one from a skewed clock, so it is token_invalid like every other failed check.
  if (claim === 'nbf' && reason === 'check_failed') {
    return new AppError('token_invalid', `The bearer token is not valid yet (nbf ${isoOf(payload.nbf)}, checked with ${config.clockToleranceSeconds}s tolerance): check the clocks of this server and the identity provider, or use the token once its nbf has passed.`, { cause: err });
  }
  const message =
    reason === 'missing'
      ? {
          iss: `The bearer token has no issuer (iss): it must be issued by ${config.issuer}.`,
          aud: `The bearer token has no audience (aud): it must be issued for ${config.audience}; ask your identity provider for a token with that audience.`,
          exp: 'The bearer token has no expiry (exp): this server accepts only tokens that expire; configure your identity provider to set exp.',
          sub: 'The bearer token has no subject (sub): this server records every action under the token\'s sub; send a user\'s access token, not one without a subject.',
        }[claim]
      : {
          iss: `The bearer token's issuer (iss ${show(payload.iss)}) is not ${config.issuer}: get a token from that issuer.`,
          aud: `The bearer token's audience (aud ${show(payload.aud)}) does not include ${config.audience}: ask your identity provider for a token issued for this API's audience.`,
        }[claim];
  return new AppError('token_invalid', message ?? `The bearer token's ${claim} claim is invalid (${err.message}): send the access token exactly as your identity provider issued it.`, { cause: err });
}

/** The identity and operator flag the claims of a verified token grant; token_invalid when they cannot be read. */
function grantsOf(payload: JWTPayload, config: OidcConfig): VerifiedToken {
  const sub = payload.sub;
  if (typeof sub !== 'string' || !isId(sub)) {
    throw new AppError('token_invalid', `The bearer token's subject (sub ${show(sub)}) is not an id this service can record as an actor (${ID_RULE}): configure your identity provider to issue such subjects.`);
  }
  const tenants = idsOf(payload, config.tenantClaim, 'tenant');
  if (tenants === null) {
    throw new AppError('token_invalid', `The bearer token has no tenant claim (${config.tenantClaim}): configure your identity provider to add it to access tokens, naming the tenant id (or a list of them) the user may act in.`);
  }
  const workspaces = idsOf(payload, config.workspaceClaim, 'workspace');
  const roleValues = stringsOf(claimOf(payload, config.rolesClaim));
  const roles = TEAM_ROLES.filter((role): role is TeamRole => roleValues.includes(role));
  const actorType = payload[ACTOR_TYPE_CLAIM] ?? 'user';
  if (!ACTOR_TYPES.includes(actorType as (typeof ACTOR_TYPES)[number])) {
    throw new AppError('token_invalid', `The bearer token's ${ACTOR_TYPE_CLAIM} claim (${show(actorType)}) must be one of ${ACTOR_TYPES.join(', ')} (absent: user).`);
  }
  return {
    identity: { actor: { type: actorType as (typeof ACTOR_TYPES)[number], id: sub }, tenants, workspaces, roles, issuer: config.issuer },
    operator: roleValues.includes(config.operatorRole),
  };
}

/** The ids a claim names (a string or a non-empty array of them), null when it is absent. */
function idsOf(payload: JWTPayload, name: string, what: string): string[] | null {
  const value = claimOf(payload, name);
  if (value === undefined) return null;
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.length === 0 || !list.every((v): v is string => typeof v === 'string' && isId(v))) {
    throw new AppError('token_invalid', `The bearer token's ${what} claim (${name}) must be a ${what} id or a non-empty list of them (${ID_RULE}): fix the claim's mapping at your identity provider${what === 'workspace' ? ' (leave the claim out to grant every workspace of the tenants)' : ''}.`);
  }
  return [...new Set(list)];
}

/** The string values of a roles claim; anything that is not a string (or a list of them) counts as none. */
function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** A claim by name, or, when no claim has that name, by a dotted path into nested objects. */
function claimOf(payload: JWTPayload, name: string): unknown {
  if (Object.hasOwn(payload, name)) return payload[name];
  let value: unknown = payload;
  for (const part of name.split('.')) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** The header parameters a token's `crit` lists that jose does not understand (it knows only b64, RFC 7797). */
function unknownCriticalOf(header: { crit?: unknown }): string[] {
  return Array.isArray(header.crit) ? header.crit.filter((name): name is string => typeof name === 'string' && name !== 'b64') : [];
}

function headerOf(token: string): { alg?: unknown; kid?: unknown; crit?: unknown } {
  try {
    return decodeProtectedHeader(token);
  } catch {
    return {};
  }
}

/** A claim or header value for a message: quoted, and cut short (it came from the caller). */
function show(value: unknown): string {
  if (value === undefined) return 'absent';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function isoOf(seconds: unknown): string {
  return typeof seconds === 'number' && Number.isFinite(seconds) && Math.abs(seconds) < 8.64e12 ? new Date(seconds * 1000).toISOString() : show(seconds);
}
