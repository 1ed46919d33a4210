// The hosted service's bearer tokens (src/server/oidc.ts, middleware/oidc-auth.ts), checked with
// real keys and real JWTs from the test identity provider (test/fixtures/oidc.ts): what a valid
// token grants, each check a token can fail with the code and the message that names it (and never
// the token), the configurations refused at start, and the 401 problem answers through Hono.
import { createHmac, generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Hono } from 'hono';
import { exportJWK, generateKeyPair } from 'jose';
import t, { type Test } from 'tap';
import { ERRORS } from '../../src/error-catalogue.ts';
import { AppError, type ErrorCode } from '../../src/errors.ts';
import type { AppEnv } from '../../src/server/env.ts';
import { requireOidc } from '../../src/server/middleware/oidc-auth.ts';
import { createOidcVerifier, DEFAULT_ALGORITHMS, oidcConfigOf, type OidcConfig } from '../../src/server/oidc.ts';
import { problemResponse } from '../../src/server/problem.ts';
import { serveJwks, TEST_KIDS, TEST_SUB, testIssuer, type TestIssuer } from '../fixtures/oidc.ts';
import { tempDir } from '../fixtures/test-app.ts';

async function issuerFor(t: Test, options?: Parameters<typeof testIssuer>[0]): Promise<TestIssuer> {
  const idp = await testIssuer(options);
  t.teardown(() => idp.close());
  return idp;
}

/** Asserts a refusal: its AppError code, a message naming the failed check, and never the token. Returns the message. */
async function refused(t: Test, verifying: Promise<unknown>, code: ErrorCode, names: RegExp, token?: string): Promise<string> {
  const err = await verifying.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof AppError)) {
    t.fail(`expected AppError ${code}, got ${String(err)}`);
    return '';
  }
  t.equal(err.code, code, `code ${code}: ${err.message}`);
  t.match(err.message, names, 'the message names the failed check');
  if (token !== undefined) {
    t.notOk(err.message.includes(token), 'the message does not repeat the token');
    for (const part of token.split('.')) if (part.length > 8) t.notOk(err.message.includes(part), 'nor a part of it');
  }
  return err.message;
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const nowSeconds = () => Math.floor(Date.now() / 1000);

t.test('RS256, ES256 and EdDSA tokens are accepted with exactly what their claims grant', async (t) => {
  const idp = await issuerFor(t);
  const verifier = createOidcVerifier(idp.config());

  const rs = await verifier.verify(`Bearer ${await idp.mint()}`);
  t.strictSame(rs, {
    identity: { actor: { type: 'user', id: TEST_SUB }, tenants: ['acme'], workspaces: null, roles: ['owner'], issuer: idp.issuer },
    operator: false,
  });

  const es = await verifier.verify(
    `Bearer ${await idp.mint(
      { sub: 'user-bob', gov_tenant: ['acme', 'globex', 'acme'], gov_workspace: ['ws-main', 'ws.lab'], gov_roles: ['auditor', 'superuser', 7, 'contributor', 'gov_operator'] },
      { alg: 'ES256' },
    )}`,
  );
  t.strictSame(es, {
    identity: { actor: { type: 'user', id: 'user-bob' }, tenants: ['acme', 'globex'], workspaces: ['ws-main', 'ws.lab'], roles: ['contributor', 'auditor'], issuer: idp.issuer },
    operator: true,
  }, 'tenants deduplicated, roles filtered to team roles (in rank order), the operator role read');

  const ed = await verifier.verify(`bearer ${await idp.mint({ gov_workspace: 'ws-main', gov_roles: 'admin' }, { alg: 'EdDSA' })}`);
  t.strictSame(ed.identity.workspaces, ['ws-main'], 'a single workspace as a string');
  t.strictSame(ed.identity.roles, ['admin'], 'a single role as a string');
  t.equal(ed.operator, false);

  const none = await verifier.verify(`Bearer ${await idp.mint({ gov_roles: undefined })}`);
  t.strictSame(none.identity.roles, [], 'no roles claim: no roles');
});

t.test('the JWKS by URL: fetched from a real HTTP server, an unknown kid still refused', async (t) => {
  const idp = await issuerFor(t);
  const served = await idp.serveJwks();
  t.teardown(() => served.close());
  const verifier = createOidcVerifier(idp.config({ jwks: { url: served.url } }));
  for (const alg of ['RS256', 'ES256', 'EdDSA'] as const) {
    const { identity } = await verifier.verify(`Bearer ${await idp.mint({}, { alg })}`);
    t.equal(identity.actor.id, TEST_SUB, `${alg} by URL`);
  }
  const token = await idp.mint({}, { kid: 'rotated-away' });
  await refused(t, verifier.verify(`Bearer ${token}`), 'token_invalid', /key id \(kid "rotated-away"/, token);
  const noKid = await idp.mint({}, { kid: null });
  await refused(t, verifier.verify(`Bearer ${noKid}`), 'token_invalid', /names no key id \(kid absent, alg "RS256"\).*put kid in its access tokens' header/, noKid);
});

t.test('a JWKS URL that cannot be fetched is the service\'s fault (503), not the token\'s', async (t) => {
  const idp = await issuerFor(t);
  const served = await serveJwks(idp.jwks);
  await served.close();
  const verifier = createOidcVerifier(idp.config({ jwks: { url: served.url } }));
  const token = await idp.mint();
  await refused(t, verifier.verify(`Bearer ${token}`), 'token_keys_unavailable', /JWKS at http:\/\/127\.0\.0\.1:\d+\/jwks\.json could not be used/, token);
  t.same(ERRORS.token_keys_unavailable.http, [503, 'Token keys unavailable'], 'answered 503: the client may try again once the JWKS is back');
});

t.test('expiry (token_expired) and not-before (token_invalid), against the injected clock and its tolerance', async (t) => {
  const idp = await issuerFor(t);
  const verifier = createOidcVerifier(idp.config());

  const expired = await idp.mint({}, { expiresIn: -120 });
  await refused(t, verifier.verify(`Bearer ${expired}`), 'token_expired', /has expired \(exp \d{4}-\d\d-\d\dT.*30s tolerance\)/, expired);
  t.ok(await verifier.verify(`Bearer ${await idp.mint({}, { expiresIn: -10 })}`), 'expired 10s ago: within the 30s tolerance');
  const strict = createOidcVerifier(idp.config({ clockToleranceSeconds: 0 }));
  await refused(t, strict.verify(`Bearer ${await idp.mint({}, { expiresIn: -10 })}`), 'token_expired', /has expired/);

  const early = await idp.mint({ nbf: nowSeconds() + 600 });
  await refused(t, verifier.verify(`Bearer ${early}`), 'token_invalid', /not valid yet \(nbf \d{4}-\d\d-\d\dT.*30s tolerance\)/, early);
  t.ok(await verifier.verify(`Bearer ${await idp.mint({ nbf: nowSeconds() + 10 })}`), 'nbf 10s ahead: within the tolerance');

  const later = createOidcVerifier(idp.config(), () => new Date(Date.now() + 3_600_000));
  await refused(t, later.verify(`Bearer ${await idp.mint()}`), 'token_expired', /has expired/);
  const earlier = createOidcVerifier(idp.config(), () => new Date(Date.now() - 3_600_000));
  await refused(t, earlier.verify(`Bearer ${await idp.mint({ nbf: nowSeconds() })}`), 'token_invalid', /not valid yet/);

  const fixed = Date.parse('2026-11-01T10:00:00.000Z');
  const pinned = await issuerFor(t, { now: () => new Date(fixed) });
  const onTime = createOidcVerifier(pinned.config(), () => new Date(fixed + 60_000));
  t.ok(await onTime.verify(`Bearer ${await pinned.mint()}`), 'a token of the fixed clock, checked at that clock');

  const forever = await idp.mint({ exp: undefined });
  await refused(t, verifier.verify(`Bearer ${forever}`), 'token_invalid', /no expiry \(exp\)/, forever);
});

t.test('issuer and audience must match the configuration', async (t) => {
  const idp = await issuerFor(t);
  const verifier = createOidcVerifier(idp.config());
  const wrongIss = await idp.mint({}, { issuer: 'https://evil.example' });
  await refused(t, verifier.verify(`Bearer ${wrongIss}`), 'token_invalid', /issuer \(iss "https:\/\/evil\.example"\) is not https:\/\/idp\.test\.example\/realms\/acme/, wrongIss);
  const noIss = await idp.mint({ iss: undefined });
  await refused(t, verifier.verify(`Bearer ${noIss}`), 'token_invalid', /no issuer \(iss\)/, noIss);
  const wrongAud = await idp.mint({}, { audience: 'another-api' });
  await refused(t, verifier.verify(`Bearer ${wrongAud}`), 'token_invalid', /audience \(aud "another-api"\) does not include gov-api/, wrongAud);
  const noAud = await idp.mint({ aud: undefined });
  await refused(t, verifier.verify(`Bearer ${noAud}`), 'token_invalid', /no audience \(aud\)/, noAud);
  t.ok(await verifier.verify(`Bearer ${await idp.mint({ aud: ['account', 'gov-api'] })}`), 'an aud list that contains the audience');
});

t.test('algorithm attacks (alg none, HS256 keyed with the public key) and unknown critical headers', async (t) => {
  const idp = await issuerFor(t);
  const verifier = createOidcVerifier(idp.config());
  const claims = { iss: idp.issuer, aud: idp.audience, sub: TEST_SUB, gov_tenant: 'acme', gov_roles: ['owner'], exp: nowSeconds() + 600 };

  const unsigned = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`;
  await refused(t, verifier.verify(`Bearer ${unsigned}`), 'token_invalid', /algorithm \(alg "none"\) is not allowed: this server accepts RS256, PS256, ES256, EdDSA/, unsigned);

  const input = `${b64({ alg: 'HS256', typ: 'JWT', kid: TEST_KIDS.RS256 })}.${b64(claims)}`;
  const confused = `${input}.${createHmac('sha256', idp.publicKeyPem).update(input).digest('base64url')}`;
  await refused(t, verifier.verify(`Bearer ${confused}`), 'token_invalid', /algorithm \(alg "HS256"\) is not allowed/, confused);

  // A correctly signed token with a critical header extension this server does not understand
  // (RFC 7515 §4.1.11) is refused for that, not for an algorithm it does allow.
  for (const alg of ['RS256', 'ES256'] as const) {
    const critical = await idp.mint({}, { alg, header: { crit: ['x'], x: 1 } });
    const message = await refused(t, verifier.verify(`Bearer ${critical}`), 'token_invalid', /header marks "x" as critical \(crit \["x"\]\), an extension this server does not understand/, critical);
    t.notMatch(message, /algorithm/, `${alg}: the message does not blame the algorithm`);
  }
  const twoCritical = await idp.mint({}, { header: { crit: ['x', 'y'], x: 1, y: 2 } });
  await refused(t, verifier.verify(`Bearer ${twoCritical}`), 'token_invalid', /header marks "x", "y" as critical/, twoCritical);

  const es512 = createOidcVerifier(idp.config({ algorithms: ['RS256'] }));
  const es = await idp.mint({}, { alg: 'ES256' });
  await refused(t, es512.verify(`Bearer ${es}`), 'token_invalid', /algorithm \(alg "ES256"\) is not allowed: this server accepts RS256\./, es);
});

t.test('keys: an unknown kid, and a forger\'s key under a known kid', async (t) => {
  const idp = await issuerFor(t);
  const verifier = createOidcVerifier(idp.config());
  const unknown = await idp.mint({}, { kid: 'nope' });
  await refused(t, verifier.verify(`Bearer ${unknown}`), 'token_invalid', /key id \(kid "nope", alg "RS256"\) matches no key of the issuer's JWKS/, unknown);

  // jose alone would take the JWKS's only key of the token's type; a known kid is required.
  for (const alg of ['RS256', 'ES256', 'EdDSA'] as const) {
    const noKid = await idp.mint({}, { alg, kid: null });
    await refused(t, verifier.verify(`Bearer ${noKid}`), 'token_invalid', new RegExp(`names no key id \\(kid absent, alg "${alg}"\\): .*put kid in its access tokens' header`), noKid);
  }
  const emptyKid = await idp.mint({}, { kid: '' });
  await refused(t, verifier.verify(`Bearer ${emptyKid}`), 'token_invalid', /names no key id \(kid "", alg "RS256"\)/, emptyKid);

  const forger = await generateKeyPair('RS256');
  const forged = await idp.mint({}, { key: forger.privateKey, kid: TEST_KIDS.RS256 });
  await refused(t, verifier.verify(`Bearer ${forged}`), 'token_invalid', /signature does not verify with the issuer's key \(kid "test-rsa-1"\)/, forged);

  const [header, payload, signature] = (await idp.mint()).split('.');
  const altered = `${header}.${b64({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), gov_roles: ['owner', 'gov_operator'] })}.${signature}`;
  await refused(t, verifier.verify(`Bearer ${altered}`), 'token_invalid', /signature does not verify/, altered);
});

t.test('the subject and the tenant claim are required and must be ids', async (t) => {
  const idp = await issuerFor(t);
  const verifier = createOidcVerifier(idp.config());
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ sub: undefined }, /no subject \(sub\)/],
    [{ sub: 'auth0|5f7c8ec7c33c6c004bbafe82' }, /subject \(sub "auth0\|5f7c8ec7c33c6c004bbafe82"\) is not an id .*2–128 letters/],
    [{ sub: 42 }, /subject \(sub 42\) is not an id/],
    [{ gov_tenant: undefined }, /no tenant claim \(gov_tenant\)/],
    [{ gov_tenant: [] }, /tenant claim \(gov_tenant\) must be a tenant id or a non-empty list/],
    [{ gov_tenant: ['acme', 'bad tenant'] }, /tenant claim \(gov_tenant\) must be/],
    [{ gov_workspace: [] }, /workspace claim \(gov_workspace\) must be .*leave the claim out to grant every workspace/],
    [{ gov_workspace: { id: 'ws' } }, /workspace claim \(gov_workspace\)/],
  ];
  for (const [claims, names] of cases) {
    const token = await idp.mint(claims);
    await refused(t, verifier.verify(`Bearer ${token}`), 'token_invalid', names, token);
  }
  const custom = createOidcVerifier(idp.config({ tenantClaim: 'org' }));
  await refused(t, custom.verify(`Bearer ${await idp.mint()}`), 'token_invalid', /no tenant claim \(org\)/);
  t.strictSame((await custom.verify(`Bearer ${await idp.mint({ org: 'initech' })}`)).identity.tenants, ['initech']);
});

t.test('the Authorization header: absent or not Bearer is unauthorized, a non-JWT is token_invalid', async (t) => {
  const idp = await issuerFor(t);
  const verifier = createOidcVerifier(idp.config());
  for (const header of [undefined, '', 'Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', 'Token abc.def.ghi', 'Bearer a b']) {
    await refused(t, verifier.verify(header), 'unauthorized', /^Send Authorization: Bearer <JWT>/);
  }
  for (const token of ['garbage', 'a.b', 'a.b.c.d', 'ab$c.def.ghi', `${'a'.repeat(20_000)}.b.c`]) {
    await refused(t, verifier.verify(`Bearer ${token}`), 'token_invalid', /malformed: it is not a compact JWT/);
  }
  const notJson = 'bm90anNvbg.bm90anNvbg.c2ln';
  await refused(t, verifier.verify(`Bearer ${notJson}`), 'token_invalid', /malformed \(.*\): send the access token exactly/, notJson);
});

t.test('the roles claim by a dotted path, or by a claim name with dots in it', async (t) => {
  const idp = await issuerFor(t);
  const keycloak = createOidcVerifier(idp.config({ rolesClaim: 'realm_access.roles', operatorRole: 'ops' }));
  const kc = await keycloak.verify(`Bearer ${await idp.mint({ gov_roles: undefined, realm_access: { roles: ['offline_access', 'admin', 'ops', 'agent'] } })}`);
  t.strictSame(kc.identity.roles, ['admin', 'agent']);
  t.equal(kc.operator, true);
  const missing = await keycloak.verify(`Bearer ${await idp.mint({ gov_roles: undefined, realm_access: 'admin' })}`);
  t.strictSame(missing.identity.roles, [], 'the path leads through a string: no roles');
  t.equal(missing.operator, false);

  const namespaced = createOidcVerifier(idp.config({ rolesClaim: 'https://gov.example/roles' }));
  const ns = await namespaced.verify(`Bearer ${await idp.mint({ 'https://gov.example/roles': ['auditor', 'gov_operator'] })}`);
  t.strictSame(ns.identity.roles, ['auditor']);
  t.equal(ns.operator, true);
});

t.test('configurations refused at start with usage_error', async (t) => {
  const idp = await issuerFor(t);
  const base = { issuer: idp.issuer, audience: idp.audience, jwks: { file: idp.jwksFile } };
  t.strictSame(oidcConfigOf(base), {
    ...base,
    algorithms: [...DEFAULT_ALGORITHMS],
    tenantClaim: 'gov_tenant',
    workspaceClaim: 'gov_workspace',
    rolesClaim: 'gov_roles',
    operatorRole: 'gov_operator',
    clockToleranceSeconds: 30,
  }, 'the defaults');
  const refusals: [Partial<OidcConfig>, RegExp][] = [
    [{ algorithms: ['RS256', 'none'] }, /must not include none: an unsigned token proves nothing/],
    [{ algorithms: ['HS256'] }, /must not include HS256: a symmetric algorithm/],
    [{ algorithms: ['hs512'] }, /must not include hs512/],
    [{ algorithms: ['RS1'] }, /"RS1", which is not a signing algorithm this server verifies/],
    [{ algorithms: [] }, /algorithms must be a non-empty list/],
    [{ issuer: '' }, /issuer must be a non-empty string/],
    [{ audience: ' gov-api' }, /audience must be a non-empty string without surrounding spaces/],
    [{ jwks: { url: 'http://idp.example/jwks.json' } }, /jwks\.url must be https:\/\/ .*not http:\/\/idp\.example/],
    [{ jwks: { url: 'not a url' } }, /jwks\.url is not a URL/],
    [{ jwks: { url: 'https://idp.example/jwks', file: 'x' } as unknown as OidcConfig['jwks'] }, /exactly one of \{url\}/],
    [{ jwks: {} as OidcConfig['jwks'] }, /exactly one of \{url\}/],
    [{ rolesClaim: '' }, /rolesClaim must be a non-empty string/],
    [{ operatorRole: 'owner' }, /operatorRole must not be a team role \(owner\)/],
    [{ clockToleranceSeconds: -1 }, /clockToleranceSeconds must be a whole number of seconds from 0 to 300/],
    [{ clockToleranceSeconds: 1.5 }, /clockToleranceSeconds/],
  ];
  for (const [override, names] of refusals) {
    await refused(t, Promise.resolve().then(() => oidcConfigOf({ ...base, ...override })), 'usage_error', names);
  }
  const raw = { ...oidcConfigOf(base), algorithms: ['none'] };
  await refused(t, Promise.resolve().then(() => createOidcVerifier(raw)), 'usage_error', /must not include none/);
  t.ok(oidcConfigOf({ ...base, jwks: { url: 'https://idp.example/jwks.json' } }), 'https is accepted');

  const dir = tempDir(t);
  const priv = join(dir, 'private.json');
  writeFileSync(priv, JSON.stringify({ keys: [{ ...(await exportJWK(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey)), kid: 'k1' }] }));
  await refused(t, Promise.resolve().then(() => createOidcVerifier(oidcConfigOf({ ...base, jwks: { file: priv } }))), 'usage_error', /holds a private or symmetric key \(kid k1\)/);
  const empty = join(dir, 'empty.json');
  writeFileSync(empty, '{"keys": []}');
  await refused(t, Promise.resolve().then(() => createOidcVerifier(oidcConfigOf({ ...base, jwks: { file: empty } }))), 'usage_error', /is not a JWKS document/);
  await refused(t, Promise.resolve().then(() => createOidcVerifier(oidcConfigOf({ ...base, jwks: { file: join(dir, 'missing.json') } }))), 'usage_error', /could not be read as JSON/);
});

t.test('through Hono: requireOidc sets transport and identity, refusals are 401 problems', async (t) => {
  const idp = await issuerFor(t);
  const app = new Hono<AppEnv>();
  app.use('*', requireOidc(createOidcVerifier(idp.config())));
  app.get('/v1/whoami', (c) => c.json({ transport: c.get('transport'), identity: c.get('identity'), cookieSession: c.get('cookieSession') }));
  app.onError((err, c) => problemResponse(c, err));
  const call = (authorization?: string) => app.request('/v1/whoami', { headers: authorization === undefined ? {} : { Authorization: authorization } });

  const ok = await call(`Bearer ${await idp.mint()}`);
  t.equal(ok.status, 200);
  t.strictSame(await ok.json(), {
    transport: 'customer',
    identity: { actor: { type: 'user', id: TEST_SUB }, tenants: ['acme'], workspaces: null, roles: ['owner'], issuer: idp.issuer },
    cookieSession: false,
  });
  const operator = await call(`Bearer ${await idp.mint({ gov_roles: ['gov_operator'] })}`);
  t.equal(((await operator.json()) as { transport: string }).transport, 'operator');

  const cases: [string | undefined, ErrorCode][] = [
    [undefined, 'unauthorized'],
    ['Basic dXNlcjpwYXNz', 'unauthorized'],
    ['Bearer garbage', 'token_invalid'],
    [`Bearer ${await idp.mint({}, { issuer: 'https://evil.example' })}`, 'token_invalid'],
    [`Bearer ${await idp.mint({}, { kid: null })}`, 'token_invalid'],
    [`Bearer ${await idp.mint({}, { expiresIn: '-1h' })}`, 'token_expired'],
    [`Bearer ${await idp.mint({ nbf: nowSeconds() + 3600 })}`, 'token_invalid'],
    [`Bearer ${await idp.mint({}, { header: { crit: ['x'], x: 1 } })}`, 'token_invalid'],
  ];
  for (const [authorization, code] of cases) {
    const res = await call(authorization);
    const [status, title] = ERRORS[code].http!;
    t.equal(res.status, status, `${code}: ${status}`);
    t.equal(res.status, 401);
    t.equal(res.headers.get('content-type'), 'application/problem+json');
    t.match(res.headers.get('www-authenticate'), /^Bearer/);
    if (code !== 'unauthorized') {
      // RFC 6750 §3.1: a token sent but refused is invalid_token, so the client knows to get a new one.
      t.equal(res.headers.get('www-authenticate'), 'Bearer error="invalid_token"');
    }
    const body = (await res.json()) as { code: string; title: string; detail: string };
    t.equal(body.code, code);
    t.equal(body.title, title);
    if (authorization !== undefined) t.notOk(body.detail.includes(authorization.slice(7)), 'the problem does not repeat the token');
  }
});

t.test('a verified token is taken on trust for at most a minute, never past its exp', async (t) => {
  const idp = await issuerFor(t);
  let now = Date.now();
  const verifier = createOidcVerifier(idp.config({ clockToleranceSeconds: 0 }), () => new Date(now));
  const token = await idp.mint({}, { expiresIn: 90 });
  const first = await verifier.verify(`Bearer ${token}`);
  t.equal(await verifier.verify(`Bearer ${token}`), first, 'the same token again: the remembered verification');
  now += 61_000;
  const again = await verifier.verify(`Bearer ${token}`);
  t.not(again, first, 'after a minute it is verified anew');
  t.same(again, first, 'with the same grants');
  now += 30_000;
  await refused(t, verifier.verify(`Bearer ${token}`), 'token_expired', /has expired/, token);
});

t.test('gov_actor_type: an agent or service account token is recorded as such; other values are refused', async (t) => {
  const idp = await issuerFor(t);
  const verifier = createOidcVerifier(idp.config());
  t.same((await verifier.verify(`Bearer ${await idp.mint()}`)).identity.actor, { type: 'user', id: TEST_SUB }, 'absent: a user');
  t.same((await verifier.verify(`Bearer ${await idp.mint({ gov_actor_type: 'agent' })}`)).identity.actor, { type: 'agent', id: TEST_SUB });
  t.same((await verifier.verify(`Bearer ${await idp.mint({ gov_actor_type: 'service_account' })}`)).identity.actor, { type: 'service_account', id: TEST_SUB });
  const robot = await idp.mint({ gov_actor_type: 'robot' });
  await refused(t, verifier.verify(`Bearer ${robot}`), 'token_invalid', /gov_actor_type claim \("robot"\) must be one of user, agent, service_account/, robot);
});
