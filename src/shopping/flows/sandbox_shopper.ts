/**
 * The sandbox's shopper steps (shopping 3 via Business API 4.4; CONTRACT "Driver app": the sandbox
 * steps are the driver app's commands given by a simulated driver): a line, a store's collection
 * or unavailability, by the trip's simulated driver through the same flow as the driver app, and
 * a decision window closed at once (the timeout an integrator would otherwise wait for). A
 * collection without a receipt gets a generated placeholder image, and without an amount the
 * till amount of the lines bought.
 */
import { shoppingStoreActor } from "../../../actors/shopping/store.ts";
import { lineOf } from "../../../actors/shopping/store.ts";
import { SIMULATED_PNG } from "../../business/flows/sandbox_steps.ts";
import { refuseUnlessSandbox } from "../../business/rules/sandbox.ts";
import type { EvidenceUpload } from "../../courier/flows/evidence.ts";
import { AmountOutOfRange, formatMinor } from "../../domain/money.ts";
import type { Deps } from "../../environment.ts";
import { invalidFields, orRefuse, refuse, Refused } from "../../runtime/actor.ts";
import { newId } from "../../runtime/ids.ts";
import { tillAmountMinor } from "../rules/shopper.ts";
import { type ShoppingOrderLive, shoppingOrderOf } from "./orders.ts";
import {
  collectShoppingStore,
  type LineInput,
  markShoppingStoreUnavailable,
  recordShoppingLine,
} from "./shopper.ts";

type D = Pick<Deps, "runtime" | "name" | "requestId">;

const ENDPOINT = "POST /business/sandbox/shopping-orders/{reference}/...";

/** spec: business 4.4: a step on the sandbox base only, by the order trip's simulated driver. */
async function simulatedShopper(deps: D, business: string, reference: string) {
  refuseUnlessSandbox(deps.name, ENDPOINT);
  const live = await shoppingOrderOf(deps, business, reference);
  const driverId = live.trip?.driver?.id;
  if (driverId === undefined) {
    refuse(
      "driver_not_assigned",
      `the shopper is the trip's driver: assign_driver first ` +
        `(POST /business/sandbox/trips/${reference}/assign_driver)`,
    );
  }
  return { live, driverId };
}

/** The same key answers the first answer (a retried step); else a new step each time. */
function keyOf(given: string | undefined): string {
  return `sandbox:${given ?? newId("step")}`;
}

export type SandboxLineInput = Omit<LineInput, "idempotency_key"> & {
  readonly idempotency_key?: string | undefined;
};

/** spec: shopping 3: the simulated shopper records one line. */
export async function sandboxShoppingLine(
  deps: D,
  business: string,
  at: { reference: string; external_fulfilment_id: string; external_item_id: string },
  input: SandboxLineInput,
): Promise<ShoppingOrderLive> {
  const { driverId } = await simulatedShopper(deps, business, at.reference);
  await recordShoppingLine(deps, driverId, at, {
    ...input,
    idempotency_key: keyOf(input.idempotency_key),
  });
  return await shoppingOrderOf(deps, business, at.reference);
}

/** spec: shopping 3: the simulated shopper collects a store (amount and receipt optional). */
export async function sandboxCollectStore(
  deps: D,
  business: string,
  at: { reference: string; external_fulfilment_id: string },
  input: {
    readonly idempotency_key?: string | undefined;
    readonly collected_amount?: number | string | undefined;
    readonly receipt_photo?: EvidenceUpload | undefined;
  },
): Promise<ShoppingOrderLive> {
  const { live, driverId } = await simulatedShopper(deps, business, at.reference);
  const store = live.stores.find((s) =>
    String(s.external_fulfilment_id) === at.external_fulfilment_id
  );
  const amount = input.collected_amount ?? tillAmountOf(store?.lines ?? [], live.order.currency);
  await collectShoppingStore(deps, driverId, at, {
    idempotency_key: keyOf(input.idempotency_key),
    collected_amount: amount,
    receipt_photo: input.receipt_photo ?? {
      name: "sandbox_receipt.png",
      content_type: "image/png",
      bytes: SIMULATED_PNG,
    },
  });
  return await shoppingOrderOf(deps, business, at.reference);
}

/**
 * What the lines bought cost at the till, as the amount of a collection that gives none; lines
 * worth more than an amount can state are refused 422 naming collected_amount (the amount then
 * has to be sent, and is bounded as any), never answered 500.
 */
function tillAmountOf(lines: Parameters<typeof tillAmountMinor>[0], currency: string): string {
  try {
    return formatMinor(tillAmountMinor(lines), currency);
  } catch (e) {
    if (!(e instanceof AmountOutOfRange)) throw e;
    throw new Refused(invalidFields([{
      path: "collected_amount",
      message: "the lines bought cost more than an amount can state: send collected_amount",
    }]));
  }
}

/** spec: shopping 3: the simulated shopper finds a store unavailable. */
export async function sandboxStoreUnavailable(
  deps: D,
  business: string,
  at: { reference: string; external_fulfilment_id: string },
  input: { readonly idempotency_key?: string | undefined },
): Promise<ShoppingOrderLive> {
  const { driverId } = await simulatedShopper(deps, business, at.reference);
  await markShoppingStoreUnavailable(deps, driverId, at, {
    idempotency_key: keyOf(input.idempotency_key),
  });
  return await shoppingOrderOf(deps, business, at.reference);
}

/**
 * spec: shopping 3 "no answer in time": the line's decision window closes now, as its timer
 * closes it: unavailable, decided_by preference, refunded.
 */
export async function sandboxCloseDecisionWindow(
  deps: D,
  business: string,
  at: { reference: string; external_item_id: string },
): Promise<ShoppingOrderLive> {
  refuseUnlessSandbox(deps.name, ENDPOINT);
  const live = await shoppingOrderOf(deps, business, at.reference);
  const store = live.stores.find((s) => lineOf(s, at.external_item_id) !== undefined);
  if (!store) {
    refuse("not_found", `no item ${at.external_item_id} in shopping order ${at.reference}`);
  }
  orRefuse(
    await deps.runtime.ask(shoppingStoreActor, business, store.store_id, {
      kind: "close_window",
      external_item_id: at.external_item_id,
    }, { requestId: deps.requestId }),
  );
  return await shoppingOrderOf(deps, business, at.reference);
}
