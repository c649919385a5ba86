/**
 * The shopping order body of shopping 2.2 as a schema: every field's shape and range, and the
 * counts of section 8. What spans fields (unique ids, exact amounts, the float) is
 * rules/order.ts's, checked before anything is booked.
 */
import { z } from "../http/route.ts";
import { EXAMPLE_ROUTE, RouteFields, Text } from "../business/booking_schema.ts";
import { Phone, PlainText, TEST_FLAGS } from "../http/schemas.ts";
import {
  SHOPPING_AMOUNT_MAX,
  SHOPPING_EXTERNAL_ID_CHARS_MAX,
  SHOPPING_LINES_MAX,
  SHOPPING_PURCHASE_AMOUNT_MAX,
  SHOPPING_STORES_MAX,
} from "../limits.ts";
import { EXTERNAL_REFERENCE_CHARS_MAX } from "../business/rules/booking.ts";
import { EXTERNAL_ID_PATTERN, SUBSTITUTION_PREFERENCES } from "./rules/order.ts";

const Amount = z.number().min(0).max(SHOPPING_AMOUNT_MAX);
const PATTERN_MESSAGE = `1 to ${SHOPPING_EXTERNAL_ID_CHARS_MAX} characters of A-Z a-z 0-9 . _ : -`;

/**
 * spec: shopping 2.2 "stored as received": a whole number past 2^53 is not kept as sent (JSON
 * reads 9007199254740993 as ...992), so it would be echoed, signed in events and matched on the
 * decision path as another id: refused, to be sent as a string.
 */
const EXACT_MESSAGE = `a number id is a whole one at most ${Number.MAX_SAFE_INTEGER}: past it ` +
  "it cannot be kept exactly as sent, and a fraction names no id; send it as a string";
/** A number id is whole (as the OpenAPI document says: 1.5 was taken) and exact. */
const exact = (v: string | number) => typeof v === "string" || Number.isSafeInteger(v);

/** spec: shopping 2.2: a string or a number, kept as sent; `[A-Za-z0-9._:-]{1,64}` as text. */
const PatternedId = z.union([z.string(), z.number()])
  .refine(exact, { message: EXACT_MESSAGE, abort: true })
  .refine((v) => EXTERNAL_ID_PATTERN.test(String(v)), PATTERN_MESSAGE)
  .openapi({
    description: `A string or a number (a whole one at most ${Number.MAX_SAFE_INTEGER}), ` +
      `echoed as sent; ${PATTERN_MESSAGE}`,
  });

/**
 * An id without a pattern of its own: a string or a number, kept as sent, spaces included (spec:
 * shopping 2.2 "stored as received"); one of only spaces names nothing and is refused, as before.
 */
const FreeId = z.union([
  z.string().max(SHOPPING_EXTERNAL_ID_CHARS_MAX)
    .refine((v) => v.trim() !== "", "must not be empty or only spaces"),
  z.number(),
]).refine(exact, EXACT_MESSAGE).openapi({
  description: `A string (1 to ${SHOPPING_EXTERNAL_ID_CHARS_MAX} characters, not only spaces) ` +
    `or a number (a whole one at most ${Number.MAX_SAFE_INTEGER}), stored and echoed exactly ` +
    "as sent",
});

const Item = z.object({
  external_item_id: PatternedId.openapi({
    description: "Line id, unique across the order (a path segment of the decision endpoint: " +
      `${PATTERN_MESSAGE}); never invented by the service`,
  }),
  name: Text(200),
  qty: z.number().int("whole units").min(1).max(10_000),
  unit_price: Amount.optional().openapi({ description: "Expected shelf price per unit" }),
  barcode: Text(64).optional(),
  // spec: shopping 2.2: a product photo the shopper's app loads: a web address, never a
  // javascript:, data: or file: URL.
  image: z.url({ protocol: /^https?$/, error: "must be an http or https URL of the photo" })
    .max(2_000).optional().openapi({ description: "Product photo URL (http or https)" }),
});

const Store = z.object({
  external_fulfilment_id: PatternedId.openapi({ description: "Unique within the order" }),
  external_store_id: FreeId,
  store_name: Text(200).optional(),
  sequence: z.number().int().min(1).max(1_000).optional().openapi({
    description: "Shopping order; default is array order",
  }),
  estimated_amount: Amount.openapi({ description: "Expected spend at the store" }),
  items: z.array(Item).min(1).max(SHOPPING_LINES_MAX).openapi({
    description: `1 to ${SHOPPING_LINES_MAX} lines`,
  }),
});

export const ShoppingOrderRequest = z.object({
  ...RouteFields,
  scheduled_at: Text(40).optional().openapi({
    description: "ISO 8601, as for POST /business/book",
  }),
  notes: PlainText(1_000, { lines: true }).optional(),
  delivery_code: Text(32).optional(),
  payment_method: Text(40).optional(),
  recipient_first_names: Text(200),
  recipient_surname: Text(200),
  recipient_phone: Phone,
  purchase_amount: z.number().min(0).max(SHOPPING_PURCHASE_AMOUNT_MAX).optional().openapi({
    description: "Shelf money fronted to the shopper; defaults to the sum of estimated_amount; " +
      "may not be lower",
  }),
  // spec: business 7, 9.3: live refuses the test flags, as for every Business API booking.
  ...TEST_FLAGS,
  external_reference: Text(EXTERNAL_REFERENCE_CHARS_MAX).optional().openapi({
    description: "Idempotency key of the booking; defaults to shopping.external_order_id",
  }),
  shopping: z.object({
    external_order_id: PatternedId.openapi({ description: "Merchant order id" }),
    external_location_id: FreeId.optional(),
    substitution_preference: z.enum(SUBSTITUTION_PREFERENCES).optional().openapi({
      description: "refund (default), match or ask",
    }),
    stores: z.array(Store).min(1).max(SHOPPING_STORES_MAX).openapi({
      description: `1 to ${SHOPPING_STORES_MAX} stores`,
    }),
  }),
}).openapi("ShoppingOrderRequest", {
  // One order as a merchant sends it (the sampled one names a scheduled_at that is no time).
  example: {
    ...EXAMPLE_ROUTE,
    recipient_first_names: "Neo",
    recipient_surname: "Kgosi",
    recipient_phone: "+26771234567",
    shopping: {
      external_order_id: "SO-1001",
      substitution_preference: "refund",
      stores: [{
        external_fulfilment_id: "F1",
        external_store_id: "store-7",
        store_name: "Riverwalk Spar",
        estimated_amount: 150,
        items: [{ external_item_id: "I1", name: "Milk 1L", qty: 2, unit_price: 18.5 }],
      }],
    },
  },
});

export type ShoppingOrderBody = z.infer<typeof ShoppingOrderRequest>;
