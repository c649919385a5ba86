/**
 * The driver app's trips (CONTRACT "Driver app"; Business API 3.1): a platform driver finds a
 * trip by its reference alone (the trip's reference index: the read table lags) and acts on it
 * through the trip actor. A trip that is not the driver's is not found, word for word as a
 * missing one. Every action is asked under the driver's idempotency key, so a replay after lost
 * signal answers the first answer, whatever happened to the trip since (driver_replays.ts).
 */
import {
  deliverRefusal,
  type DriverAction,
  type FileRef,
  type Trip,
  TRIP_REFERENCE_INDEX,
  tripActor,
  type TripCommit,
  type TripReply,
} from "../../../actors/business/trip/mod.ts";
import {
  PLATFORM_SETTINGS_ID,
  PLATFORM_TENANT,
  platformSettingsActor,
} from "../../../actors/platform/platform_settings.ts";
import { shoppingOrderActor } from "../../../actors/shopping/order.ts";
import { shoppingStoreActor } from "../../../actors/shopping/store.ts";
import type { Deps } from "../../environment.ts";
import { foundOrNull, invalidFields, orRefuse, refuse, Refused } from "../../runtime/actor.ts";
import {
  EVIDENCE_FILE_BYTES_MAX,
  evidenceTooLarge,
  type EvidenceUpload,
  storeEvidence,
} from "../../courier/flows/evidence.ts";
import { toMinor } from "../../domain/money.ts";
import { canonicalJson, sha256Hex } from "../../domain/secrets.ts";
import { imageTypeOf } from "../rules/driver_actions.ts";
import { keptTrip, replayOr } from "./driver_replays.ts";

/** CONTRACT "Driver app": the action names (the sandbox steps' names, Business API 4.4). */
export const DRIVER_TRIP_ACTIONS = [
  "arrive_pickup",
  "pick_up",
  "arrive_dropoff",
  "deliver",
  "fail_delivery",
  "id_refused",
  "complete_return",
  "cancel_by_driver",
] as const;

export type DriverTripAction = typeof DRIVER_TRIP_ACTIONS[number];

/** CONTRACT "Driver app": the actions that take a `reason`, which they need. */
const REASON_REQUIRED: readonly DriverTripAction[] = [
  "fail_delivery",
  "id_refused",
  "cancel_by_driver",
];

/** A proof photo or a signature: at most an evidence file's size. */
export const PROOF_FILE_BYTES_MAX = EVIDENCE_FILE_BYTES_MAX;

/** What an action's request carries, parsed (amounts in minor units, files not yet stored). */
export interface DriverActionInput {
  readonly idempotency_key: string;
  readonly scan_code?: string | undefined;
  readonly force_reason?: string | undefined;
  readonly delivery_code?: string | undefined;
  readonly id_checked?: boolean | undefined;
  /** A decimal in the trip's currency, as the app sends it. */
  readonly cod_collected_amount?: number | string | undefined;
  readonly reason?: string | undefined;
  readonly proof_photo?: ProofUpload | undefined;
  readonly signature?: ProofUpload | undefined;
}

/** A proof file as uploaded, with the form field it came in. */
export interface ProofUpload extends EvidenceUpload {
  readonly field: "proof_photo" | "signature";
}

type TripDeps = Pick<Deps, "runtime" | "requestId">;

/** How an action is taken beyond its body. */
export interface ActionOptions {
  /**
   * cancel_by_driver: whether the trip may be put back for another driver (default). The
   * sandbox's simulated driver has no other driver behind it, so its trip ends (Business API 4.4).
   */
  readonly redispatch?: boolean;
}

function notFound(reference: string): never {
  refuse("not_found", `trip not found: ${reference}`);
}

/** The trip the driver holds (CONTRACT "Driver app": 404 for any other). */
export async function driverTrip(
  deps: Pick<Deps, "runtime">,
  driverId: string,
  reference: string,
): Promise<Trip> {
  const found = await deps.runtime.lookup(TRIP_REFERENCE_INDEX, reference);
  if (!found) notFound(reference);
  const r = await deps.runtime.read(tripActor, found.tenant, found.id, { kind: "get" });
  // spec (CONTRACT "Driver app"): a trip offered to the driver or assigned to them; acting on
  // one merely offered is refused by the trip (its driver is another, or none).
  // A refused read (a full mailbox) is thrown (503), never answered 404 for the driver's trip.
  const now = foundOrNull(r);
  const t = now?.phase === "booked" ? now.trip : null;
  if (t === null || (t.driver?.id !== driverId && t.offer?.driver_id !== driverId)) {
    notFound(reference);
  }
  return t;
}

/** The key a driver's action is asked under: one key space per driver, so two never meet. */
function actionKey(driverId: string, idempotencyKey: string): string {
  return `driver:${driverId}:${idempotencyKey}`;
}

/** The first answer of the driver's action asked under `idempotencyKey`, if any was. */
export async function keptDriverAction(
  deps: Pick<Deps, "runtime">,
  driverId: string,
  reference: string,
  idempotencyKey: string,
): Promise<Trip | null> {
  return await keptTrip(deps, reference, actionKey(driverId, idempotencyKey));
}

/**
 * Where the events of the driver's action asked under `idempotencyKey` landed in the trip's log;
 * null when it recorded none (or was never committed).
 */
export async function driverActionCommit(
  deps: Pick<Deps, "runtime">,
  driverId: string,
  reference: string,
  idempotencyKey: string,
): Promise<TripCommit | null> {
  const kept = await deps.runtime.replyUnder(
    tripActor,
    reference,
    actionKey(driverId, idempotencyKey),
  );
  return kept?.reply.phase === "booked" ? kept.reply.commit ?? null : null;
}

/** spec: business 3.1 via CONTRACT "Driver app": one action of the driver on their trip. */
export async function driverTripAction(
  deps: TripDeps,
  driverId: string,
  reference: string,
  action: DriverTripAction,
  input: DriverActionInput,
  options: ActionOptions = {},
): Promise<Trip> {
  const key = actionKey(driverId, input.idempotency_key);
  const request = requestDigest(action, input);
  const asked = { key, request, sent: input.idempotency_key };
  // CONTRACT "Driver app": a replay answers the first answer, even once the trip is no longer
  // the driver's (given back, completed, cancelled): read before the trip is checked.
  return await replayOr(() => keptAnswer(deps, reference, asked), async () => {
    const trip = await driverTrip(deps, driverId, reference);
    const command = await commandOf(deps, trip, driverId, action, input, options);
    const r = await deps.runtime.ask(
      tripActor,
      trip.business_id,
      trip.reference,
      { ...command, request },
      { idempotencyKey: key, requestId: deps.requestId },
    );
    const reply = orRefuse(r);
    if (r.ok && r.replayed) sameRequest(reply, request, input.idempotency_key);
    if (reply.phase !== "booked") notFound(reference);
    return reply.trip;
  });
}

/**
 * The digest of the action's request: its name, its fields and its files' content. Another
 * request under a used key is not its replay (CONTRACT "Driver app").
 */
function requestDigest(action: DriverTripAction, input: DriverActionInput): string {
  const { idempotency_key: _key, proof_photo, signature, ...fields } = input;
  const file = (f: ProofUpload | undefined) => f === undefined ? null : sha256Hex(f.bytes);
  return sha256Hex(canonicalJson({
    action,
    ...fields,
    proof_photo: file(proof_photo),
    signature: file(signature),
  }));
}

/**
 * The trip first answered under `key`, if any: refused 409 when it answered another request (a
 * reply kept before requests were digested answers as the replay it was taken for).
 */
async function keptAnswer(
  deps: Pick<Deps, "runtime">,
  reference: string,
  asked: { readonly key: string; readonly request: string; readonly sent: string },
): Promise<Trip | null> {
  const kept = await deps.runtime.replyUnder(tripActor, reference, asked.key);
  if (kept === null || kept.reply.phase !== "booked") return null;
  sameRequest(kept.reply, asked.request, asked.sent);
  return kept.reply.trip;
}

function sameRequest(reply: TripReply, request: string, idempotencyKey: string): void {
  if (reply.phase !== "booked" || reply.request === undefined || reply.request === request) return;
  refuse(
    "reference_conflict",
    `idempotency_key already used on this trip for another request: ${idempotencyKey}`,
  );
}

async function commandOf(
  deps: TripDeps,
  trip: Trip,
  driver_id: string,
  action: DriverTripAction,
  input: DriverActionInput,
  options: ActionOptions,
): Promise<DriverAction> {
  const reason = input.reason ?? "";
  if (REASON_REQUIRED.includes(action) && reason.trim() === "") {
    throw new Refused(invalidFields([{ path: "reason", message: `required to ${action}` }]));
  }
  switch (action) {
    case "arrive_pickup":
      return { kind: "arrive", driver_id };
    case "pick_up":
      return {
        kind: "collect",
        driver_id,
        ...(input.scan_code !== undefined ? { scan_code: input.scan_code } : {}),
        ...(input.force_reason !== undefined ? { force_reason: input.force_reason } : {}),
        ...(await basketFinished(deps, trip) ? { basket_finished: true } : {}),
      };
    case "arrive_dropoff":
      return { kind: "arrive_dropoff", driver_id };
    case "deliver":
      return await deliverCommand(deps, trip, driver_id, input);
    case "fail_delivery":
      return { kind: "fail", driver_id, reason };
    case "id_refused":
      return { kind: "refuse_id", driver_id, reason };
    case "complete_return":
      return { kind: "complete_return", driver_id };
    case "cancel_by_driver":
      return {
        kind: "withdraw",
        driver_id,
        reason,
        dispatch_window_ms: options.redispatch === false
          ? 0
          : (await dispatchWindowMinutes(deps)) * 60_000,
        ...(options.redispatch === false ? { redispatch: false } : {}),
      };
  }
}

/**
 * spec: business 3.1, shopping 1.1: a shopping order's trip waiting for its handover, every store
 * of its order finished (collected or unavailable; a store never goes back to pending): the
 * basket is ready now, whether or not its outbox has marked the trip ready yet.
 */
async function basketFinished(deps: TripDeps, trip: Trip): Promise<boolean> {
  if (!trip.handover_required || trip.ready_at !== null || !trip.shop_deliver) return false;
  const business = trip.business_id;
  const got = await deps.runtime.read(shoppingOrderActor, business, trip.reference, {
    kind: "get",
  });
  // A refused read (a full mailbox) is thrown (503), never taken as a basket not collected.
  const order = foundOrNull(got);
  if (order?.phase !== "booked" || order.stores.length === 0) return false;
  const stores = await Promise.all(order.stores.map(async (s) => {
    const r = await deps.runtime.read(shoppingStoreActor, business, s.store_id, { kind: "get" });
    return foundOrNull(r);
  }));
  return stores.every((s) => s !== null && s.status !== "pending");
}

/**
 * spec: business 3.1 "delivery done": the proof files are checked and the delivery decided by the
 * trip's own rule before either file is stored, so a refused delivery keeps no file (bad input
 * changes nothing); then stored (content-addressed, so a replay stores nothing twice) before the
 * commit that names them. A trip changed between the two may still refuse after the store.
 */
async function deliverCommand(
  deps: TripDeps,
  trip: Trip,
  driver_id: string,
  input: DriverActionInput,
): Promise<DriverAction> {
  const [photo, sig] = checkedProofs(input.proof_photo, input.signature);
  const action = {
    kind: "deliver",
    driver_id,
    ...(input.delivery_code !== undefined ? { delivery_code: input.delivery_code } : {}),
    ...(input.id_checked !== undefined ? { id_checked: input.id_checked } : {}),
    ...(input.cod_collected_amount !== undefined
      ? { cod_collected_amount_minor: codMinor(trip, input.cod_collected_amount) }
      : {}),
  } as const;
  const refused = deliverRefusal(trip, {
    ...action,
    ...(photo ? { proof_photo: unstoredRef(photo) } : {}),
    ...(sig ? { signature: unstoredRef(sig) } : {}),
  });
  if (refused) throw new Refused(refused);
  const proof_photo = photo && await stored(deps, trip, driver_id, photo);
  const signature = sig && await stored(deps, trip, driver_id, sig);
  return {
    ...action,
    ...(proof_photo ? { proof_photo } : {}),
    ...(signature ? { signature } : {}),
  };
}

/** The COD the driver says they took, exact, in the trip's currency. */
function codMinor(trip: Trip, amount: number | string): number {
  const parsed = toMinor(amount, trip.billing_currency);
  if (!parsed.ok || parsed.minor < 0) {
    const message = parsed.ok ? "must not be negative" : parsed.message;
    throw new Refused(invalidFields([{ path: "cod_collected_amount", message }]));
  }
  return parsed.minor;
}

/**
 * Proof files as they will be stored (their detected image types), or a refusal naming each one
 * that is no image at once, as every bad field is named.
 */
function checkedProofs(
  ...uploads: (ProofUpload | undefined)[]
): (ProofUpload | undefined)[] {
  const types = uploads.map((u) => u && imageTypeOf(u.bytes));
  const notImages = uploads.flatMap((u, i) =>
    u === undefined || types[i] !== null ? [] : [{
      path: u.field,
      message: `must be a JPEG, PNG or WebP image: ${u.content_type || "no type"} sent`,
    }]
  );
  if (notImages.length > 0) throw new Refused(invalidFields(notImages));
  return uploads.map((upload, i) => {
    if (upload === undefined) return undefined;
    const tooLarge = evidenceTooLarge(upload.bytes.length);
    if (tooLarge) throw new Refused(tooLarge);
    return { ...upload, content_type: types[i]! };
  });
}

/** The reference a checked file is decided on before it is stored (only its presence counts). */
function unstoredRef(upload: ProofUpload): FileRef {
  return { sha256: "", name: upload.name, size: upload.bytes.length, content_type: "" };
}

async function stored(
  deps: TripDeps,
  trip: Trip,
  driverId: string,
  upload: ProofUpload,
): Promise<FileRef> {
  // The business's file: kept under the trip's tenant, read back by the business.
  const r = await storeEvidence(deps.runtime, trip.business_id, upload, driverId);
  if (!r.ok) throw new Refused(r);
  return r.value;
}

/** spec: business 3.1 via CONTRACT PUT /operator/settings: dispatch_window_minutes. */
async function dispatchWindowMinutes(deps: Pick<Deps, "runtime">): Promise<number> {
  const s = orRefuse(
    await deps.runtime.read(platformSettingsActor, PLATFORM_TENANT, PLATFORM_SETTINGS_ID, {
      kind: "get",
    }),
  );
  return s.dispatch_window_minutes;
}
