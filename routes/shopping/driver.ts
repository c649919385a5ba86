/**
 * The shopper's work on the driver app (shopping 3; CONTRACT "Driver app"): each line of a store
 * found, substituted or unavailable, each store collected (its till amount and receipt photo,
 * multipart) or unavailable, stores in `sequence`. A trip not offered or assigned to the driver
 * is not found; every action takes `idempotency_key`, and a replay answers the first answer.
 */
import { poolDriver, poolDriverOf } from "../../src/business/driver_auth.ts";
import { PROOF_FILE_BYTES_MAX } from "../../src/business/flows/driver_trips.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { define, z } from "../../src/http/route.ts";
import { MULTIPART_OVERHEAD_BYTES_MAX } from "../../src/http/upload.ts";
import {
  collectShoppingStore,
  markShoppingStoreUnavailable,
  recordShoppingLine,
  shopperOrder,
} from "../../src/shopping/flows/shopper.ts";
import {
  DriverCollectBody,
  DriverLineBody,
  SHOPPER_REFUSALS,
} from "../../src/shopping/shopper_schema.ts";
import { IdempotencyKey } from "../../src/http/idempotency.ts";
import { StoreAnswer, storeView } from "./answers/orders.ts";

const tag = "Driver app";
const security = "driver" as const;
const middleware = [poolDriver];
const replay = "The same request (idempotency_key, fields and file) from the same driver";

const StorePath = z.object({
  reference: z.string().min(1).max(40).openapi({ description: "The trip reference" }),
  external_fulfilment_id: z.string().min(1).max(64).openapi({
    description: "The store's external_fulfilment_id (a number as its digits)",
  }),
});

export function shopperRoutes(api: Api): void {
  viewRoute(api);
  lineRoute(api);
  collectRoute(api);
  unavailableRoute(api);
}

const ShopperOrderAnswer = z.object({
  reference: z.string().openapi({ description: "The trip reference" }),
  currency: z.string(),
  stores: z.array(StoreAnswer).openapi({ description: "In shopping order (sequence)" }),
}).openapi("ShopperOrder");

function viewRoute(api: Api): void {
  define(api, {
    method: "get",
    path: "/driver/shopping/{reference}",
    summary: "The shopper's list: the order's stores in sequence, each line's live state",
    tag,
    security,
    middleware,
    params: StorePath.pick({ reference: true }),
    response: ShopperOrderAnswer,
    refusals: { not_found: SHOPPER_REFUSALS.not_found! },
  }, async (c, { params }) => {
    const o = await shopperOrder(c.get("env"), poolDriverOf(c), params.reference);
    return ok(c, {
      reference: o.reference,
      currency: o.currency,
      stores: o.stores.map((s) => storeView(s, o.currency)),
    });
  });
}

function lineRoute(api: Api): void {
  define(api, {
    method: "post",
    path: "/driver/shopping/{reference}/stores/{external_fulfilment_id}/items/{external_item_id}",
    summary: "The shopper records one line: found, substituted or unavailable",
    description: "The line's outcome, with qty_found and unit_price_paid (decimals in the " +
      "order's currency) and, for a substitution, the substitute. The order's " +
      "substitution_preference decides what a substitution becomes (see `outcome`); under " +
      "`ask` the merchant hears a decision is needed, and the store cannot be collected until " +
      "the customer decides or the window ends. Answers the store.",
    tag,
    security,
    middleware,
    params: StorePath.extend({
      external_item_id: z.string().min(1).max(64).openapi({ description: "The line's id" }),
    }),
    body: DriverLineBody,
    replay,
    response: StoreAnswer,
    refusals: {
      ...SHOPPER_REFUSALS,
      line_finished: "the line was already recorded (or decided)",
      substitute_required: "outcome substituted without a substitute",
    },
  }, async (c, { params, body }) => {
    const worked = await recordShoppingLine(c.get("env"), poolDriverOf(c), params, body);
    return ok(c, storeView(worked.store, worked.currency));
  });
}

function collectRoute(api: Api): void {
  define(api, {
    method: "post",
    path: "/driver/shopping/{reference}/stores/{external_fulfilment_id}/collect",
    summary: "The shopper collects a store: its till amount and receipt photo",
    description: "multipart/form-data with the text fields `collected_amount` (a decimal in " +
      "the order's currency) and `idempotency_key` and the file `receipt_photo` (JPEG, PNG or " +
      "WebP), kept with the order. Every line must be recorded first, none awaiting a " +
      "decision, and at least one found or substituted. Answers the store.",
    tag,
    security,
    middleware,
    params: StorePath,
    body: DriverCollectBody,
    form: {
      files: ["receipt_photo"],
      maxBytes: PROOF_FILE_BYTES_MAX + MULTIPART_OVERHEAD_BYTES_MAX,
    },
    replay,
    response: StoreAnswer,
    refusals: {
      ...SHOPPER_REFUSALS,
      lines_pending: "an item of the store is not recorded yet (the first is named)",
      nothing_found: "every item of the store is unavailable: mark the store unavailable",
      receipt_photo_required: "no receipt_photo file",
      evidence_file_too_large: "the receipt photo is larger than a proof file may be",
    },
  }, async (c, { params, body, files }) => {
    const f = files["receipt_photo"];
    const worked = await collectShoppingStore(c.get("env"), poolDriverOf(c), params, {
      ...body,
      receipt_photo: f && {
        name: f.name,
        content_type: f.type,
        bytes: new Uint8Array(await f.arrayBuffer()),
      },
    });
    return ok(c, storeView(worked.store, worked.currency));
  });
}

function unavailableRoute(api: Api): void {
  define(api, {
    method: "post",
    path: "/driver/shopping/{reference}/stores/{external_fulfilment_id}/unavailable",
    summary: "The shopper could buy nothing at a store: its unrecorded lines become unavailable",
    description: "Refused once an item of the store was found or substituted (collect it " +
      "instead). Answers the store.",
    tag,
    security,
    middleware,
    params: StorePath,
    body: z.object({
      idempotency_key: IdempotencyKey.openapi({
        description: "The same request again answers the first answer (a replay after lost " +
          "signal); another request under it is refused 409 reference_conflict",
      }),
    }),
    replay,
    response: StoreAnswer,
    refusals: {
      ...SHOPPER_REFUSALS,
      items_found: "an item of the store was found or substituted: collect it",
    },
  }, async (c, { params, body }) => {
    const worked = await markShoppingStoreUnavailable(c.get("env"), poolDriverOf(c), params, body);
    return ok(c, storeView(worked.store, worked.currency));
  });
}
