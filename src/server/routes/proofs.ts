// Claim boundaries, Proof Packets, receipts, keys, signature verification and attestations.
import { Hono } from 'hono';
import type { ServiceDeps } from '../../service/deps.ts';
import { assemblePacket, evaluateClaims, findPacketEvent } from '../../service/proofs-service.ts';
import { getReceipt, packetAttestation, packetManifest, publicKeys, verifySignatures } from '../../service/receipts-service.ts';
import type { AppEnv } from '../env.ts';
import { readJsonBody, readScope, requirePathId } from '../request-input.ts';
import { writeContextOf, writeResponse } from '../write-context.ts';

export function proofRoutes(deps: ServiceDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post('/v1/claim-boundaries/evaluate', async (c) => {
    readScope(c);
    const body = await readJsonBody(c);
    const { replayed, decision } = await evaluateClaims(deps, writeContextOf(c, body), body);
    if (replayed) c.header('Idempotent-Replayed', 'true');
    return c.json(decision, 200);
  });
  app.post('/v1/proof-packets', async (c) => {
    readScope(c);
    const body = await readJsonBody(c);
    const outcome = await assemblePacket(deps, writeContextOf(c, body), body);
    // A body the template's gate refuses answers the validation body, as POST /v1/templates/validate does.
    if (!outcome.ok) return c.json(outcome.validation, 422);
    const { replayed, packet } = outcome.write;
    return writeResponse(c, replayed, packet as unknown as Record<string, unknown>);
  });
  app.get('/v1/proof-packets/:packet_id', (c) => {
    const scope = readScope(c);
    return c.json(findPacketEvent(deps, scope, requirePathId(c.req.param('packet_id'), 'proof packet')).payload.packet as object);
  });
  app.get('/v1/proof-packets/:packet_id/redaction-manifest', (c) => {
    const scope = readScope(c);
    return c.json(packetManifest(deps, scope, requirePathId(c.req.param('packet_id'), 'proof packet')));
  });
  app.get('/v1/proof-packets/:packet_id/attestation', (c) => {
    const scope = readScope(c);
    return c.json(packetAttestation(deps, scope, requirePathId(c.req.param('packet_id'), 'proof packet')));
  });
  app.get('/v1/receipts/:receipt_id', (c) => {
    const scope = readScope(c);
    return c.json(getReceipt(deps, scope, requirePathId(c.req.param('receipt_id'), 'receipt')));
  });
  app.post('/v1/signatures/verify', async (c) => {
    const scope = readScope(c);
    const body = await readJsonBody(c);
    return c.json(verifySignatures(deps, scope, body));
  });
  app.get('/v1/keys', (c) => c.json(publicKeys(deps.keys)));
  return app;
}
