/**
 * The booking's rules that span fields (Business API 2.1, 3.1, 7, 8, appendix): when a scheduled
 * booking is dispatched, which texts are test traffic on live, and how one booking is named so
 * every retry of it reaches the same trip.
 */
import { canonicalJson, hmacHex, sha256Hex } from "../../domain/secrets.ts";
import { toMinor } from "../../domain/money.ts";
import type { FieldError } from "../../runtime/actor.ts";

/** A claimed booking not completed in this long is handed to the completing sweep. */
export const BOOKING_STALL_MS = 30_000;
/** spec: business 7: booking_in_progress and request_in_progress answer Retry-After 5. */
export const BOOKING_RETRY_AFTER_SECONDS = 5;
/** spec: business 7: the answers of a booking still in progress (they carry Retry-After). */
export const IN_PROGRESS_CODES = ["booking_in_progress", "request_in_progress"] as const;
/** spec: business 8: external_reference max 80 characters. */
export const EXTERNAL_REFERENCE_CHARS_MAX = 80;
/** spec: business 8: Idempotency-Key up to 64 characters. */
export const IDEMPOTENCY_KEY_CHARS_MAX = 64;
/** spec: business 3.1: a scheduled_at within the next 10 minutes is treated as now. */
export const SCHEDULE_AS_NOW_MS = 10 * 60_000;
/** spec: business 2.1: a scheduled_at without an offset is read as UTC+2 (Gaborone). */
export const DEFAULT_OFFSET = "+02:00";

/** The outbox of refunds owed by cancelled trips. */
export const TRIP_REFUND_OUTBOX = "business_trip_refund";
/** The outbox of bookings that stopped between their steps. */
export const BOOKING_STALLED_OUTBOX = "business_booking_stalled";
/**
 * A stopped booking's completion that failed (an instance lost, an actor busy) is tried again
 * at least this often, not after the outboxes' doubling waits of minutes: its client is told to
 * retry after BOOKING_RETRY_AFTER_SECONDS and waits for it.
 */
export const STALLED_RETRY = { retryMaxMs: BOOKING_RETRY_AFTER_SECONDS * 1000 } as const;
/**
 * The outbox of shop-and-deliver trips created (shopping 1.1): the shopping order that booked the
 * trip is marked booked from the trip's own commit, so a crash before the order flow marks it
 * leaves no charged trip whose order its shopper and merchant cannot see.
 */
export const SHOP_TRIP_BOOKED_OUTBOX = "business_shop_trip_booked";

/** A shop-and-deliver trip created, with the fingerprint of the booking that made it. */
export interface ShopTripBookedItem {
  readonly business_id: string;
  readonly reference: string;
  readonly fingerprint: string;
}

/**
 * The outbox of shop-and-deliver trips cancelled (business 3.1; shopping 1.1): the order's stores
 * not yet finished end unavailable, so the basket completes and the goods already bought at the
 * tills are charged once, from the trip's own commit (a crash after it loses nothing).
 */
export const SHOP_TRIP_ENDED_OUTBOX = "business_shop_trip_ended";

/** A shop-and-deliver trip cancelled (the item of SHOP_TRIP_ENDED_OUTBOX), as created. */
export type ShopTripEndedItem = ShopTripBookedItem;

/** spec: business 7 test_booking_refused: the prefixes that mark a test order on live. */
export const TEST_MARKERS = ["__TEST", "[TEST]", "TEST ORDER", "DO NOT DELIVER"] as const;

/** A text a test marker is looked for in, named by its path in the request. */
export interface MarkedText {
  readonly path: string;
  readonly text: string | null | undefined;
}

/** Unicode format characters (Cf): zero-width spaces and joiners, direction marks, BOM. */
const INVISIBLE = /\p{Cf}/gu;

/** The first marked text among `texts` (name, item, address, note), by its path; null: none. */
export function testMarked(
  texts: readonly MarkedText[],
): { readonly path: string; readonly marker: string } | null {
  for (const { path, text } of texts) {
    // Invisible format characters (a zero-width space, a direction mark) hide no marker.
    const head = (text ?? "").replace(INVISIBLE, "").trimStart().toUpperCase();
    const marker = TEST_MARKERS.find((m) => head.startsWith(m));
    if (marker) return { path, marker };
  }
  return null;
}

/** The parts of a booking (business 2.1) whose texts a test marker is looked for in. */
export interface BookingTexts {
  readonly type: "ride" | "parcel";
  readonly passenger_name?: string | undefined;
  readonly pickup: { readonly address: string };
  readonly dest: { readonly address: string };
  readonly dest_field?: DestAddressField | undefined;
  readonly stops?: readonly { readonly address: string }[] | undefined;
  readonly order_payload?: Readonly<Record<string, unknown>> | undefined;
  readonly item_names?: readonly string[] | undefined;
  readonly goods?: readonly object[] | undefined;
  readonly note?: string | undefined;
}

/** The body field a booking's destination address came in (spec: business 2.1 dropoff_*). */
export type DestAddressField = "dest_address" | "dropoff_address";

/**
 * The field a refusal names for the destination: the one the caller sent it in (a delivery may
 * come with dropoff_* alone), else the type's own (a ride's dropoff_address, a delivery's
 * dest_address) for requests built without a body (batch stops, subscriptions).
 */
export function destAddressField(
  r: { readonly type: "ride" | "parcel"; readonly dest_field?: DestAddressField | undefined },
): DestAddressField {
  return r.dest_field ?? (r.type === "ride" ? "dropoff_address" : "dest_address");
}

/** A field of an object sent as text, else undefined (the schema checked the shapes). */
function textAt(o: unknown, field: string): string | undefined {
  const v = o !== null && typeof o === "object" ? (o as Record<string, unknown>)[field] : undefined;
  return typeof v === "string" ? v : undefined;
}

/**
 * spec: business 7 test_booking_refused: "a name, item, address or note": the passenger's and
 * the store's names, every item (its name, its store, the product packed instead, a goods
 * line's description), every address (a ride's destination is its dropoff_address) and the
 * note, each named by its path in the booking body.
 */
export function bookingTexts(r: BookingTexts): MarkedText[] {
  const items = r.order_payload?.items;
  const itemTexts = Array.isArray(items)
    ? items.flatMap((item, i) =>
      (["name", "store", "substitute"] as const).map((f) => ({
        path: `order_payload.items.${i}.${f}`,
        text: textAt(item, f),
      }))
    )
    : (r.item_names ?? []).map((n, i) => ({ path: `order_payload.items.${i}.name`, text: n }));
  return [
    { path: "passenger_name", text: r.passenger_name },
    { path: "pickup_address", text: r.pickup.address },
    ...(r.stops ?? []).map((s, i) => ({ path: `stops.${i}.address`, text: s.address })),
    { path: destAddressField(r), text: r.dest.address },
    { path: "order_payload.store_name", text: textAt(r.order_payload, "store_name") },
    ...itemTexts,
    ...(r.goods ?? []).map((g, i) => ({
      path: `goods.${i}.description`,
      text: textAt(g, "description"),
    })),
    { path: "note", text: r.note },
  ];
}

/**
 * The booking's amounts (cod_amount, each item's unit_price) that the trip's currency cannot hold
 * exactly, each named: money is exact, so 9.995 BWP is refused, never rounded or dropped from a
 * packing slip (spec: business 2.1 cod_amount, order_payload; 4.1 packing slip prices).
 */
export function inexactAmounts(
  r: {
    readonly cod_amount?: number | undefined;
    readonly order_payload?: Readonly<Record<string, unknown>> | undefined;
  },
  currency: string,
): FieldError[] {
  const items = r.order_payload?.items;
  const amounts = [
    { path: "cod_amount", amount: r.cod_amount },
    ...(Array.isArray(items) ? items : []).map((item, i) => ({
      path: `order_payload.items.${i}.unit_price`,
      amount: item !== null && typeof item === "object"
        ? (item as Record<string, unknown>).unit_price
        : undefined,
    })),
  ];
  return amounts.flatMap(({ path, amount }) => {
    if (typeof amount !== "number") return [];
    const m = toMinor(amount, currency);
    return m.ok ? [] : [{ path, message: m.message }];
  });
}

/**
 * The amounts none of `currencies` holds exactly (each named once): wrong wherever the trip is
 * priced, so a booking names them beside its other bad fields before geocoding and pricing; the
 * currency it is priced in is checked again after (inexactAmounts).
 */
export function inexactInEveryCurrency(
  r: Parameters<typeof inexactAmounts>[0],
  currencies: readonly string[],
): FieldError[] {
  const each = [...new Set(currencies)].map((currency) => inexactAmounts(r, currency));
  return (each[0] ?? []).filter((p) => each.every((e) => e.some((q) => q.path === p.path)));
}

export type Schedule =
  | { readonly ok: true; readonly at: number | null }
  | { readonly ok: false; readonly message: string };

/**
 * ISO 8601 date and time (seconds and fraction optional), then Z, an offset, or none; the date
 * and time apart by T or, as RFC 3339 allows, a space (Python's str() of a datetime writes one,
 * and it was read before). Only this: Date.parse also guesses at other formats
 * (`12/02/2027 10:00 +02:00` read month first).
 */
const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** The fields name a real day and time: Date.parse rolls 30 February into March, 24:00 on. */
function realDateTime(fields: readonly string[], offset: string | undefined): boolean {
  const [y, mo, d, h, mi, s = 0] = fields.map(Number) as number[];
  const day = new Date(0);
  day.setUTCFullYear(y!, mo! - 1, d!);
  const offsetOk = !offset || offset.toUpperCase() === "Z" ||
    (Number(offset.slice(1, 3)) <= 23 && Number(offset.slice(-2)) <= 59);
  return day.getUTCMonth() === mo! - 1 && day.getUTCDate() === d && h! <= 23 && mi! <= 59 &&
    s <= 59 && offsetOk;
}

/**
 * scheduled_at read as an instant (spec: business 2.1: ISO 8601 with an offset, or UTC+2 without
 * one), or why it cannot be: the format alone, so the body's schema names it beside every other
 * bad field (the clock's judgement is scheduleOf's).
 */
export function parseScheduledAt(
  text: string,
): { readonly ok: true; readonly at: number } | { readonly ok: false; readonly message: string } {
  const shown = text.slice(0, 40);
  const m = ISO_DATE_TIME.exec(text.trim());
  if (!m) return { ok: false, message: `must be an ISO 8601 date and time: ${shown}` };
  const offset = m[7];
  if (!realDateTime(m.slice(1, 7).filter((x) => x !== undefined), offset)) {
    return { ok: false, message: `not a valid time: ${shown}` };
  }
  // Read with the offset as `+HH:MM` (or Z), the one form Date.parse is bound to read.
  const local = text.trim().slice(0, text.trim().length - (offset?.length ?? 0)).replace(" ", "T");
  const zone = !offset
    ? DEFAULT_OFFSET
    : offset.toUpperCase() === "Z"
    ? "Z"
    : `${offset.slice(0, 3)}:${offset.slice(-2)}`;
  const at = Date.parse(`${local}${zone}`);
  if (!Number.isFinite(at)) return { ok: false, message: `not a valid time: ${shown}` };
  return { ok: true, at };
}

/**
 * spec: business 2.1, 3.1: scheduled_at, ISO 8601 with an offset, or read as UTC+2 without one;
 * in the past refused; within 10 minutes dispatched now (null).
 */
export function scheduleOf(text: string | null | undefined, now: number): Schedule {
  if (text === null || text === undefined) return { ok: true, at: null };
  const parsed = parseScheduledAt(text);
  if (!parsed.ok) return parsed;
  const { at } = parsed;
  if (at < now) return { ok: false, message: `is in the past: ${text.slice(0, 40)}` };
  return { ok: true, at: at - now <= SCHEDULE_AS_NOW_MS ? null : at };
}

/** The text every retry of one booking sends: the body, field order aside. */
export function fingerprintOf(body: unknown): string {
  return sha256Hex(canonicalJson(body));
}

/**
 * Fields sent at the value leaving them out means (spec: business 2.1): the same booking
 * however spelled. `test` and `dry_run` are refused on live when true and ignored in the sandbox.
 */
const MEANING_ABSENT: ReadonlyArray<readonly [string, (v: unknown) => boolean]> = [
  ["stops", (v) => Array.isArray(v) && v.length === 0],
  ["handover_required", (v) => v === false],
  ["age_verification_required", (v) => v === false],
  ["shop_deliver", (v) => v === false],
  ["test", (v) => v === false],
  ["dry_run", (v) => v === false],
];

/**
 * spec: business 7, appendix 1, 2: what tells a retry of a booking from other details: the body
 * as fingerprintOf reads it, less what changes nothing (MEANING_ABSENT; a parcel's segment
 * `parcel`; an order_payload.external_reference that is the booking's own, which the booking
 * copies there itself; in the sandbox, the test flags it ignores). Sent one way first and the
 * other on a retry, the same booking answered 409 external_reference_conflict.
 */
export function bookingFingerprint(body: unknown, sandbox: boolean): string {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return fingerprintOf(body);
  const b: Record<string, unknown> = { ...body };
  for (const [field, absent] of MEANING_ABSENT) if (absent(b[field])) delete b[field];
  if (b.type === "parcel" && b.segment === "parcel") delete b.segment;
  if (sandbox) {
    delete b.test;
    delete b.dry_run;
  }
  const payload = b.order_payload;
  if (payload !== null && typeof payload === "object" && !Array.isArray(payload)) {
    const p: Record<string, unknown> = { ...payload };
    if (p.external_reference === b.external_reference) delete p.external_reference;
    // What the booking makes of an external_reference alone (orderPayloadOf).
    if (Object.keys(p).length === 0) delete b.order_payload;
    else b.order_payload = p;
  }
  return fingerprintOf(b);
}

const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** `BK-` and 12 characters of Crockford base 32 from the first bytes of `hex`. */
function referenceFromHex(hex: string): string {
  let out = "";
  for (let i = 0; i < 12; i++) out += ALPHABET[parseInt(hex.slice(i * 2, i * 2 + 2), 16) % 32];
  return `BK-${out}`;
}

/**
 * A booking's trip reference: derived from its business and external_reference (else its
 * Idempotency-Key), so every retry names the same trip; random when it has neither (appendix 1:
 * "without a reference a retry is a second delivery"). Keyed with the environment's
 * referenceKey: a reference opens the public reference view of its trip (2.4 rule 5), so nobody
 * who knows a business's id and guesses its order numbers may work it out. An account made
 * before references were keyed (no `references_keyed`) keeps the plain derivation for good, so a
 * retry of any booking it made then still names the trip it made.
 */
export function bookingReference(
  referenceKey: Uint8Array,
  account: { readonly id: string; readonly references_keyed?: true },
  key: { readonly kind: "external_reference" | "idempotency_key"; readonly value: string } | null,
  random: () => string,
): string {
  if (key === null) return referenceFromHex(sha256Hex(random()));
  const source = `${account.id}\n${key.kind}\n${key.value}`;
  return referenceFromHex(
    account.references_keyed ? hmacHex(referenceKey, source) : sha256Hex(source),
  );
}

/** An average town speed for the first estimate, before a driver and a route exist. */
const ETA_METRES_PER_MINUTE = 500;
/** spec: business 2.2 eta_minutes: at least a few minutes, however short the trip. */
const ETA_MINUTES_MIN = 5;

/** The minutes from pickup to destination at an average town speed. */
export function etaMinutes(distanceM: number): number {
  return Math.max(ETA_MINUTES_MIN, Math.ceil(distanceM / ETA_METRES_PER_MINUTE));
}
