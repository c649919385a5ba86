/**
 * The shopper's work on the driver app (shopping 3; CONTRACT "Driver app"): each line found,
 * substituted or unavailable, each store collected with its till amount and receipt photo or
 * marked unavailable, stores worked in `sequence`. The trip is found as the driver app finds it
 * (404 unless offered or assigned to the driver), the store through the order, and the change is
 * one ask of the store actor under the driver's idempotency key, so a replay after lost signal
 * answers the first answer, whatever happened since. The sandbox's shopper steps call these same
 * functions.
 */
import { type Trip, TRIP_REFERENCE_INDEX } from "../../../actors/business/trip/mod.ts";
import { type ShoppingOrder, shoppingOrderActor } from "../../../actors/shopping/order.ts";
import {
  type ReceiptPhoto,
  type ShoppingStore,
  shoppingStoreActor,
  type ShoppingStoreCommand,
} from "../../../actors/shopping/store.ts";
import { collectRefusal } from "../../../actors/shopping/store_work.ts";
import { driverTrip } from "../../business/flows/driver_trips.ts";
import { replayOr } from "../../business/flows/driver_replays.ts";
import { imageTypeOf } from "../../business/rules/driver_actions.ts";
import { type EvidenceUpload, storeEvidence } from "../../courier/flows/evidence.ts";
import { formatMinor, sumMinor, toMinor } from "../../domain/money.ts";
import { canonicalJson, sha256Hex } from "../../domain/secrets.ts";
import { SHOPPING_AMOUNT_MAX } from "../../limits.ts";
import type { Deps } from "../../environment.ts";
import {
  type FieldError,
  foundOrNull,
  invalidFields,
  orRefuse,
  refuse,
  Refused,
} from "../../runtime/actor.ts";
import type { LineReport, ReportedOutcome } from "../rules/shopper.ts";
import { shoppingCapabilityOf } from "./capability.ts";

type ShopperDeps = Pick<Deps, "runtime" | "requestId">;

/** spec: shopping 3: one line's outcome as the app sends it (decimals in the order's currency). */
export interface LineInput {
  readonly idempotency_key: string;
  readonly outcome: ReportedOutcome;
  readonly qty_found?: number | undefined;
  readonly unit_price_paid?: number | string | undefined;
  readonly substitute?: {
    readonly name: string;
    readonly barcode?: string | undefined;
    readonly unit_price?: number | string | undefined;
  } | undefined;
}

export interface CollectInput {
  readonly idempotency_key: string;
  readonly collected_amount: number | string;
  readonly receipt_photo?: EvidenceUpload | undefined;
}

/** A store after the shopper's change, with the currency its amounts are in. */
export interface WorkedStore {
  readonly store: ShoppingStore;
  readonly currency: string;
}

/** Where a store of the driver's shopping order stands, found for one command. */
interface Target {
  readonly trip: Trip;
  readonly order: ShoppingOrder;
  readonly store: ShoppingStore;
  /** The till amounts of the stores collected before this one in the sequence. */
  readonly spentBefore: number;
}

/** spec: business 3.1: the shopper buys between accepting the trip and collecting it. */
const SHOPPING_STATUSES: readonly string[] = ["accepted", "enroute", "arrived"];

/** The shopper's view: the stores to buy at, in sequence, with their lines' live state. */
export interface ShopperOrder {
  readonly reference: string;
  readonly currency: string;
  readonly stores: readonly ShoppingStore[];
}

/** CONTRACT "Driver app": the order of a trip offered or assigned to the driver (else 404). */
export async function shopperOrder(
  deps: Pick<Deps, "runtime">,
  driverId: string,
  reference: string,
): Promise<ShopperOrder> {
  const trip = await driverTrip(deps, driverId, reference);
  const order = await bookedOrder(deps, trip, reference);
  return {
    reference: trip.reference,
    currency: order.currency,
    stores: await storesInSequence(deps, order),
  };
}

async function bookedOrder(
  deps: Pick<Deps, "runtime">,
  trip: Trip,
  reference: string,
): Promise<ShoppingOrder> {
  const got = await deps.runtime.read(shoppingOrderActor, trip.business_id, trip.reference, {
    kind: "get",
  });
  // A refused read (a full mailbox) is thrown (503), never answered 404 for one that exists.
  const order = foundOrNull(got);
  if (!order || order.phase !== "booked") {
    refuse("not_found", `shopping order not found: ${reference}`);
  }
  return order;
}

/** spec: shopping 3: one line found, substituted or unavailable. */
export async function recordShoppingLine(
  deps: ShopperDeps,
  driverId: string,
  at: { reference: string; external_fulfilment_id: string; external_item_id: string },
  input: LineInput,
): Promise<WorkedStore> {
  const request = { action: "record_line", item: at.external_item_id, ...input };
  return await shopperAction(
    deps,
    driverId,
    at,
    { key: input.idempotency_key, request },
    async (t) => {
      const report = reportOf(input, t.order.currency);
      const settings = await shoppingCapabilityOf(deps, t.order.business_id);
      return {
        kind: "record_line",
        external_item_id: at.external_item_id,
        report,
        // spec: shopping 2.1, 3: the window is the setting as read when the line starts waiting.
        ask_timeout_ms: settings.ask_timeout_minutes * 60_000,
      };
    },
  );
}

/** spec: shopping 3: the store collected with its till amount and receipt photo. */
export async function collectShoppingStore(
  deps: ShopperDeps,
  driverId: string,
  at: { reference: string; external_fulfilment_id: string },
  input: CollectInput,
): Promise<WorkedStore> {
  const photo = input.receipt_photo;
  const request = {
    action: "collect",
    collected_amount: input.collected_amount,
    receipt_photo: photo === undefined ? null : sha256Hex(photo.bytes),
  };
  return await shopperAction(
    deps,
    driverId,
    at,
    { key: input.idempotency_key, request },
    async (t) => {
      const amount = minorOf(input.collected_amount, t.order.currency, "collected_amount");
      refuseBeyondFloat(t, amount);
      // A collection the store refuses whatever its receipt keeps no photo (the store decides
      // again on its own state when asked).
      const refused = collectRefusal(t.store);
      if (refused) throw new Refused(refused);
      const receipt_photo = input.receipt_photo === undefined
        ? null
        : await storedReceipt(deps, t, driverId, input.receipt_photo);
      return { kind: "collect", collected_amount_minor: amount, receipt_photo };
    },
  );
}

/**
 * spec: shopping 1.1, 2.2: the shopper spends the purchase float fronted to them, and the
 * business is charged what the tills took: a till amount past what is left of the float (a
 * mistyped or dishonest one) is refused, naming it, never charged. Stores are collected one at
 * a time, in sequence, so what the earlier ones took is known.
 */
function refuseBeyondFloat(t: Target, amount: number): void {
  const left = t.order.purchase_amount_minor - t.spentBefore;
  if (amount <= left) return;
  const { currency } = t.order;
  const money = (minor: number) => `${formatMinor(minor, currency)} ${currency}`;
  throw new Refused(invalidFields([{
    path: "collected_amount",
    message: `${money(amount)} is more than the purchase float left: ${money(left)} ` +
      `(purchase_amount ${money(t.order.purchase_amount_minor)}, ${money(t.spentBefore)} ` +
      "spent at the stores before)",
  }]));
}

/** spec: shopping 3: nothing could be bought at the store. */
export async function markShoppingStoreUnavailable(
  deps: ShopperDeps,
  driverId: string,
  at: { reference: string; external_fulfilment_id: string },
  input: { readonly idempotency_key: string },
): Promise<WorkedStore> {
  return await shopperAction(
    deps,
    driverId,
    at,
    { key: input.idempotency_key, request: { action: "mark_unavailable" } },
    () => Promise.resolve({ kind: "mark_unavailable" }),
  );
}

/**
 * One change of a store, asked of the store actor under the driver's key. CONTRACT "Driver app":
 * a replay answers the first answer, read before the trip and the store are checked, so a store
 * collected before the trip was (or the trip ended) still answers as it did (driver_replays.ts).
 */
async function shopperAction(
  deps: ShopperDeps,
  driverId: string,
  at: { reference: string; external_fulfilment_id: string },
  sent: { readonly key: string; readonly request: Readonly<Record<string, unknown>> },
  commandOf: (t: Target) => Promise<ShoppingStoreCommand>,
): Promise<WorkedStore> {
  // One key space per driver, as the trip actions' (driver_trips.ts).
  const storeKey = `shopper:${driverId}:${sent.key}`;
  const { idempotency_key: _key, ...fields } = sent.request;
  const asked = { storeKey, key: sent.key, request: sha256Hex(canonicalJson(fields)) };
  return await replayOr(() => keptStore(deps, at, asked), async () => {
    const t = await shopperTarget(deps, driverId, at.reference, at.external_fulfilment_id);
    const command = { ...await commandOf(t), request: asked.request };
    const r = await deps.runtime.ask(
      shoppingStoreActor,
      t.order.business_id,
      t.store.store_id,
      command,
      { idempotencyKey: storeKey, requestId: deps.requestId },
    );
    const store = orRefuse(r);
    if (r.ok && r.replayed) sameRequest(store, asked);
    return { store: store!, currency: t.order.currency };
  });
}

/**
 * CONTRACT "Driver app": a replay is the same request again; another under a used key is
 * refused 409 (a reply kept before requests were digested answers as the replay it was).
 */
function sameRequest(
  kept: ShoppingStore | null,
  asked: { readonly key: string; readonly request: string },
): void {
  if (kept?.request === undefined || kept.request === asked.request) return;
  refuse(
    "reference_conflict",
    `idempotency_key already used on this store for another request: ${asked.key}`,
  );
}

/**
 * The store as first answered under the driver's key, if it was; a read that decides nothing,
 * refused 409 when that answer was to another request.
 */
async function keptStore(
  deps: Pick<Deps, "runtime">,
  at: { reference: string; external_fulfilment_id: string },
  asked: { readonly storeKey: string; readonly key: string; readonly request: string },
): Promise<WorkedStore | null> {
  const trip = await deps.runtime.lookup(TRIP_REFERENCE_INDEX, at.reference);
  if (!trip) return null;
  const got = await deps.runtime.read(shoppingOrderActor, trip.tenant, at.reference, {
    kind: "get",
  });
  const order = got.ok ? got.reply : null;
  const s = order?.stores.find((s) =>
    String(s.external_fulfilment_id) === at.external_fulfilment_id
  );
  const kept = order && s
    ? await deps.runtime.replyUnder(shoppingStoreActor, s.store_id, asked.storeKey)
    : null;
  if (!kept?.reply) return null;
  sameRequest(kept.reply, asked);
  return { store: kept.reply, currency: order!.currency };
}

/**
 * The driver's shopping order and the store named, checked: the trip is the driver's and not yet
 * collected, and every store before this one in `sequence` is finished (spec: shopping 2.2
 * "shopping order"; an out-of-sequence store is refused 409 store_out_of_sequence).
 */
async function shopperTarget(
  deps: ShopperDeps,
  driverId: string,
  reference: string,
  fulfilmentId: string,
): Promise<Target> {
  const trip = await driverTrip(deps, driverId, reference);
  const order = await bookedOrder(deps, trip, reference);
  if (trip.driver?.id !== driverId || !SHOPPING_STATUSES.includes(trip.status)) {
    refuse(
      "invalid_transition",
      `the trip is not being shopped by this driver: ${trip.status}` +
        (trip.driver?.id === driverId ? "" : " (accept it first)"),
    );
  }
  const stores = await storesInSequence(deps, order);
  const n = stores.findIndex((s) => String(s.external_fulfilment_id) === fulfilmentId);
  if (n < 0) refuse("not_found", `no store ${fulfilmentId} in shopping order ${reference}`);
  const before = stores.slice(0, n).find((s) => s.status === "pending");
  if (before) {
    refuse(
      "store_out_of_sequence",
      `store ${String(before.external_fulfilment_id)} comes first in the shopping sequence: ` +
        "collect it or mark it unavailable before this one",
    );
  }
  const spentBefore = sumMinor(stores.slice(0, n).map((s) => s.collected_amount_minor ?? 0));
  return { trip, order, store: stores[n]!, spentBefore };
}

/** The order's stores by `sequence`, equal ones in array order (as GET lists them). */
export async function storesInSequence(
  deps: Pick<Deps, "runtime">,
  order: ShoppingOrder,
): Promise<ShoppingStore[]> {
  const stores = await Promise.all(order.stores.map(async (s) =>
    orRefuse(
      await deps.runtime.read(shoppingStoreActor, order.business_id, s.store_id, { kind: "get" }),
    )
  ));
  return stores.flatMap((s) => s ? [s] : []).sort((a, b) => a.sequence - b.sequence);
}

/**
 * An amount the shopper sends, exact in the order's currency, 0 to SHOPPING_AMOUNT_MAX: the
 * order's own amounts' bound, so the tills of every store add up exactly and the basket always
 * reconciles (spec: shopping 1.1, 3).
 */
function minorOf(amount: number | string, currency: string, path: string): number {
  const r = minorOrWhy(amount, currency);
  if (typeof r === "number") return r;
  throw new Refused(invalidFields([{ path, message: r.why }]));
}

/** minorOf's amount, or why it is refused (the message a field error carries). */
function minorOrWhy(amount: number | string, currency: string): number | { why: string } {
  const parsed = toMinor(amount, currency);
  const max = toMinor(SHOPPING_AMOUNT_MAX, currency);
  if (parsed.ok && max.ok && parsed.minor >= 0 && parsed.minor <= max.minor) return parsed.minor;
  return {
    why: !parsed.ok
      ? parsed.message
      : parsed.minor < 0
      ? "must not be negative"
      : `too large: ${formatMinor(parsed.minor, currency)} (at most ${
        formatMinor(max.ok ? max.minor : 0, currency)
      } ${currency})`,
  };
}

/** The report in minor units of the order's currency; a bad amount is 422 naming its field. */
function reportOf(input: LineInput, currency: string): LineReport {
  const errors: FieldError[] = [];
  const money = (v: number | string | undefined, path: string): number | null => {
    if (v === undefined) return null;
    const r = minorOrWhy(v, currency);
    if (typeof r === "number") return r;
    errors.push({ path, message: r.why });
    return null;
  };
  const paid = money(input.unit_price_paid, "unit_price_paid");
  const s = input.substitute;
  const substitute = s && {
    name: s.name,
    barcode: s.barcode ?? null,
    unit_price_minor: money(s.unit_price, "substitute.unit_price"),
  };
  if (errors.length > 0) throw new Refused(invalidFields(errors));
  return {
    outcome: input.outcome,
    qty_found: input.qty_found ?? null,
    unit_price_paid_minor: paid,
    // Only a substitution carries one; a stray substitute on another outcome is ignored.
    substitute: input.outcome === "substituted" ? substitute ?? null : null,
  };
}

/** The receipt image, kept in the business's evidence store as a trip's proof photo is. */
async function storedReceipt(
  deps: ShopperDeps,
  t: Target,
  driverId: string,
  upload: EvidenceUpload,
): Promise<ReceiptPhoto> {
  const type = imageTypeOf(upload.bytes);
  if (type === null) {
    throw new Refused(invalidFields([{
      path: "receipt_photo",
      message: `must be a JPEG, PNG or WebP image: ${upload.content_type || "no type"} sent`,
    }]));
  }
  const r = await storeEvidence(
    deps.runtime,
    t.order.business_id,
    { ...upload, content_type: type },
    driverId,
  );
  if (!r.ok) throw new Refused(r);
  return { sha256: r.value.sha256, content_type: type };
}
