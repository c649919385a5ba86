/** A client's saved addresses (courier 4.6): kept under a label, listed per client, bounded. */
import assert from "node:assert/strict";
import { courierClientActor } from "../../../actors/courier/courier_client.ts";
import { CLIENT_ADDRESSES_MAX } from "../../../src/limits.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { type Client, clientKey, newClient, newCourier } from "../../helpers/courier.ts";

async function save(t: TestEnv, client: Client, body: Record<string, unknown>) {
  return await t.call("POST", "/client/addresses", { headers: clientKey(client), body });
}

const HOME = {
  label: "Warehouse",
  name: "Molapo Pharmacy",
  address: "Plot 123, Main Mall, Gaborone",
  phone: "+26771234567",
  country: "BW",
  lat: -24.6541,
  lng: 25.9087,
};

Deno.test("client addresses: saved under a label, listed per client, validated", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    const other = await newClient(t, courier);
    const first = await save(t, client, HOME);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(first.body.data.lat, -24.6541);
    const second = await save(t, client, {
      label: "Branch",
      name: "Molapo Branch",
      address: "Shop 4, Francistown",
      country: "BW",
    });
    assert.equal(second.status, 201);
    assert.equal(second.body.data.phone, null);
    const updated = await save(t, client, { ...HOME, address: "Plot 124, Main Mall, Gaborone" });
    assert.equal(updated.status, 200);
    assert.equal(updated.body.data.id, first.body.data.id);
    await save(t, other, { ...HOME, label: "Theirs" });

    const bad = await save(t, client, { ...HOME, label: "Bad", country: "bw", lat: 91 });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.code, "validation_failed");
    assert.deepEqual(bad.body.errors.map((e: { path: string }) => e.path).sort(), [
      "country",
      "lat",
    ]);
    const nowhere = await save(t, client, { ...HOME, label: "Nowhere", country: "ZZ" });
    assert.equal(nowhere.status, 422);
    assert.deepEqual(nowhere.body.errors.map((e: { path: string }) => e.path), ["country"]);
    assert.match(nowhere.body.message, /country: not an ISO 3166-1 alpha-2 country code: ZZ/);
    const half = await save(t, client, { ...HOME, label: "Half", lng: undefined });
    assert.equal(half.status, 422);
    assert.match(half.body.message, /lat and lng go together/);
    const noPhone = await save(t, client, { ...HOME, label: "Phone", phone: "71234567" });
    assert.equal(noPhone.body.errors[0].path, "phone");

    await t.settle();
    const list = await t.call("GET", "/client/addresses", { headers: clientKey(client) });
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.data.map((a: { label: string }) => a.label), [
      "Branch",
      "Warehouse",
    ]);
    assert.equal(list.body.data[1].address, "Plot 124, Main Mall, Gaborone");
    const theirs = await t.call("GET", "/client/addresses", { headers: clientKey(other) });
    assert.deepEqual(theirs.body.data.map((a: { label: string }) => a.label), ["Theirs"]);
  }));

Deno.test("client addresses: a full address book refuses a new label but updates a saved one", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    assert.equal((await save(t, client, HOME)).status, 201);
    // Fill the remaining places directly on the account (as many saves would).
    const fills = [];
    for (let i = 1; i < CLIENT_ADDRESSES_MAX; i++) {
      fills.push(t.env.runtime.ask(courierClientActor, courier.business.id, client.id, {
        kind: "reserve_address",
        address_id: `adr_fill_${i}`,
        by: "test",
      }));
    }
    for (const r of await Promise.all(fills)) assert.ok(r.ok);
    const full = await save(t, client, { ...HOME, label: "One more" });
    assert.equal(full.status, 422);
    assert.equal(full.body.code, "address_book_full");
    assert.match(full.body.message, /500/);
    const update = await save(t, client, { ...HOME, name: "Renamed" });
    assert.equal(update.status, 200);
  }));
