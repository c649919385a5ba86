/**
 * `q` on the shipment search and the operations board (courier 4.1, 4.4, issue 42): a prefix of
 * the waybill, an external reference, the consignee's or the client's name finds the shipment in
 * any case; another courier's `q` finds nothing of it.
 */
import assert from "node:assert/strict";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import {
  bookShipment,
  type Courier,
  DOMESTIC,
  newClient,
  newCourier,
  topUp,
} from "../../helpers/courier.ts";

async function found(t: TestEnv, courier: Courier, path: string, q: string): Promise<string[]> {
  const r = await t.call("GET", `${path}?q=${encodeURIComponent(q)}`, {
    key: courier.business.api_key,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data.map((s: { waybill: string }) => s.waybill);
}

Deno.test("search: the board and the shipment search find by prefix of a reference or a name, in any case, within the courier", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const acme = await newClient(t, courier, { name: "Acme Traders" });
    const other = await newClient(t, courier, { name: "Molapo Pharmacy" });
    await topUp(t, courier, acme, "500");
    await topUp(t, courier, other, "500");
    const a = await bookShipment(t, acme, {
      ...DOMESTIC,
      recipient_name: "Thabo Molefe",
      client_order_reference: "ORD-5501",
    });
    const b = await bookShipment(t, other, { ...DOMESTIC, recipient_name: "Neo Kgosi" });
    const waybill: string = a.waybill;
    assert.notEqual(b.waybill, waybill);
    await t.settle();
    for (const path of ["/business/courier/operations", "/business/courier/shipments"]) {
      for (const q of ["thabo", "THABO MOL", "acme", "ord-55", waybill.toLowerCase()]) {
        assert.deepEqual(await found(t, courier, path, q), [waybill], `${path} q=${q}`);
      }
      // A prefix, not a part; a wildcard is a character like any other.
      for (const q of ["molefe", "traders", "%", "_hab", "ORD-5501X"]) {
        assert.deepEqual(await found(t, courier, path, q), [], `${path} q=${q}`);
      }
      assert.deepEqual(await found(t, courier, path, "neo"), [b.waybill], `${path} q=neo`);
    }
    const elsewhere = await newCourier(t);
    for (const path of ["/business/courier/operations", "/business/courier/shipments"]) {
      assert.deepEqual(await found(t, elsewhere, path, "thabo"), [], "another courier's q");
      assert.deepEqual(await found(t, elsewhere, path, waybill), [], "another courier's q");
    }
  }));
