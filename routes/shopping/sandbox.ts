/**
 * The sandbox's shopper steps (shopping 3 via Business API 4.4): an integrator drives a shopping
 * order's shopper without a real shop, through the driver app's own flow by the trip's simulated
 * driver (assign_driver first): a line found, substituted or unavailable, a store collected or
 * unavailable, and a decision window closed now (the timeout). Live answers 404 as for the other
 * sandbox endpoints.
 */
import { PROOF_FILE_BYTES_MAX } from "../../src/business/flows/driver_trips.ts";
import { type Api, ok } from "../../src/http/app.ts";
import { define, z } from "../../src/http/route.ts";
import { MULTIPART_OVERHEAD_BYTES_MAX } from "../../src/http/upload.ts";
import { business } from "../../src/platform/auth/auth.ts";
import { businessCall } from "../../src/platform/auth/caller.ts";
import { shoppingFulfilment } from "../../src/shopping/auth.ts";
import type { ShoppingOrderLive } from "../../src/shopping/flows/orders.ts";
import {
  sandboxCloseDecisionWindow,
  sandboxCollectStore,
  sandboxShoppingLine,
  sandboxStoreUnavailable,
} from "../../src/shopping/flows/sandbox_shopper.ts";
import {
  DecimalAmount,
  LineReportBody,
  SHOPPER_REFUSALS,
} from "../../src/shopping/shopper_schema.ts";
import { ShoppingOrderAnswer, shoppingOrderView } from "./answers/orders.ts";

const tag = "Sandbox";
const security = "business" as const;
const middleware = [business({ scope: "deliveries" }), shoppingFulfilment];
const BASE = "/business/sandbox/shopping-orders/{reference}";
const STEPS = ["item", "collect", "unavailable", "close_decision_window"] as const;

const Reference = z.object({
  reference: z.string().min(1).max(40).openapi({ description: "The order's trip reference" }),
});
const StorePath = Reference.extend({
  external_fulfilment_id: z.string().min(1).max(64),
});
const ItemId = z.string().min(1).max(64).openapi({ description: "The line's external_item_id" });
const StepKey = z.string().trim().min(1).max(120).optional().openapi({
  description: "The same key answers as the first time (a retried step); else a new step",
});

const SandboxShopperAnswer = z.object({
  environment: z.literal("sandbox"),
  step: z.enum(STEPS),
  order: ShoppingOrderAnswer,
}).openapi("SandboxShopperStepResult");

const REFUSALS = {
  ...SHOPPER_REFUSALS,
  not_found: "no shopping order of yours by this reference, or no such store or item; or " +
    "called on live (the sandbox endpoints are on the sandbox base)",
  driver_not_assigned: "the trip has no driver yet: POST /business/sandbox/trips/{reference}/" +
    "assign_driver first",
};

function answer(step: typeof STEPS[number], live: ShoppingOrderLive) {
  return { environment: "sandbox" as const, step, order: shoppingOrderView(live) };
}

export function sandboxShopperRoutes(api: Api): void {
  lineStepRoute(api);
  collectStepRoute(api);
  unavailableStepRoute(api);
  closeWindowStepRoute(api);
}

function lineStepRoute(api: Api): void {
  define(api, {
    method: "post",
    path: `${BASE}/stores/{external_fulfilment_id}/items/{external_item_id}`,
    summary: "Sandbox: the simulated shopper records one line (found, substituted, unavailable)",
    description: "Sandbox base only. The body of the driver app's line (POST /driver/shopping/" +
      "{reference}/stores/{external_fulfilment_id}/items/{external_item_id}), given by the " +
      "trip's simulated driver: a substitution under `refund` is refused, under `match` taken, " +
      "under `ask` waits for POST /business/shopping-orders/{reference}/items/" +
      "{external_item_id}/decision (or the window's end). Answers the order.",
    tag,
    security,
    middleware,
    params: StorePath.extend({ external_item_id: ItemId }),
    body: LineReportBody.extend({ idempotency_key: StepKey }),
    response: SandboxShopperAnswer,
    refusals: {
      ...REFUSALS,
      line_finished: "the line was already recorded (or decided)",
      substitute_required: "outcome substituted without a substitute",
    },
  }, async (c, { params, body }) => {
    const { env, tenant } = businessCall(c);
    return ok(c, answer("item", await sandboxShoppingLine(env, tenant, params, body)));
  });
}

function collectStepRoute(api: Api): void {
  define(api, {
    method: "post",
    path: `${BASE}/stores/{external_fulfilment_id}/collect`,
    summary: "Sandbox: the simulated shopper collects a store",
    description: "Sandbox base only. JSON, or multipart/form-data with a `receipt_photo` file; " +
      "without one a generated placeholder image is kept as the receipt. collected_amount " +
      "defaults to qty_found times unit_price_paid over the store's found and substituted " +
      "lines. Answers the order.",
    tag,
    security,
    middleware,
    params: StorePath,
    body: z.object({
      collected_amount: DecimalAmount.optional().openapi({
        description: "The till total, a decimal; default: what the lines bought cost",
      }),
      idempotency_key: StepKey,
    }),
    form: {
      files: ["receipt_photo"],
      maxBytes: PROOF_FILE_BYTES_MAX + MULTIPART_OVERHEAD_BYTES_MAX,
    },
    response: SandboxShopperAnswer,
    refusals: {
      ...REFUSALS,
      lines_pending: "an item of the store is not recorded yet (the first is named)",
      nothing_found: "every item of the store is unavailable: mark the store unavailable",
      evidence_file_too_large: "the receipt photo is larger than a proof file may be",
    },
  }, async (c, { params, body, files }) => {
    const { env, tenant } = businessCall(c);
    const f = files["receipt_photo"];
    const live = await sandboxCollectStore(env, tenant, params, {
      ...body,
      receipt_photo: f && {
        name: f.name,
        content_type: f.type,
        bytes: new Uint8Array(await f.arrayBuffer()),
      },
    });
    return ok(c, answer("collect", live));
  });
}

function unavailableStepRoute(api: Api): void {
  define(api, {
    method: "post",
    path: `${BASE}/stores/{external_fulfilment_id}/unavailable`,
    summary: "Sandbox: the simulated shopper could buy nothing at a store",
    description: "Sandbox base only. As the driver app's /unavailable: the store's unrecorded " +
      "lines become unavailable (decided_by shopper). Answers the order.",
    tag,
    security,
    middleware,
    params: StorePath,
    body: z.object({ idempotency_key: StepKey }),
    response: SandboxShopperAnswer,
    refusals: {
      ...REFUSALS,
      items_found: "an item of the store was found or substituted: collect it",
    },
  }, async (c, { params, body }) => {
    const { env, tenant } = businessCall(c);
    return ok(c, answer("unavailable", await sandboxStoreUnavailable(env, tenant, params, body)));
  });
}

function closeWindowStepRoute(api: Api): void {
  define(api, {
    method: "post",
    path: `${BASE}/items/{external_item_id}/close_decision_window`,
    summary: "Sandbox: a line awaiting the customer's decision times out now",
    description: "Sandbox base only. What the window's end does, without waiting " +
      "ask_timeout_minutes: the line becomes unavailable, decided_by preference, refunded; a " +
      "decision sent after it answers 409 decision_window_closed. Answers the order.",
    tag,
    security,
    middleware,
    params: Reference.extend({ external_item_id: ItemId }),
    response: SandboxShopperAnswer,
    refusals: {
      not_found: REFUSALS.not_found,
      not_awaiting_decision: "the line awaits no decision",
    },
  }, async (c, { params }) => {
    const { env, tenant } = businessCall(c);
    return ok(
      c,
      answer("close_decision_window", await sandboxCloseDecisionWindow(env, tenant, params)),
    );
  });
}
