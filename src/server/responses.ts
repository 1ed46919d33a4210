// Response schema shorthands for route declarations.

/** A problem body (application/problem+json). */
export const P = 'api/problem.json';

/** 422 of a write route with a template: its failed gate's validation body, or a problem (e.g. idempotency_key_reused). */
export const U = ['api/validation-result.json', P] as const;
