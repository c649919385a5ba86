/**
 * Errors an integrator sees: a stable `code` and a message naming the problem (STYLE 3, 13). One
 * table maps each code to its HTTP status; domain refusals from actors pass through it.
 */
import { EMAIL_TAKEN, emailTakenMessage } from "../domain/emails.ts";
import { type FieldError, invalidFields, Refused, type Rejection } from "../runtime/actor.ts";
import { PartitionUnavailable } from "../runtime/forwarding.ts";

export type { FieldError };

const STATUS_BY_CODE: Readonly<Record<string, number>> = {
  unauthenticated: 401,
  sandbox_key_on_live: 401,
  live_key_on_sandbox: 401,
  // Business API 5.9: a storefront channel token that does not verify, by what is wrong.
  channel_token_invalid: 401,
  channel_token_expired: 401,
  channel_token_wrong_audience: 401,
  scope_denied: 403,
  signed_in_admin_only: 403,
  portal_admin_only: 403,
  courier_platform_disabled: 403,
  // spec: shopping 7: the capability is not enabled for the account (the spec's own code).
  SHOPPING_FULFILMENT_OFF: 403,
  // spec: shopping 6: a signed link (receipt photo, packing slip) past its time, or altered.
  link_expired: 403,
  link_invalid: 403,
  password_change_required: 403,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  already_exists: 409,
  rate_card_version_immutable: 409,
  email_taken: 409,
  index_taken: 409,
  duplicate_order: 409,
  // Issue 41 item 7: the packing slip of a shopping order exists once its basket is collected.
  basket_not_collected: 409,
  store_not_finished: 409,
  external_reference_conflict: 409,
  booking_in_progress: 409,
  reference_conflict: 409,
  // A batch's claim given back by another request of its body while this one held the money.
  claim_released: 409,
  request_in_progress: 409,
  idempotency_key_reused: 409,
  balance_not_settled: 409,
  settings_changed: 409,
  // spec: business 4.3: a rotation of a key another rotation replaced meanwhile (one wins).
  key_already_rotated: 409,
  cod_already_collected: 409,
  fx_unresolved: 409,
  // spec: shopping 3 (CONTRACT "Driver app"): the shopper's work on a store, in sequence, once.
  store_out_of_sequence: 409,
  store_finished: 409,
  line_finished: 409,
  decision_pending: 409,
  lines_pending: 409,
  nothing_found: 409,
  items_found: 409,
  substitute_required: 422,
  receipt_photo_required: 422,
  // spec: shopping 3, 7: a decision for a line not awaiting one, or after its window closed.
  not_awaiting_decision: 409,
  // A shopping order's booking released by its sweep after it stopped before its charge.
  shopping_order_released: 409,
  decision_window_closed: 409,
  // Business API 4.4, 8: a sandbox sign-up code, valid 15 minutes for 5 tries.
  signup_code_expired: 410,
  signup_code_invalid: 422,
  no_signup_pending: 422,
  tracking_link_revoked: 410,
  tracking_link_expired: 410,
  // Business API 4.1, 8: the chat closes on cancellation or 30 minutes after completion.
  chat_closed: 422,
  chat_full: 422,
  // Business API 4.1 checkouts: a held delivery option booked after it was released.
  checkout_expired: 409,
  checkout_cancelled: 409,
  checkout_booked: 409,
  // A booking's hold given back by the checkout's sweep after it stopped before its charge.
  checkout_released: 409,
  // Business API 2.1, 4.1 geocode: a booking's place without coordinates nobody can place.
  address_not_found: 422,
  payload_too_large: 413,
  evidence_file_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  prices_expired: 422,
  insufficient_balance: 422,
  state_paid_refused: 422,
  capacity_exceeded: 422,
  over_reserved: 422,
  items_without_end_state: 422,
  run_closed: 409,
  run_full: 422,
  already_on_run: 409,
  planned_on_another_run: 409,
  stop_already_done: 409,
  item_ended: 409,
  invalid_order: 422,
  not_on_run: 422,
  not_transferable: 422,
  not_reportable: 422,
  invalid_transfer: 422,
  run_not_departed: 422,
  exit_before_entry: 422,
  border_not_presented: 409,
  border_load_changed: 409,
  border_refused: 409,
  held_by_customs: 409,
  not_held_by_customs: 409,
  scan_out_of_order: 409,
  lab_handover_blocked: 422,
  invalid_scan: 422,
  unknown_piece: 422,
  pieces_incomplete: 422,
  views_full: 422,
  shipment_closed: 409,
  not_requeueable: 422,
  not_cancellable: 422,
  employee_limit_reached: 422,
  owner_protected: 422,
  test_mode_moved_to_sandbox: 422,
  unknown_event_type: 422,
  // Business API 3.1, 7: bookings and trips.
  test_booking_refused: 422,
  awaiting_handover: 422,
  // Business API 2.2, 3.1: what a driver's collection and delivery need, each naming its field.
  scan_mismatch: 422,
  force_reason_required: 422,
  delivery_code_required: 422,
  delivery_code_mismatch: 422,
  id_check_required: 422,
  proof_photo_required: 422,
  signature_required: 422,
  cod_amount_mismatch: 422,
  custody_scanning_off: 404,
  invalid_transition: 409,
  // Business API 3.1: dispatch offers.
  already_accepted: 409,
  // spec: business 7: sandbox steps out of order.
  driver_not_assigned: 409,
  no_return_in_progress: 409,
  // spec: business 3.1: an offer waits for another driver, or the driver let this trip go.
  offer_waiting: 409,
  driver_excluded: 409,
  offer_expired: 409,
  driver_busy: 409,
  // Business API 3.2, 7: vehicle resolution and fares.
  vehicle_upgrade_refused: 422,
  no_vehicle_fits: 422,
  outside_service_area: 422,
  clock_not_manual: 422,
  currency_mismatch: 422,
  not_prepaid: 422,
  not_credit: 422,
  external_settlement: 422,
  nothing_to_invoice: 422,
  invoice_not_open: 422,
  duplicate_allocation: 422,
  allocation_exceeds_invoice: 422,
  allocations_exceed_payment: 422,
  correction_exceeds_entry: 422,
  not_correctable: 422,
  cod_not_collected: 422,
  invalid_amount: 422,
  invalid_reference: 422,
  invalid_period: 422,
  invalid_fx_rate: 422,
  fx_source_required: 422,
  reason_required: 422,
  evidence_required: 422,
  customs_reference_required: 422,
  duties_fields_required: 422,
  crossing_closed: 422,
  delivery_under_way: 409,
  run_step_under_way: 409,
  scan_under_way: 409,
  entry_before_exit: 422,
  documents_required: 422,
  too_many_documents: 422,
  customs_moves_limit: 422,
  invalid_currency: 422,
  resolution_required: 422,
  assignee_required: 422,
  alert_already_resolved: 422,
  invalid_alert: 422,
  invalid_evidence_file: 422,
  unresolved_fx_limit: 422,
  cod_awaiting_limit: 422,
  adjustments_limit: 422,
  open_invoices_limit: 422,
  temperature_fields_required: 422,
  invalid_temperature: 422,
  invalid_temperature_range: 422,
  sample_type_required: 422,
  item_required: 422,
  unknown_checklist_item: 422,
  tick_items_limit: 422,
  readings_limit: 422,
  note_required: 422,
  lab_profile_missing: 409,
  lab_profile_locked: 409,
  lab_decision_final: 409,
  nothing_to_approve: 409,
  invalid_checklist: 422,
  duplicate_item_key: 422,
  checklist_full: 409,
  // Courier 4.6 client rows: claims, retail packets, client people.
  claim_window_closed: 422,
  claim_already_decided: 409,
  claim_conflict: 409,
  claim_above_limit: 422,
  packet_state_invalid: 422,
  packet_in_another_store: 409,
  packet_conflict: 409,
  client_admin_only: 403,
  client_users_limit: 422,
  address_book_full: 422,
  // Courier 4.6 client paper: a waybill or piece id a Code 39 barcode cannot carry.
  barcode_unencodable: 422,
  shipment_cancelled: 422,
  batch_cancelled: 422,
  trip_cancelled: 422,
  batch_slip_pages_exceeded: 422,
  // Named here so that routes can document them; each answered 422 before it had a row.
  no_rate_card: 422,
  no_service_levels: 422,
  amount_too_large: 422,
  // What a request would store is past a limit of the actor store (src/runtime/too_large.ts).
  too_large: 422,
  catalogue_full: 422,
  rate_card_currency_fixed: 422,
  effective_from_before_latest: 422,
  rate_card_full: 422,
  // The live board asked for without a WebSocket upgrade (routes/courier/board.ts).
  upgrade_required: 426,
  rate_limited: 429,
  internal_error: 500,
  // Strict mode only (tests): a route answered a refusal its OpenAPI entry does not list.
  undocumented_refusal: 500,
  actor_busy: 503,
  // Issue 43: no instance answered for the actor's partition in time (a lease moving).
  partition_unavailable: 503,
  // Business API 4.4: credentials asked of a deployment whose sandbox is off (SANDBOX_PORT=0).
  sandbox_unavailable: 503,
  // Courier 2.6 rule 5: a note is judged once the statement has caught up with the account.
  ledger_catching_up: 503,
  // Issue 36 item 1: a projection is past its bound; writes wait for it (app.ts).
  projections_behind: 503,
};

/** An answer that is not a success; thrown from routes and middleware, rendered once. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    readonly code: string,
    message: string,
    readonly extra: Readonly<Record<string, unknown>> = {},
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
  get status(): number {
    return statusOf(this.code);
  }
}

export function statusOf(code: string): number {
  return STATUS_BY_CODE[code] ?? 422;
}

/** Whether the code has its own row in the table (a route documents only such codes). */
export function isKnownCode(code: string): boolean {
  return Object.hasOwn(STATUS_BY_CODE, code);
}

/**
 * What a key taken in a unique index (ActorDefinition.uniqueIndexes) means to the caller: an
 * e-mail in the same words as when the flow or the actor finds it held (src/domain/emails.ts).
 */
const TAKEN: Readonly<Record<string, { code: string; message: (key: string) => string }>> = {
  // client_code keys are `courier:code`: the caller named only the code.
  client_code: {
    code: "already_exists",
    message: (key) => `a client already has this code: ${key.slice(key.indexOf(":") + 1)}`,
  },
  client_email: { code: EMAIL_TAKEN, message: (key) => emailTakenMessage("client user", key) },
  staff_email: { code: EMAIL_TAKEN, message: (key) => emailTakenMessage("portal user", key) },
};

/**
 * Refusals for a missing fact (courier 7: a hold needs a reason, a clearance its customs
 * reference, duties amount, currency, payer and evidence, a reading its five fields...) are
 * validation failures as CONTRACT states them: 422 validation_failed with `errors[{path,
 * message}]`, the actor's own code kept as `rule`. The field each names; `missing` lists several.
 */
const MISSING_FACT: Readonly<Record<string, string>> = {
  reason_required: "reason",
  note_required: "note",
  customs_reference_required: "customs_reference",
  evidence_required: "evidence",
  duties_fields_required: "",
  temperature_fields_required: "",
  resolution_required: "resolution",
  assignee_required: "to",
  documents_required: "documents",
  sample_type_required: "sample_type",
  item_required: "item",
  fx_source_required: "source",
};

export function fromRejection(r: Rejection): ApiError {
  const field = MISSING_FACT[r.code];
  if (field !== undefined) {
    const listed = r.details?.missing;
    const paths = Array.isArray(listed) && listed.length > 0 ? listed.map(String) : [field];
    return new ApiError("validation_failed", r.message, {
      ...r.details,
      errors: paths.map((path) => ({ path, message: r.message })),
      rule: r.code,
    });
  }
  const taken = r.code === "index_taken" ? TAKEN[String(r.details?.index)] : undefined;
  if (taken) return new ApiError(taken.code, taken.message(String(r.details?.key ?? "")));
  return new ApiError(r.code, r.message, r.details ?? {});
}

/** Seconds a caller waits before asking again for a partition nobody answered for. */
const PARTITION_RETRY_S = 1;

/** An error as an answer: an ApiError itself, a domain refusal (Refused) as its rejection. */
export function asApiError(err: unknown): ApiError | null {
  if (err instanceof ApiError) return err;
  if (err instanceof Refused) return fromRejection(err.rejection);
  if (err instanceof PartitionUnavailable) {
    return new ApiError(err.code, err.message, {}, { "Retry-After": String(PARTITION_RETRY_S) });
  }
  return null;
}

export function validationFailed(errors: readonly FieldError[]): ApiError {
  return fromRejection(invalidFields(errors));
}

/**
 * For a route's `.catch`: a refusal with one of `codes` rethrown with `Retry-After: seconds`
 * (an answer that says when to ask again, such as a request still in progress); anything else
 * rethrown as it is.
 */
export function retryAfter(codes: readonly string[], seconds: number): (e: unknown) => never {
  return (e) => {
    if (e instanceof Refused && codes.includes(e.rejection.code)) {
      const { code, message, details } = e.rejection;
      throw new ApiError(code, message, { ...details }, { "Retry-After": String(seconds) });
    }
    throw e;
  };
}
