/**
 * A batch's rules (Business API 2.3, 4.2, 8): how a stop's size is named, how one batch and each
 * of its stops are named so every retry reaches the same batch and the same trips, which stop
 * sets the batch's one vehicle, and the driving order over the stops' destinations.
 */
import { greatCircleKm, type Point } from "../../domain/geo.ts";
import { sha256Hex } from "../../domain/secrets.ts";
import { drivingOrder } from "./tour.ts";

/** spec: business 2.3, 8: up to 50 stops in a batch. */
export const BATCH_STOPS_MAX = 50;

/** spec: business 2.3: a stop's `size` in full, or its one- or two-letter short form. */
export const STOP_SIZES = {
  small: "small",
  medium: "medium",
  large: "large",
  oversized: "oversized",
  s: "small",
  m: "medium",
  l: "large",
  xl: "oversized",
} as const;

export type StopSize = keyof typeof STOP_SIZES;

/** The parcel size (the catalogue's size_key) a stop's `size` names. */
export function parcelSizeOf(size: StopSize): string {
  return STOP_SIZES[size];
}

const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

function code(hex: string): string {
  let out = "";
  for (let i = 0; i < 12; i++) out += ALPHABET[parseInt(hex.slice(i * 2, i * 2 + 2), 16) % 32];
  return out;
}

/** What names a batch: its body's external_reference (else batch_reference), else the header. */
export interface BatchKey {
  readonly kind: "reference" | "idempotency_key";
  readonly value: string;
}

/**
 * A batch's id: derived from the business and its external_reference or batch_reference (else its
 * Idempotency-Key), so a retry reaches the same batch; random without one (a retry is then a
 * second batch). The header has a namespace of its own, so it never names a body reference's
 * batch; a body reference keeps the derivation batches were stored under.
 */
export function batchReference(
  businessId: string,
  key: BatchKey | null,
  random: () => string,
): string {
  if (key === null) return `BT-${code(sha256Hex(random()))}`;
  const space = key.kind === "reference" ? "batch" : "batch_idempotency_key";
  return `BT-${code(sha256Hex(`${businessId}\n${space}\n${key.value}`))}`;
}

/**
 * spec: business 2.3, 7 test_booking_refused: a stop's name and addresses, each named by the
 * stop's own field as sent (`stops.1.recipient_name`), where a test marker is looked for on live.
 */
export function stopTexts(s: {
  readonly index: number;
  readonly recipient_name: string | null;
  readonly pickup: { readonly address: string };
  readonly dest: { readonly address: string };
}): { readonly path: string; readonly text: string | null }[] {
  return [
    { path: `stops.${s.index}.recipient_name`, text: s.recipient_name },
    { path: `stops.${s.index}.pickup_address`, text: s.pickup.address },
    { path: `stops.${s.index}.dest_address`, text: s.dest.address },
  ];
}

/**
 * The key a stop's trip is booked under: the batch's and the stop's place in the request, so a
 * retry after a crash between two stops books each missing one once and replays the others.
 */
export function stopKey(batch: string, index: number): string {
  return `${batch}:${index}`;
}

/**
 * The wallet hold a batch's stops are paid from (spec: business 4.2, 7: the whole batch is paid,
 * or refused with nothing charged): one per claim of the batch's reference (`claim`, the claim's
 * id), so a retry of that claim finds the hold its first try placed, and an attempt under another
 * claim (another body after a refusal) never holds, draws or releases it. A claim made before
 * claims had ids keeps the one hold of its batch, which its stops booked then draw from.
 */
export function batchHold(batch: string, claim: string | undefined): string {
  return claim === undefined ? `batch:${batch}` : `batch:${batch}:${claim}`;
}

/** The hold a stop's charge draws from: its claim's (a stop booked before: its batch's). */
export function stopHold(batch: { readonly id: string; readonly hold?: string | undefined }) {
  return batch.hold ?? batchHold(batch.id, undefined);
}

/**
 * How long a batch's hold outlives its placing, at most: its stops are booked in seconds, a stop
 * cut by a crash is completed by its claim's timer (BOOKING_STALL_MS, 30 s) and a client retries
 * after 5 s (spec: business 7 Retry-After); a batch abandoned half-way then frees what is left.
 */
export const BATCH_HOLD_MS = 15 * 60_000;

/** The batch's timer that hands a claim its request has not booked in time to the sweep. */
export const BATCH_STALL_TIMER = "batch_booking_stalled";
/** The outbox of the sweep that completes a batch its request stopped booking (batch_sweep.ts). */
export const BATCH_STALLED_OUTBOX = "business_batch_stalled";
/**
 * How long a claim may stay unbooked before the sweep looks at it, and again after each look:
 * past the stops' own stall (BOOKING_STALL_MS, 30 s), so a stop's claim cut by a crash is
 * completed by its trip's sweep first, and well within the hold (BATCH_HOLD_MS), so the sweep
 * pays the stops left from the money held for them (as the checkout's, 2 minutes).
 */
export const BATCH_BOOKING_STALL_MS = 2 * 60_000;

/** The batch prices' timer that hands them to the batch sweep to see if their batch ended. */
export const BATCH_PRICES_TIMER = "batch_prices_check";
/** The outbox of the sweep that removes prices no batch needs any more (batch_sweep.ts). */
export const BATCH_PRICES_DUE_OUTBOX = "business_batch_prices_due";
/**
 * How long a batch's prices are kept before the sweep first asks whether their batch still needs
 * them, and again after each look while it does: far past any request between the keep and its
 * claim (seconds), past the hold (BATCH_HOLD_MS) a batch abandoned half-way keeps its money for.
 */
export const BATCH_PRICES_CHECK_MS = 60 * 60_000;

/**
 * The driving order (indexes of `dests`): from the first pickup, every destination once, by
 * cheapest insertion then 2-opt over great-circle distances.
 */
export function stopOrder(start: Point, dests: readonly Point[]): number[] {
  const points = [start, ...dests];
  const d = points.map((a) => points.map((b) => greatCircleKm(a, b)));
  return drivingOrder(d).slice(1).map((i) => i - 1);
}
