/**
 * What the Business API's trip documents (4.1 waybill, receipt, pick-list, packing-slip) are
 * drawn from: the trip's facts as the flow reads them, and the order's items as `order_payload`
 * sent them (2.1: `items[]` name, qty, qty_packed, substitute, plus what a shop adds). Pure. The
 * facts hold no delivery code and no custody code: no document can print what it was not given.
 */
import { toMinor } from "../../../domain/money.ts";

/** spec: business 4.1: `?pieces=N`; as many as a booking's `order_payload.pieces` may say. */
export const PIECES_MAX = 1_000;
/**
 * spec: business 4.2: a batch's slips (and labels) built in one request, pages at most: 50 stops
 * of up to PIECES_MAX pieces would be 50,000 pages held in memory at once; above, refused.
 */
export const BATCH_SLIP_PAGES_MAX = 2_000;
/** spec: business 2.6: packing slip settings `returns_note` max 1000 characters. */
export const RETURNS_NOTE_CHARS_MAX = 1_000;

export interface Party {
  readonly name: string | null;
  readonly phone: string | null;
  readonly address: string;
}

/** One line of `order_payload.items`, read loosely: a field of the wrong type counts as absent. */
export interface OrderItem {
  readonly name: string;
  readonly qty: number;
  /** spec: business 4.1: absent until packed; the packed column stays blank. */
  readonly qty_packed: number | null;
  /** The item's own store on a multi-store order, else the order's `store_name`. */
  readonly store: string | null;
  readonly aisle: string | null;
  /** `barcode`, else `sku`. */
  readonly code: string | null;
  /** If it is missing: `substitution_preference`, or `substitute` true or false before packing. */
  readonly preference: string | null;
  /** The product packed instead (`substitute` as text, once packed). */
  readonly substitute: string | null;
  /** `unit_price` (or `price`) in the trip's currency; null when absent or not an amount. */
  readonly unit_price_minor: number | null;
}

/** The trip a document is printed for. */
export interface TripFacts {
  readonly reference: string;
  /** The shop's own order number (`external_reference`), else the trip's reference. */
  readonly order_number: string;
  readonly booked_at: number;
  readonly status: string;
  readonly service: string;
  readonly vehicle: string;
  readonly parcel_size: string | null;
  readonly weight_kg: number | null;
  /** The business, from where the trip is collected. */
  readonly sender: Party;
  readonly recipient: Party;
  /**
   * The recipient's first names and surname as the order sent them (a shopping order's
   * recipient_first_names, recipient_surname); absent: read from the recipient's one name.
   */
  readonly recipient_names?: RecipientNames | undefined;
  readonly stops: readonly string[];
  readonly store_name: string | null;
  /** When the driver collects: scheduled, else booked plus preparation; null: at once. */
  readonly pickup_at: number | null;
  readonly items: readonly OrderItem[];
  /** `order_payload.pieces`, when sent. */
  readonly pieces: number | null;
  readonly currency: string;
  readonly cod_amount_minor: number | null;
  readonly age_verification_required: boolean;
  readonly handover_required: boolean;
  readonly fare_lines: readonly { readonly code: string; readonly amount_minor: number }[];
  readonly billing_amount_minor: number;
  readonly charged_minor: number | null;
  readonly refunded_minor: number | null;
  readonly distance_m: number;
}

/** spec: business 2.6: the business's packing slip settings. */
export interface PackingSlipSettings {
  readonly show_prices: boolean;
  readonly returns_note: string | null;
}

/** spec: business 2.6: show_prices default off; no returns note until one is set. */
export const PACKING_SLIP_DEFAULTS: PackingSlipSettings = {
  show_prices: false,
  returns_note: null,
};

const text = (v: unknown): string | null =>
  typeof v === "string" && v.trim() !== "" ? v.trim() : typeof v === "number" ? String(v) : null;
const count = (v: unknown): number | null =>
  typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : null;

function priceOf(v: unknown, currency: string): number | null {
  if (typeof v !== "number" && typeof v !== "string") return null;
  const parsed = toMinor(v, currency);
  return parsed.ok && parsed.minor >= 0 ? parsed.minor : null;
}

function preferenceOf(i: Record<string, unknown>): string | null {
  const said = text(i["substitution_preference"]) ?? text(i["substitution"]);
  if (said) return said;
  if (i["substitute"] === true) return "substitute allowed";
  if (i["substitute"] === false) return "no substitutes";
  return null;
}

/** spec: business 2.1 order_payload.items: the lines a document lists, in the order sent. */
export function orderItems(payload: Readonly<Record<string, unknown>> | null, currency: string) {
  const items = payload?.["items"];
  const store = text(payload?.["store_name"]);
  if (!Array.isArray(items)) return [];
  return items.flatMap((raw): OrderItem[] => {
    if (typeof raw !== "object" || raw === null) return [];
    const i = raw as Record<string, unknown>;
    const name = text(i["name"]);
    if (name === null) return [];
    return [{
      name,
      qty: count(i["qty"]) ?? 1,
      qty_packed: count(i["qty_packed"]),
      store: text(i["store"]) ?? text(i["store_name"]) ?? store,
      aisle: text(i["aisle"]),
      code: text(i["barcode"]) ?? text(i["sku"]),
      preference: preferenceOf(i),
      substitute: typeof i["substitute"] === "string" ? text(i["substitute"]) : null,
      unit_price_minor: priceOf(i["unit_price"] ?? i["price"], currency),
    }];
  });
}

export interface RecipientNames {
  readonly first_names: string;
  readonly surname: string;
}

/** spec: business 4.1 packing slip: the recipient's first names and surname (the last word). */
export function nameParts(name: string | null): RecipientNames {
  const words = (name ?? "").trim().split(/\s+/).filter((w) => w !== "");
  if (words.length === 0) return { first_names: "-", surname: "-" };
  if (words.length === 1) return { first_names: "-", surname: words[0]! };
  return { first_names: words.slice(0, -1).join(" "), surname: words.at(-1)! };
}

/** spec: business 4.1: N of `?pieces=N`, else `order_payload.pieces`, else one. */
export function piecesOf(query: number | undefined, facts: Pick<TripFacts, "pieces">): number {
  return Math.min(PIECES_MAX, query ?? facts.pieces ?? 1);
}

/** The pages of a batch's slips: one a piece of each stop, plus its label when asked (4.2). */
export function batchSlipPages(
  stops: readonly Pick<TripFacts, "pieces">[],
  labels: number,
): number {
  return stops.reduce((n, facts) => n + piecesOf(undefined, facts), labels);
}

/** Missing of an item: ordered less packed, once packed (a blank packed column is not missing). */
export function missingOf(i: OrderItem): number {
  return i.qty_packed === null ? 0 : Math.max(0, i.qty - i.qty_packed);
}
