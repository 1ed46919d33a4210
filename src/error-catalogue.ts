// Every error code of the project, once: its HTTP status and title, its CLI exit code and the advice
// the MCP front door adds. The problem table (server/problem.ts), the forge's error bodies
// (server/middleware/forge-errors.ts), the CLI (cli/exit-codes.ts) and the front door
// (frontdoor/tool-result.ts) all read this object, so a code raised anywhere has an answer
// everywhere and the compiler refuses a code that is not here (docs/errors.md lists them all).

export type ErrorSpec = {
  /**
   * The status and title a route answers with. null: no route answers with this code as itself —
   * it is raised by the CLI, the front door, or as a broken invariant — so over HTTP it is a
   * generic 500 `internal_error` whose message stays in the server log (docs/contract.md §4).
   */
  readonly http: readonly [status: number, title: string] | null;
  /** The CLI's exit code (docs/contract.md §1): 2 usage or bad input, 3 runtime failure. */
  readonly exit: 2 | 3;
  /** What an agent should do next, added by gov mcp after the message (docs/contract.md §11). */
  readonly mcp?: string;
};

const SCOPE_HINT = 'Pass tenant_id, workspace_id and project_id as tool arguments, or set GOV_TENANT_ID, GOV_WORKSPACE_ID and GOV_PROJECT_ID in the environment of gov mcp.';

// Grouped by status (docs/contract.md §4 says how a status is chosen). The forge quota routes
// answer the same statuses with the forge's {message, url} body instead of a problem.
export const ERRORS = {
  // 400: the request itself cannot be read.
  bad_request: { http: [400, 'Bad request'], exit: 3 },
  malformed_json: { http: [400, 'Malformed JSON'], exit: 3 },
  json_too_deep: {
    http: [400, 'JSON nested too deeply'],
    exit: 3,
    mcp: 'An argument nests arrays and objects more than 64 levels deep; flatten it (the pointer names the first level too deep) and call the tool again.',
  },
  scope_required: { http: [400, 'Scope required'], exit: 3, mcp: SCOPE_HINT },
  invalid_scope: {
    http: [400, 'Invalid scope'],
    exit: 3,
    mcp: `${SCOPE_HINT} Each is an id: 2–128 letters, digits, _ . : - starting with a letter or digit.`,
  },
  idempotency_key_required: { http: [400, 'Idempotency-Key required'], exit: 3 },
  invalid_idempotency_key: { http: [400, 'Invalid Idempotency-Key'], exit: 3 },
  invalid_query: { http: [400, 'Invalid query'], exit: 3, mcp: 'Fix the argument named in the pointer and call the tool again.' },
  invalid_if_match: { http: [400, 'Invalid If-Match'], exit: 3 },
  invalid_body: { http: [400, 'Invalid body'], exit: 3 },
  forge_data_invalid: { http: [400, 'Invalid forge data'], exit: 2 },

  // 401: no token, or one this server does not accept (a run's token, a valid OIDC token).
  unauthorized: {
    http: [401, 'Unauthorized'],
    exit: 3,
    mcp: 'The token of gov mcp is not accepted (a restarted preview has new tokens): restart gov mcp with the current token (--token-file <data-dir>/run.json, or GOV_TOKEN).',
  },
  forge_unauthorized: { http: [401, 'Unauthorized'], exit: 3 },
  login_code_invalid: { http: [401, 'Login code invalid'], exit: 3 },
  token_invalid: {
    http: [401, 'Token invalid'],
    exit: 3,
    mcp: 'The hosted service refused the bearer token (signature, issuer, audience, algorithm or key id): give gov mcp a current token from your identity provider (--token-file, or GOV_TOKEN).',
  },
  token_expired: { http: [401, 'Token expired'], exit: 3, mcp: 'The bearer token has expired: give gov mcp a fresh token from your identity provider.' },

  // 403: who or where the caller is.
  operator_transport_rejected: {
    http: [403, 'Operator transport rejected'],
    exit: 3,
    mcp: 'gov mcp was given the operator token; writes need the customer token (tokens.customer of run.json).',
  },
  scope_mismatch: { http: [403, 'Scope mismatch'], exit: 3, mcp: 'The scope members given disagree with each other; send one scope.' },
  host_not_allowed: { http: [403, 'Host not allowed'], exit: 3 },
  origin_not_allowed: { http: [403, 'Origin not allowed'], exit: 3 },
  csrf_token_invalid: { http: [403, 'CSRF token invalid'], exit: 3 },
  operator_token_required: { http: [403, 'Operator token required'], exit: 3 },
  forge_admin_required: { http: [403, 'Site admin required'], exit: 3 },
  sudo_required: { http: [403, 'Sudo required'], exit: 3 },
  sudo_not_allowed: { http: [403, 'Sudo not allowed'], exit: 3 },
  not_org_owner: { http: [403, 'Not an owner of the organisation'], exit: 3 },
  token_scope_mismatch: {
    http: [403, 'Token scope mismatch'],
    exit: 3,
    mcp: 'The scope sent is not one the bearer token grants: use the tenant and workspace named in the token\'s claims.',
  },
  actor_not_token_subject: { http: [403, 'Actor is not the token subject'], exit: 3 },

  // 404: nothing there for this caller. The CLI raises not_found too (no event log to verify).
  not_found: { http: [404, 'Not found'], exit: 3 },
  not_found_in_scope: { http: [404, 'Not found in scope'], exit: 3 },
  task_not_found: {
    http: [404, 'Task not found'],
    exit: 3,
    mcp: 'Check task_id and the scope; search_tasks finds tasks in this scope, task_create opens a new one.',
  },
  template_not_found: {
    http: [404, 'Template not found'],
    exit: 3,
    mcp: 'Leave template_id out for the default, or use an id or alias that GET /v1/templates lists.',
  },
  route_not_found: { http: [404, 'Route not found'], exit: 3 },
  quota_disabled: { http: [404, 'Quota disabled'], exit: 3 },
  quota_rule_not_found: { http: [404, 'Quota rule not found'], exit: 3 },
  quota_group_not_found: { http: [404, 'Quota group not found'], exit: 3 },
  forge_user_not_found: { http: [404, 'Forge user not found'], exit: 3 },
  forge_org_not_found: { http: [404, 'Forge organisation not found'], exit: 3 },
  quota_user_not_in_group: { http: [404, 'User not in group'], exit: 3 },
  quota_rule_not_in_group: { http: [404, 'Rule not in group'], exit: 3 },

  // 408, 413, 415, 431: what the HTTP layer refuses.
  request_timeout: { http: [408, 'Request timeout'], exit: 3 },
  payload_too_large: { http: [413, 'Payload too large'], exit: 3 },
  unsupported_media_type: { http: [415, 'Unsupported media type'], exit: 3 },
  request_header_fields_too_large: { http: [431, 'Request header fields too large'], exit: 3 },

  // 409: the request is fine but conflicts with recorded state.
  task_exists: {
    http: [409, 'Task exists'],
    exit: 3,
    mcp: 'A task with this task_id exists in this scope: continue it with task_checkpoint, or leave task_id out so the server makes a new id.',
  },
  task_closed: {
    http: [409, 'Task closed'],
    exit: 3,
    mcp: 'The task is closed and takes no more writes: open a new task with task_create for further work.',
  },
  event_id_exists: { http: [409, 'Event id exists'], exit: 3 },
  write_conflict: { http: [409, 'Write conflict'], exit: 3, mcp: 'Other writes kept changing what this call depends on; call the tool again.' },
  quota_rule_exists: { http: [409, 'Quota rule exists'], exit: 3 },
  quota_group_exists: { http: [409, 'Quota group exists'], exit: 3 },
  quota_user_in_group: { http: [409, 'User already in group'], exit: 3 },
  quota_rule_in_group: { http: [409, 'Rule already in group'], exit: 3 },

  // 412: the If-Match version is stale.
  precondition_failed: {
    http: [412, 'Precondition failed'],
    exit: 3,
    mcp: 'The task changed since it was read: read it again (task_timeline) and decide again before writing.',
  },

  // 422: readable, but refused by a schema or a rule.
  validation_failed: { http: [422, 'Validation failed'], exit: 3, mcp: 'Fix the arguments at the pointers listed and call the tool again.' },
  not_plain_json: { http: [422, 'Not plain JSON'], exit: 3 },
  reserved_event_kind: { http: [422, 'Reserved event kind'], exit: 3 },
  unknown_event_kind: { http: [422, 'Unknown event kind'], exit: 3 },
  idempotency_key_reused: { http: [422, 'Idempotency key reused'], exit: 3 },
  session_ids_required: { http: [422, 'Session ids required'], exit: 3 },
  empty_snapshot: { http: [422, 'Nothing to assemble'], exit: 3 },
  invalid_date_time: { http: [422, 'Invalid date-time'], exit: 3 },
  as_of_in_future: { http: [422, 'as_of in the future'], exit: 3 },
  unrecognised_subject: { http: [422, 'Unrecognised subject'], exit: 2 },
  quota_group_unknown: { http: [422, 'Unknown quota group'], exit: 3 },
  invalid_order_by: { http: [422, 'Invalid order_by'], exit: 3 },

  // 503: the store, not the request.
  store_write_failed: { http: [503, 'Store write failed'], exit: 3 },
  store_unavailable: { http: [503, 'Store unavailable'], exit: 3 },
  // The hosted service cannot check bearer tokens: its identity provider's JWKS is unreachable or unusable.
  token_keys_unavailable: { http: [503, 'Token keys unavailable'], exit: 3 },
  console_not_built: { http: [503, 'Console not built'], exit: 3 },
  index_behind: {
    http: [503, 'Index behind'],
    exit: 3,
    mcp: "The server's index is catching up (its writes are safe in the log); wait a few seconds and call the tool again.",
  },
  index_unavailable: {
    http: [503, 'Index unavailable'],
    exit: 3,
    mcp: "The server's index is damaged (its writes are safe in the log) and the preview is rebuilding it: call again after a few seconds.",
  },
  store_closed: { http: [503, 'Store closed'], exit: 3 },

  // Governance: approvals and separation of duties, reviews, the team (docs/governance/approvals.md).
  // The rules in src/domain/governance/ refuse with these codes as values carrying this status.
  invite_token_invalid: {
    http: [401, 'Invite token invalid'],
    exit: 3,
    mcp: 'Send the token that was returned once when the invite was created, or ask an owner or admin for a new invite.',
  },
  role_required: {
    http: [403, 'Role required'],
    exit: 3,
    mcp: 'The actor lacks the team role this needs (GET /v1/team lists roles); act as a user who holds it, or ask an owner or admin to grant it.',
  },
  role_escalation_forbidden: { http: [403, 'Role escalation forbidden'], exit: 3 },
  actor_type_not_allowed: {
    http: [403, 'Actor type not allowed'],
    exit: 3,
    mcp: 'Agents and service accounts may request and propose, never decide: a user must send this decision.',
  },
  self_approval_forbidden: {
    http: [403, 'Self-approval forbidden'],
    exit: 3,
    mcp: 'The requester of an approval never decides it: another user holding the step role must.',
  },
  not_requester: { http: [403, 'Not the requester'], exit: 3 },
  owner_cannot_finalise: { http: [403, 'Asset owner cannot finalise'], exit: 3 },
  owner_cannot_review: { http: [403, 'Asset owner cannot review'], exit: 3 },
  approval_superseded: {
    http: [409, 'Approval superseded'],
    exit: 3,
    mcp: 'A newer evaluation replaced this approval request: list approvals of the asset and decide the current one.',
  },
  approval_not_pending: { http: [409, 'Approval not pending'], exit: 3 },
  approval_subject_changed: {
    http: [409, 'Approval subject changed'],
    exit: 3,
    mcp: 'The approval is bound to other inputs than the ones reviewed: read the approval again, review what it is bound to, then decide.',
  },
  one_person_one_step: { http: [409, 'One person, one step'], exit: 3 },
  step_mismatch: { http: [409, 'Step mismatch'], exit: 3, mcp: 'Read the approval (its current_step) and send that step.' },
  review_cycle_stale: { http: [409, 'Review cycle stale'], exit: 3, mcp: 'List the open reviews of the asset and complete the open cycle.' },
  owner_exists: { http: [409, 'Owner exists'], exit: 3 },
  invite_not_open: { http: [409, 'Invite not open'], exit: 3 },
  // The registry and risk routes (src/service/governance/registry-service.ts).
  evidence_hash_mismatch: { http: [422, 'Evidence hash mismatch'], exit: 3, mcp: 'Send the exact bytes the evidence ref is bound to: their sha256 must equal the ref\'s sha256.' },
  asset_retired: { http: [409, 'Asset retired'], exit: 3, mcp: 'A retired asset takes no evaluation; register it again under a new asset_id.' },
  last_owner_required: { http: [409, 'Last owner required'], exit: 3 },

  // Regulatory posture (docs/governance/regulatory.md): an item's status must be backed. The rules in
  // src/domain/governance/regulatory.ts refuse with these codes as values carrying this status.
  evidence_required: {
    http: [422, 'Evidence required'],
    exit: 3,
    mcp: "Cited evidence must be in this scope's evidence pool (a met posture item needs some): attach it first (a task's evidence_refs, or a raw evidence.attached event with or without a task), then cite its artifact_id in evidence_refs.",
  },
  justification_required: {
    http: [422, 'Justification required'],
    exit: 3,
    mcp: 'not_applicable needs a justification of 20–500 characters saying why the requirement does not apply: send it in justification.',
  },

  // Incidents (docs/governance/incidents.md): the lifecycle and the serious-incident closing rule.
  // The rules in src/domain/governance/incidents.ts refuse with these codes as values carrying this status.
  invalid_transition: {
    http: [409, 'Invalid transition'],
    exit: 3,
    mcp: 'The record is in a status that does not allow this move: read it again and send a move its status allows (incidents: open → investigating → mitigated → closed, back to investigating with a reason; packets: draft → final → exported, any → revoked with a reason).',
  },
  transition_incomplete: {
    http: [422, 'Transition incomplete'],
    exit: 3,
    mcp: 'Send what the move needs in the same patch: close_reason and note to close as duplicate or not_an_incident, immediate_mitigations to mitigate, a resolution to close as resolved, a reason to regress or reopen.',
  },
  regulatory_report_required: {
    http: [422, 'Regulatory report required'],
    exit: 3,
    mcp: 'A serious incident closes only with regulatory_report {status: submitted, reference} or {status: not_required} decided by a user other than the reporter; send it in the closing patch or before.',
  },
  report_decider_mismatch: { http: [403, 'Report decider mismatch'], exit: 3, mcp: 'regulatory_report.decided_by must be the actor sending the patch.' },
  reporter_cannot_waive_report: {
    http: [403, 'Reporter cannot waive report'],
    exit: 3,
    mcp: 'Who reported a serious incident does not decide that it needs no regulatory report: another user must send that decision.',
  },

  // The command line: its usage and input files, and the preview it starts, stops or calls.
  usage_error: { http: null, exit: 2 },
  bad_input_file: { http: null, exit: 2 },
  data_dir_locked: { http: null, exit: 3 },
  cannot_bind: { http: null, exit: 3 },
  not_running: { http: null, exit: 3 },
  stop_timeout: { http: null, exit: 3 },
  preview_failed: { http: null, exit: 3 },
  api_error: { http: null, exit: 3 },
  database_unreachable: { http: null, exit: 3 },
  database_not_migrated: { http: null, exit: 3 },
  database_not_empty: { http: null, exit: 3 },
  api_unreachable: {
    http: null,
    exit: 3,
    mcp: 'access_policy=api_only_no_local_fallback: gov mcp only calls the HTTP API; nothing was read or written locally and there is no local fallback.',
  },

  // The MCP front door: arguments it cannot turn into a request.
  invalid_argument: { http: null, exit: 3, mcp: 'Fix the argument and call the tool again.' },
  unknown_argument: { http: null, exit: 3, mcp: "Leave the argument out; the tool's input schema lists every argument it takes." },

  // Broken invariants: the store's own files, templates as shipped, the packet assembler's inputs.
  // A route that meets one answers 500 internal_error; start-up and the CLI report them.
  store_corrupt: { http: null, exit: 3 },
  // The file system refused the data dir (full, read-only, permissions, a path that is no directory).
  file_system_refused: { http: null, exit: 3 },
  index_outdated: { http: null, exit: 3 },
  index_version_unknown: { http: null, exit: 3 },
  quota_event_invalid: { http: null, exit: 3 },
  template_name_collision: { http: null, exit: 3 },
  template_prefills_verified: { http: null, exit: 3 },
  events_out_of_order: { http: null, exit: 3 },
  event_out_of_scope: { http: null, exit: 3 },
  event_outside_tasks: { http: null, exit: 3 },
  event_not_access_log: { http: null, exit: 3 },
  event_after_as_of: { http: null, exit: 3 },
  signer_required: { http: null, exit: 3 },
  receipt_id_required: { http: null, exit: 3 },
  packet_schema_violation: { http: null, exit: 3 },
  invalid_hash: { http: null, exit: 3 },
  invalid_checkpoint: { http: null, exit: 3 },
  key_alg_mismatch: { http: null, exit: 3 },

  // What any failure that is not an AppError (or whose code is not here) becomes.
  internal_error: { http: null, exit: 3 },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERRORS;

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERRORS, code);
}

/** The catalogue entry of a code read from anywhere (an answer's body, a cast): undefined when unknown. */
export function errorSpecOf(code: string): ErrorSpec | undefined {
  return isErrorCode(code) ? ERRORS[code] : undefined;
}
