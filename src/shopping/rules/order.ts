/**
 * A shopping order's body checked whole (shopping 2.2, 8): what spans fields beyond their shapes
 * (ids unique within the order, amounts exact in the currency, the float no lower than the
 * stores' estimates), the first problem named. Pure: nothing is booked before it passes.
 */
import { AMOUNT_MINOR_MAX, formatMinor, sumMinor, toMinor } from "../../domain/money.ts";
import type { FieldError } from "../../runtime/actor.ts";
import { SHOPPING_LINE_WORK_CHARS_MAX, SHOPPING_STORE_LINES_CHARS_MAX } from "../../limits.ts";

/** spec: shopping 2.2: external ids are kept and echoed with the JSON type sent. */
export type ExternalId = string | number;

export const SUBSTITUTION_PREFERENCES = ["refund", "match", "ask"] as const;
export type SubstitutionPreference = typeof SUBSTITUTION_PREFERENCES[number];

/** spec: shopping 2.2: `[A-Za-z0-9._:-]{1,64}`. */
export const EXTERNAL_ID_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/;

export interface OrderLine {
  readonly external_item_id: ExternalId;
  readonly name: string;
  readonly qty: number;
  readonly unit_price_minor: number | null;
  readonly barcode: string | null;
  readonly image: string | null;
}

export interface OrderStore {
  readonly external_fulfilment_id: ExternalId;
  readonly external_store_id: ExternalId;
  readonly store_name: string | null;
  readonly sequence: number;
  readonly estimated_amount_minor: number;
  readonly items: readonly OrderLine[];
}

export interface Recipient {
  readonly first_names: string;
  readonly surname: string;
  readonly phone: string;
}

/** The order as booked: amounts in minor units of the business's currency. */
export interface ShoppingOrderDraft {
  readonly external_order_id: ExternalId;
  readonly external_reference: string;
  readonly external_location_id: ExternalId | null;
  readonly substitution_preference: SubstitutionPreference;
  readonly recipient: Recipient;
  readonly currency: string;
  /** spec: shopping 1.1, 2.2: the shelf money fronted to the shopper. */
  readonly purchase_amount_minor: number;
  readonly estimated_amount_minor: number;
  readonly payment_method: string | null;
  readonly stores: readonly OrderStore[];
}

/** The checked shapes the rules take (the route's schema guarantees them). */
export interface ItemInput {
  readonly external_item_id: ExternalId;
  readonly name: string;
  readonly qty: number;
  readonly unit_price?: number | undefined;
  readonly barcode?: string | undefined;
  readonly image?: string | undefined;
}

export interface StoreInput {
  readonly external_fulfilment_id: ExternalId;
  readonly external_store_id: ExternalId;
  readonly store_name?: string | undefined;
  readonly sequence?: number | undefined;
  readonly estimated_amount: number;
  readonly items: readonly ItemInput[];
}

export interface ShoppingOrderInput {
  readonly recipient_first_names: string;
  readonly recipient_surname: string;
  readonly recipient_phone: string;
  readonly purchase_amount?: number | undefined;
  readonly external_reference?: string | undefined;
  readonly payment_method?: string | undefined;
  readonly shopping: {
    readonly external_order_id: ExternalId;
    readonly external_location_id?: ExternalId | undefined;
    readonly substitution_preference?: SubstitutionPreference | undefined;
    readonly stores: readonly StoreInput[];
  };
}

export type Checked = { readonly ok: true; readonly order: ShoppingOrderDraft } | {
  readonly ok: false;
  readonly error: FieldError;
};

class Problem extends Error {
  constructor(readonly error: FieldError) {
    super(error.message);
  }
}

function minor(amount: number, currency: string, path: string): number {
  const m = toMinor(amount, currency);
  if (!m.ok) throw new Problem({ path, message: m.message });
  return m.minor;
}

/** spec: shopping 2.2: an id used twice where it must be unique (a number and its text alike). */
function unique(seen: Map<string, string>, id: ExternalId, path: string, what: string) {
  const key = String(id);
  const first = seen.get(key);
  if (first !== undefined) {
    throw new Problem({ path, message: `${what} must be unique: ${key} is also at ${first}` });
  }
  seen.set(key, path);
}

/**
 * spec: shopping 7, 8: a store's lines (1 to 200) are held by one store actor, with room for the
 * shopper's work on each: lines too long to hold so are refused here, before anything is booked,
 * rather than by the store's opening after the order id was taken, or by a line's recording.
 */
function fitsOneStore(items: readonly OrderLine[], path: string) {
  const held = JSON.stringify(items).length + items.length * SHOPPING_LINE_WORK_CHARS_MAX;
  if (held <= SHOPPING_STORE_LINES_CHARS_MAX) return;
  throw new Problem({
    path,
    message: `too large for one store: ${held} characters with room for the shopper's work ` +
      `(${SHOPPING_LINE_WORK_CHARS_MAX} a line), max ${SHOPPING_STORE_LINES_CHARS_MAX}; send ` +
      "shorter names, barcodes or image URLs, or split the store's lines over two fulfilments",
  });
}

/** What the order checks across its stores as it reads them, in body order. */
interface Seen {
  readonly currency: string;
  readonly items: Map<string, string>;
  readonly stores: Map<string, string>;
  /** The lines' worth so far (unit_price x qty), minor units. */
  worth: number;
}

/**
 * spec: shopping 3: every line may end refunded, and the refunds are summed exactly: the lines'
 * worth (unit_price x qty, over the order) must stay an amount that states exactly, else the
 * basket's reconciliation could not be made and the order would never complete.
 */
function worthHeld(o: Seen, line: OrderLine, path: string) {
  if (line.unit_price_minor === null) return;
  o.worth += line.unit_price_minor * line.qty;
  if (o.worth <= AMOUNT_MINOR_MAX) return;
  throw new Problem({
    path,
    message: `the order's lines are worth more than an amount can state (refunded whole): ` +
      `past ${formatMinor(AMOUNT_MINOR_MAX, o.currency)} ${o.currency} from this line`,
  });
}

function storeOf(s: StoreInput, i: number, o: Seen): OrderStore {
  const at = `shopping.stores.${i}`;
  unique(
    o.stores,
    s.external_fulfilment_id,
    `${at}.external_fulfilment_id`,
    "external_fulfilment_id",
  );
  const items = s.items.map((item, j): OrderLine => {
    const path = `${at}.items.${j}`;
    unique(o.items, item.external_item_id, `${path}.external_item_id`, "external_item_id");
    const line: OrderLine = {
      external_item_id: item.external_item_id,
      name: item.name,
      qty: item.qty,
      unit_price_minor: item.unit_price === undefined
        ? null
        : minor(item.unit_price, o.currency, `${path}.unit_price`),
      barcode: item.barcode ?? null,
      image: item.image ?? null,
    };
    worthHeld(o, line, path);
    return line;
  });
  fitsOneStore(items, `${at}.items`);
  return {
    external_fulfilment_id: s.external_fulfilment_id,
    external_store_id: s.external_store_id,
    store_name: s.store_name ?? null,
    // spec: shopping 2.2: the shopping order; default is array order.
    sequence: s.sequence ?? i + 1,
    estimated_amount_minor: minor(s.estimated_amount, o.currency, `${at}.estimated_amount`),
    items,
  };
}

/** The order in minor units, or the first problem found, in the body's order. */
export function checkShoppingOrder(input: ShoppingOrderInput, currency: string): Checked {
  try {
    const seen: Seen = { currency, items: new Map(), stores: new Map(), worth: 0 };
    const stores = input.shopping.stores.map((s, i) => storeOf(s, i, seen));
    const estimated = sumMinor(stores.map((s) => s.estimated_amount_minor));
    // spec: shopping 2.2: purchase_amount defaults to the sum of estimated_amount; never lower.
    const purchase = input.purchase_amount === undefined
      ? estimated
      : minor(input.purchase_amount, currency, "purchase_amount");
    if (purchase < estimated) {
      throw new Problem({
        path: "purchase_amount",
        message: `may not be lower than the sum of the stores' estimated_amount: ${
          formatMinor(purchase, currency)
        } < ${formatMinor(estimated, currency)} ${currency}`,
      });
    }
    return { ok: true, order: draftOf(input, { currency, stores, estimated, purchase }) };
  } catch (e) {
    if (e instanceof Problem) return { ok: false, error: e.error };
    throw e;
  }
}

function draftOf(
  input: ShoppingOrderInput,
  o: { currency: string; stores: OrderStore[]; estimated: number; purchase: number },
): ShoppingOrderDraft {
  const s = input.shopping;
  return {
    external_order_id: s.external_order_id,
    // spec: shopping 2.2: the idempotency key defaults to shopping.external_order_id.
    external_reference: input.external_reference ?? String(s.external_order_id),
    external_location_id: s.external_location_id ?? null,
    substitution_preference: s.substitution_preference ?? "refund",
    recipient: {
      first_names: input.recipient_first_names,
      surname: input.recipient_surname,
      phone: input.recipient_phone,
    },
    currency: o.currency,
    purchase_amount_minor: o.purchase,
    estimated_amount_minor: o.estimated,
    payment_method: input.payment_method ?? null,
    stores: o.stores,
  };
}
