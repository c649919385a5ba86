/**
 * The documented success schemas (RouteSpec.response) of the client API (courier 4.6) against
 * real answers, checked by tests/helpers/documented.ts: sign-in and the account, people and
 * addresses, stores and packets, shipments (list, detail, bulk, CSV) and the collection manifest.
 */
import assert from "node:assert/strict";
import { stringify } from "csv-stringify/sync";
import {
  ClientApiKeyAnswer,
  ClientMeAnswer,
  ClientSessionAnswer,
  ClientWebhookAnswer,
  SignedOutAnswer,
} from "../../routes/courier/answers/client_api.ts";
import { ManifestAnswer } from "../../routes/courier/answers/client_manifest.ts";
import {
  ClientAddressAnswer,
  ClientUserAnswer,
  InvitedUserAnswer,
} from "../../routes/courier/answers/client_people.ts";
import {
  BulkBookedAnswer,
  ClientShipmentAnswer,
  ClientShipmentDetailAnswer,
  CsvBookedAnswer,
} from "../../routes/courier/answers/client_shipments.ts";
import {
  PacketMovedAnswer,
  StoreAnswer,
  StoreListedAnswer,
} from "../../routes/courier/answers/client_stores.ts";
import { z } from "../../src/http/route.ts";
import { documented, listed, successes } from "../helpers/documented.ts";
import { type Answer, type TestEnv, withTestEnv } from "../helpers/test_env.ts";
import {
  type Client,
  clientKey,
  type Courier,
  DOMESTIC,
  newClient,
  newCourier,
  topUp,
} from "../helpers/courier.ts";

const NEW_PASSWORD = "a-new-password-1";

function session(token: string): Record<string, string> {
  return { "X-Client-API-Key": token };
}

Deno.test("client answers: sign-in, the account, the key, the webhook, users and addresses", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);

    const login = await t.call("POST", "/client/login", { body: client.user });
    const sent = documented(ClientSessionAnswer, login, 200, "login");
    // The sent password must be changed first; the change answers a new session.
    const changed = await t.call("POST", "/client/password", {
      headers: session(sent.token),
      body: { current_password: client.user.password, new_password: NEW_PASSWORD },
    });
    const token = documented(ClientSessionAnswer, changed, 200, "password").token as string;

    // Signed in, `user` is the person; with the API key it is null.
    const me = documented(
      ClientMeAnswer,
      await t.call("GET", "/client/me", { headers: session(token) }),
      200,
      "me (session)",
    );
    assert.equal(me.user.email, client.user.email);
    const asKey = documented(
      ClientMeAnswer,
      await t.call("GET", "/client/me", { headers: clientKey(client) }),
      200,
      "me (API key)",
    );
    assert.equal(asKey.user, null);

    const rotated = await t.call("POST", "/client/api-key", { headers: clientKey(client) });
    const key = documented(ClientApiKeyAnswer, rotated, 201, "api-key").api_key as string;
    const headers = session(key);
    const hook = await t.call("POST", "/client/webhook", {
      headers,
      body: { url: "https://example.com/hooks" },
    });
    documented(ClientWebhookAnswer, hook, 201, "webhook");

    const invited = await t.call("POST", "/client/users", {
      headers,
      body: { email: "dispatch@example.com", name: "Dispatch desk", role: "client_user" },
    });
    documented(InvitedUserAnswer, invited, 201, "invite");
    const users = documented(
      z.array(ClientUserAnswer),
      await t.call("GET", "/client/users", { headers }),
      200,
      "users",
    );
    assert.equal(users.length, 2);

    // An address with everything, one with no phone or position, then the first saved again.
    const full = {
      label: "Warehouse",
      name: "Molapo Pharmacy",
      address: "Plot 123, Main Mall, Gaborone",
      phone: "+26771234567",
      country: "BW",
      lat: -24.6545,
      lng: 25.9086,
    };
    const saved = await t.call("POST", "/client/addresses", { headers, body: full });
    documented(ClientAddressAnswer, saved, 201, "address (new)");
    const bare = await t.call("POST", "/client/addresses", {
      headers,
      body: { label: "Shop", name: "Shop", address: "Plot 9, Gaborone", country: "BW" },
    });
    assert.equal(documented(ClientAddressAnswer, bare, 201, "address (bare)").phone, null);
    const again = await t.call("POST", "/client/addresses", {
      headers,
      body: { ...full, name: "Molapo Pharmacy Ltd" },
    });
    documented(ClientAddressAnswer, again, 200, "address (updated)");
    await t.settle(); // the list reads the Postgres projection
    const addresses = documented(
      z.array(ClientAddressAnswer),
      await t.call("GET", "/client/addresses", { headers }),
      200,
      "addresses",
    );
    assert.equal(addresses.length, 2);

    const out = await t.call("POST", "/client/logout", { headers: session(token) });
    documented(SignedOutAnswer, out, 200, "logout");

    // The OpenAPI document shows the status each of these answers with (refusals apart).
    const { body: doc } = await t.call("GET", "/api-docs/openapi.json");
    for (const path of ["/client/api-key", "/client/webhook"]) {
      assert.deepEqual(successes(doc.paths[path].post.responses), ["201", "default"]);
    }
    // A new label answers 201, an update of a saved one 200: both shown.
    const saves = doc.paths["/client/addresses"].post.responses;
    assert.deepEqual(successes(saves), ["200", "201", "default"], "the 200 of an update shown");
  }));

Deno.test("client answers: stores and packets", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    const register = (code: string) =>
      t.call("POST", `/business/courier/clients/${client.id}/stores`, {
        key: courier.business.api_key,
        body: { code, name: "Main Mall store", address: "Plot 123, Main Mall, Gaborone" },
      });
    const a = documented(StoreAnswer, await register("GAB-01"), 201, "store").id as string;
    documented(StoreAnswer, await register("GAB-01"), 200, "store again");
    const { body: doc } = await t.call("GET", "/api-docs/openapi.json");
    const responses = doc.paths["/business/courier/clients/{client}/stores"].post.responses;
    assert.deepEqual(successes(responses), ["200", "201", "default"], "the replay shown");
    const b = documented(StoreAnswer, await register("GAB-02"), 201, "second store").id as string;
    const act = (store: string, action: string, body: Record<string, unknown>) =>
      t.call("POST", `/client/stores/${store}/packets/${action}`, {
        headers: clientKey(client),
        body,
      });

    const stocked = await act(a, "stock", { packet_code: "PK-1" });
    assert.equal(documented(PacketMovedAnswer, stocked, 201, "stock").activation, null);
    // Stock of one new packet answers 201, every other move 200: the document shows both.
    const moves = doc.paths["/client/stores/{store}/packets/{action}"].post.responses;
    assert.deepEqual(successes(moves), ["200", "201", "default"], "the 201 of stock shown");
    const steps: [string, Record<string, unknown>][] = [
      ["sell", { reference: "TILL-9" }],
      ["activate", {
        sender_name: "Neo Kgosi",
        recipient_name: "Mpho Dube",
        recipient_phone: "+26772345678",
        recipient_address: "Plot 44, Francistown",
      }],
      ["accept", { weight_kg: 1.2, note: "packed" }],
      ["sell", {}],
    ];
    for (const [action, body] of steps) {
      const r = await act(a, action, { packet_code: "PK-1", ...body });
      documented(PacketMovedAnswer, r, 200, action);
    }
    // Several at once: one stocked, one that is another store's packet.
    const several = await act(b, "stock", { packet_codes: ["PK-2", "PK-1"] });
    const { results } = documented(PacketMovedAnswer, several, 200, "stock several");
    assert.equal(results[0].state, "in_stock");
    assert.equal(results[1].error.code, "packet_in_another_store");

    await t.settle();
    const mine = listed(
      StoreListedAnswer,
      await t.call("GET", "/client/stores", { headers: clientKey(client) }),
      "client stores",
    );
    assert.equal(mine[0].packets.accepted, 1);
    listed(
      StoreListedAnswer,
      await t.call("GET", `/business/courier/clients/${client.id}/stores`, {
        key: courier.business.api_key,
      }),
      "courier's list of the client's stores",
    );
  }));

/** One CSV line's fields for DOMESTIC, express. */
function line(extra: Record<string, unknown> = {}): Record<string, unknown> {
  const { parcels: [parcel], ...rest } = DOMESTIC;
  return { ...rest, ...parcel, service_level: "express", ...extra };
}

function csvOf(rows: Record<string, unknown>[]): string {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  return stringify([columns, ...rows.map((r) => columns.map((c) => String(r[c] ?? "")))]);
}

async function upload(t: TestEnv, client: Client, csv: string): Promise<Answer> {
  const res = await t.app.request("/api/client/shipments/csv", {
    method: "POST",
    headers: { ...clientKey(client), "Content-Type": "text/csv" },
    body: csv,
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

function scan(t: TestEnv, courier: Courier, waybill: string, body: Record<string, unknown>) {
  return t.call("POST", `/business/courier/shipments/${waybill}/scans`, {
    key: courier.business.api_key,
    body,
  });
}

Deno.test("client answers: shipments booked in bulk and by CSV, the manifest, the list and one shipment", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "2000");
    const headers = clientKey(client);
    const row = { ...DOMESTIC, service_level: "express" };

    // Bulk: booked rows and a refused one; sent again, already_booked; a key reused with other
    // details names the shipment it booked.
    const batch = [
      { ...row, idempotency_key: "row-1" },
      { ...row, recipient_phone: "71234567" },
      {
        ...row,
        parcels: [DOMESTIC.parcels[0], DOMESTIC.parcels[0]],
        client_order_reference: "O-2",
      },
    ];
    const bulk = (shipments: unknown[]) =>
      t.call("POST", "/client/shipments/bulk", {
        headers: { ...headers, "Idempotency-Key": "batch-1" },
        body: { shipments },
      });
    const first = documented(BulkBookedAnswer, await bulk(batch), 200, "bulk");
    assert.deepEqual([first.booked, first.failed], [2, 1]);
    assert.ok(first.results[1].error.errors.length > 0);
    const replay = documented(BulkBookedAnswer, await bulk(batch), 200, "bulk again");
    assert.equal(replay.results[0].already_booked, true);
    const reused = documented(
      BulkBookedAnswer,
      await bulk([{ ...row, idempotency_key: "row-1", contents: "Syringes" }]),
      200,
      "bulk with a key reused",
    );
    assert.equal(reused.results[0].error.code, "idempotency_key_reused");
    assert.equal(reused.results[0].error.waybill, first.results[0].waybill);

    // CSV: a booked line, a line refused on reading, one refused at booking, an unknown column.
    const csv = csvOf([
      line({ idempotency_key: "line-1", notes: "ignored" }),
      line({ weight_kg: 0 }),
      line({ idempotency_key: "row-1", contents: "Vaccines" }),
    ]);
    const byCsv = documented(CsvBookedAnswer, await upload(t, client, csv), 200, "csv");
    assert.deepEqual(byCsv.ignored_columns, ["notes"]);
    assert.equal(byCsv.results[2].errors[0].column, null);
    documented(CsvBookedAnswer, await upload(t, client, csv), 200, "csv again");

    await t.settle();
    const manifest = documented(
      ManifestAnswer,
      await t.call("GET", "/client/collection-manifest", { headers }),
      200,
      "collection manifest",
    );
    assert.equal(manifest.totals.shipments, 3);

    // One shipment as booked, part-way with custody split, and delivered.
    const waybill = first.results[2].waybill as string;
    const detail = async (what: string) =>
      documented(
        ClientShipmentDetailAnswer,
        await t.call("GET", `/client/shipments/${waybill}`, { headers }),
        200,
        what,
      );
    const booked = await detail("detail (booked)");
    assert.deepEqual([booked.pod, booked.pieces[0].last_scan_at], [null, null]);
    t.clock.advanceBy(3_600_000);
    assert.equal(
      (await scan(t, courier, waybill, { event: "collected", holder: "Thabo" })).status,
      201,
    );
    const depot = await scan(t, courier, waybill, {
      event: "received_at_depot",
      facility_id: "GBE-HUB",
      pieces: [`${waybill}-1`],
      note: "INTERNAL-NOTE shelf 4",
    });
    assert.equal(depot.status, 201, JSON.stringify(depot.body));
    const moving = await detail("detail (at the depot)");
    assert.equal(moving.pieces[0].facility, "GBE-HUB");
    assert.equal(moving.timeline.length, 3);
    for (const event of ["out_for_delivery", "delivered"]) {
      const r = await scan(t, courier, waybill, { event, received_by: "Neo Kgosi" });
      assert.equal(r.status, 201, `${event}: ${JSON.stringify(r.body)}`);
    }
    const delivered = await detail("detail (delivered)");
    assert.equal(delivered.pod.received_by, "Neo Kgosi");
    assert.deepEqual([delivered.next_milestone, delivered.next_due_at], [null, null]);
    assert.ok(!JSON.stringify(delivered).includes("INTERNAL-NOTE"));

    await t.settle();
    const rows = listed(
      ClientShipmentAnswer,
      await t.call("GET", "/client/shipments", { headers }),
      "shipments",
    );
    assert.equal(rows.length, 3);
    assert.ok(rows.some((r) => r.delivered_at !== null));
  }));
