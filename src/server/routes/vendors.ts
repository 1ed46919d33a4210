// Vendors (docs/governance/vendors.md): the questionnaire, an assessment (vendor.assessed, with its
// derived points, findings, vendor_maturity and valid_until) and the vendor as last assessed.
import { assessVendorAnswers, getVendor, vendorQuestions } from '../../service/governance/vendors-service.ts';
import { requirePathId } from '../request-input.ts';
import { P } from '../responses.ts';
import type { Route } from '../route-spec.ts';
import { readContextOf, etagOf, writeContextOf, writtenAnswer } from '../write-context.ts';

export const VENDOR_ROUTES: Route[] = [
  {
    // Static data, the same for every scope, but under /v1: the scope headers are required (docs/contract.md §3).
    method: 'GET', path: '/v1/vendors/questions', status: 'preview', access: 'read', scoped: true,
    summary: 'The vendor questionnaire gov.vendor.questions.v1: 16 questions with answer types, points, critical flags, framework mappings and the questions each tier requires.',
    readme: 'questionnaire `gov.vendor.questions.v1` (VQ-01…16), with its sha256',
    responses: { 200: 'api/vendor-questions-response.json', 400: P },
    handler: (c, deps) => c.json(vendorQuestions(deps)),
  },
  {
    method: 'POST', path: '/v1/vendors', status: 'preview', access: 'write', scoped: true, accessLog: { resource: 'vendor' },
    summary: 'Assess a vendor from its answers (vendor.assessed): derived points, open findings, vendor_maturity and valid_until.',
    readme: '→ `vendor.assessed`; derived points (max 32), findings, `vendor_maturity` 0–4, `valid_until` (365 d, 180 d with findings)',
    request: 'api/vendor-assess-request.json',
    responses: { 201: 'api/vendor-write-response.json', 200: 'api/vendor-write-response.json', 400: P, 403: P, 404: P, 409: P, 422: P },
    handler: async (c, deps) => {
      // The service checks the body: the answers by the questionnaire (its refusals name the question and what it allows).
      const out = await assessVendorAnswers(deps, writeContextOf(c), c.get('body'));
      return writtenAnswer(c, out.replayed, { vendor: out.vendor, event: out.event }, { version: out.version });
    },
  },
  {
    method: 'GET', path: '/v1/vendors/{vendor_id}', status: 'preview', access: 'read', scoped: true,
    summary: 'A vendor as last assessed, with expired computed now (ETag: its version).', readme: 'the latest assessment; `expired` after `valid_until`',
    responses: { 200: 'api/vendor.json', 404: P }, etag: 'read',
    handler: async (c, deps) => {
      const { view, version } = await getVendor(deps, readContextOf(c), requirePathId(c.req.param('vendor_id') ?? '', 'vendor'));
      c.header('ETag', etagOf(version));
      return c.json(view);
    },
  },
];
