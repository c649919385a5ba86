/** The shopper's work driven on the store actors (the seam the driver app's routes ask through). */
import assert from "node:assert/strict";
import { shoppingOrderActor } from "../../../actors/shopping/order.ts";
import { shoppingStoreActor } from "../../../actors/shopping/store.ts";
import { storeEvidence } from "../../../src/courier/flows/evidence.ts";
import type { LineReport } from "../../../src/shopping/rules/shopper.ts";
import type { TestEnv } from "../../helpers/test_env.ts";

/** The store actor ids of an order, in array order. */
export async function storeIdsOf(t: TestEnv, business: string, reference: string) {
  const got = await t.env.runtime.read(shoppingOrderActor, business, reference, { kind: "get" });
  assert.ok(got.ok && got.reply);
  return got.reply.stores.map((s) => s.store_id);
}

export async function recordLine(
  t: TestEnv,
  business: string,
  store: string,
  id: string,
  report: LineReport,
) {
  const r = await t.env.runtime.ask(shoppingStoreActor, business, store, {
    kind: "record_line",
    external_item_id: id,
    report,
    ask_timeout_ms: 5 * 60_000,
  });
  assert.ok(r.ok, JSON.stringify(r));
}

/** Collects the store with its till amount and a receipt photo kept in the evidence store. */
export async function collect(
  t: TestEnv,
  business: string,
  store: string,
  o: { amount_minor: number; photo: Uint8Array },
) {
  const kept = await storeEvidence(t.env.runtime, business, {
    name: "receipt.jpg",
    content_type: "image/jpeg",
    bytes: o.photo,
  }, "drv_test");
  assert.ok(kept.ok);
  const r = await t.env.runtime.ask(shoppingStoreActor, business, store, {
    kind: "collect",
    collected_amount_minor: o.amount_minor,
    receipt_photo: { sha256: kept.value.sha256, content_type: "image/jpeg" },
  });
  assert.ok(r.ok, JSON.stringify(r));
}

/** A link's answer, fetched in process by its path (the test's PUBLIC_URL is not served). */
export async function fetchLink(t: TestEnv, url: string) {
  const u = new URL(url);
  const res = await t.app.request(u.pathname);
  return {
    status: res.status,
    type: res.headers.get("Content-Type"),
    bytes: new Uint8Array(await res.arrayBuffer()),
  };
}
