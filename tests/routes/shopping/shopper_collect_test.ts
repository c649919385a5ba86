/**
 * Shopping 3 on the driver app: a store's collection refused for the store's own state (a line
 * not recorded, one awaiting the customer, nothing found, already finished) keeps nothing of
 * the request, its receipt photo included; the collection that is taken keeps it.
 */
import assert from "node:assert/strict";
import { evidenceFileActor, evidenceFileId } from "../../../actors/courier/evidence_file.ts";
import { sha256Hex } from "../../../src/domain/secrets.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import type { TestEnv } from "../../helpers/test_env.ts";
import { createPoolDriver } from "../../helpers/pool_drivers.ts";
import { acceptAs } from "../../helpers/driver_trips.ts";
import { createOrder, orderBody, shoppingBusiness } from "./shopping_fixtures.ts";

const PNG_HEADER = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** A receipt photo of its own bytes (`n` tells them apart). */
function photo(n: number): Uint8Array<ArrayBuffer> {
  return Uint8Array.from([...PNG_HEADER, ...Array.from({ length: 64 }, (_, i) => (i * n) % 256)]);
}

function collectForm(key: string, bytes: Uint8Array<ArrayBuffer>) {
  const f = new FormData();
  f.set("idempotency_key", key);
  f.set("collected_amount", "20.00");
  f.set("receipt_photo", new File([bytes], "receipt.png", { type: "image/png" }));
  return f;
}

async function kept(t: TestEnv, business: string, bytes: Uint8Array): Promise<boolean> {
  const id = evidenceFileId(business, sha256Hex(bytes));
  const got = await t.env.runtime.read(evidenceFileActor, business, id, { kind: "get" });
  if (!got.ok) assert.equal(got.code, "not_found", JSON.stringify(got));
  return got.ok && got.reply !== null;
}

// Before: the photo was stored before the store refused the collection, so every refused try
// left a file of up to a proof photo's size behind, belonging to no store.
Deno.test("shopper collect: a collection the store refuses keeps no receipt photo; the one taken keeps it", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t);
    const r = await createOrder(t, b.api_key, orderBody("ORD-COL", { stores: 2, lines: 1 }));
    assert.equal(r.status, 201, JSON.stringify(r.body).slice(0, 300));
    const reference = r.body.data.reference as string;
    const driver = await createPoolDriver(t);
    await acceptAs(t, b.id, reference, driver.id);
    const post = (path: string, body: unknown) =>
      t.call("POST", `/driver/shopping/${reference}/stores/${path}`, {
        bearer: driver.token,
        body,
      });
    const pending = await post("F-0/collect", collectForm("c1", photo(3)));
    assert.equal(pending.body.code, "lines_pending", JSON.stringify(pending.body));
    assert.equal(await kept(t, b.id, photo(3)), false, "a refused collection's photo");
    const none = await post("F-0/items/0-0", { idempotency_key: "l0", outcome: "unavailable" });
    assert.equal(none.status, 200, JSON.stringify(none.body));
    const nothing = await post("F-0/collect", collectForm("c2", photo(5)));
    assert.equal(nothing.body.code, "nothing_found", JSON.stringify(nothing.body));
    assert.equal(await kept(t, b.id, photo(5)), false, "a refused collection's photo");
    assert.equal((await post("F-0/unavailable", { idempotency_key: "u0" })).status, 200);
    const finished = await post("F-0/collect", collectForm("c3", photo(7)));
    assert.equal(finished.body.code, "store_finished", JSON.stringify(finished.body));
    assert.equal(await kept(t, b.id, photo(7)), false, "a refused collection's photo");
    const found = await post("F-1/items/1-0", {
      idempotency_key: "l1",
      outcome: "found",
      qty_found: 2,
      unit_price_paid: 10,
    });
    assert.equal(found.status, 200, JSON.stringify(found.body));
    const taken = await post("F-1/collect", collectForm("c4", photo(9)));
    assert.equal(taken.status, 200, JSON.stringify(taken.body));
    assert.equal(taken.body.data.receipt_photo_received, true);
    assert.equal(await kept(t, b.id, photo(9)), true, "the collected store's photo");
  }));
