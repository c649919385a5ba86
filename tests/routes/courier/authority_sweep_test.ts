/**
 * Authority sweep, walked from the OpenAPI document so an endpoint added tomorrow is covered the
 * day it is added (courier 1.5, 4, 5):
 * - another courier's identifiers, on every business and driver endpoint with a path identifier,
 *   answer as identifiers nobody holds (404) and change nothing;
 * - a driver reaches only the runs assigned to them (courier 4.5);
 * - every endpoint that names a scope refuses a credential holding every scope but that one with
 *   403 scope_denied naming it, whatever role or scopes the body claims (courier 1.5, 5);
 * - the courier's own key with no stored scopes never approves, overrides or administers billing
 *   (courier 5 "Who gets which scopes" rule 1).
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import {
  bookShipment,
  clientKey,
  grantScopes,
  HOURS,
  newClient,
  newCourier,
  newDriver,
  topUp,
} from "../../helpers/courier.ts";
import { COURIER_SCOPES } from "../../../src/platform/rules/scopes.ts";
import { encodeCursor } from "../../../src/http/cursor.ts";
import {
  expand,
  idsIn,
  NOBODYS,
  NOT_RESOURCES,
  operations,
  ownedByA,
  ownerOf,
  POOL_DRIVER_PATH,
  send,
  shape,
  snapshotOfA,
} from "./authority_fixtures.ts";

Deno.test("authority sweep: another courier's identifiers answer as ids nobody holds on every business and driver endpoint, and change nothing", () =>
  withTestEnv(async (t) => {
    const a = await newCourier(t);
    const b = await newCourier(t);
    // B holds every scope: only the tenant can refuse it.
    await grantScopes(
      t,
      b,
      ...COURIER_SCOPES.filter((s) =>
        !["billing:administer", "billing:view-own", "runs:override"].includes(s)
      ),
    );
    // Shopping 7: B may use shopping fulfilment, so only the tenant can refuse it (404).
    await t.call("PATCH", `/operator/businesses/${b.business.id}`, {
      operator: true,
      body: { shopping_fulfilment_enabled: true },
    });
    const client = await newClient(t, a);
    const { ids } = await ownedByA(t, a, client);
    const bDriver = await newDriver(t, b.business.id);
    // Endpoints for a signed-in admin refuse any key: B's owner calls them.
    const bOwner = await ownerOf(t, b);
    const before = await snapshotOfA(t, a, ids);
    const ops = (await operations(t)).filter((o) =>
      (o.path.startsWith("/business/") ||
        (o.path.startsWith("/driver/") && !POOL_DRIVER_PATH.test(o.path))) &&
      /\{\w+\}/.test(o.path.replace(/\{(\w+)\}/g, (m, n) => (n in o.enums ? "" : m))) &&
      !NOT_RESOURCES.includes(o.path)
    );
    assert.ok(ops.length >= 30, `endpoints with identifiers: ${ops.length}`);
    const failures: string[] = [];
    for (const op of ops) {
      const theirs = expand(op, ids);
      const nobodys = expand(op, { ...NOBODYS, ...pickFixed(ids) });
      for (let i = 0; i < theirs.length; i++) {
        const as = op.path.startsWith("/driver/")
          ? { bearer: bDriver.token }
          : { key: op.forbidden.includes("`signed_in_admin_only`") ? bOwner : b.business.api_key };
        const got = await send(t, op.method, theirs[i]!, as);
        const none = await send(t, op.method, nobodys[i]!, as);
        const label = `${op.method} ${theirs[i]}`;
        if (got.status < 300) {
          failures.push(`${label}: ${got.status} ${JSON.stringify(got.body).slice(0, 200)}`);
          continue;
        }
        const g = shape(got, idsIn(theirs[i]!, ids));
        const n = shape(none, idsIn(nobodys[i]!, NOBODYS));
        // spec: courier 1.1: another tenant's resource answers 404, as one nobody holds.
        if (g.status !== 404 && op.path !== "/business/courier/billing/evidence/{sha256}") {
          // Always refused routes (editing a published card) refuse whoever asks.
          if (!(g.status === 409 && n.status === 409)) {
            failures.push(`${label}: ${g.status} ${g.code} ${g.message}`);
            continue;
          }
        }
        if (JSON.stringify(g) !== JSON.stringify(n)) {
          failures.push(
            `${label}: ${JSON.stringify(g)} differs from nobody's ${JSON.stringify(n)}`,
          );
        }
      }
    }
    assert.deepEqual(failures, [], failures.join("\n"));
    await t.settle();
    assert.deepEqual(await snapshotOfA(t, a, ids), before, "B's calls changed A's things");
  }));

/** Parameters that are no resource of A's (a version number) keep their value. */
function pickFixed(ids: Record<string, string>): Record<string, string> {
  return { version: ids.version! };
}

Deno.test("authority sweep: a driver reaches only runs assigned to them, through every driver endpoint", () =>
  withTestEnv(async (t) => {
    const a = await newCourier(t);
    const client = await newClient(t, a);
    const { ids } = await ownedByA(t, a, client);
    const stranger = await newDriver(t, a.business.id);
    // The courier's run drivers (POOL_DRIVER_PATH: another credential, swept elsewhere).
    const ops = (await operations(t)).filter((o) =>
      o.path.startsWith("/driver/") && !POOL_DRIVER_PATH.test(o.path)
    );
    assert.ok(ops.length >= 6, `driver endpoints: ${ops.length}`);
    const failures: string[] = [];
    for (const op of ops) {
      for (const path of expand(op, ids)) {
        const r = await send(t, op.method, path, { bearer: stranger.token });
        if (path === "/driver/network-runs") {
          if (r.status !== 200 || JSON.stringify(r.body).includes(ids.run!)) {
            failures.push(`GET ${path}: lists a run not assigned: ${JSON.stringify(r.body)}`);
          }
          continue;
        }
        // spec: courier 4.5: limited to runs assigned to that driver; others do not exist.
        if (r.status !== 404) {
          failures.push(
            `${op.method} ${path}: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`,
          );
        }
      }
    }
    assert.deepEqual(failures, [], failures.join("\n"));
  }));

Deno.test("authority sweep: another courier's identifiers in a body or query find nothing, change nothing, and lists never show its rows", () =>
  withTestEnv(async (t) => {
    const a = await newCourier(t);
    const b = await newCourier(t);
    await grantScopes(t, b, "customs:approve", "claims:approve", "shipments:create");
    const aClient = await newClient(t, a);
    const { driver: aDriver, ids } = await ownedByA(t, a, aClient);
    const aCalendar = (await t.call("GET", "/business/courier/calendars", {
      key: a.business.api_key,
    })).body.data[0].id as string;
    const bClient = await newClient(t, b);
    await topUp(t, b, bClient, "500");
    const bShipment = await bookShipment(t, bClient);
    const key = b.business.api_key;
    const bRun = await t.call("POST", "/business/network-runs", {
      key,
      body: {
        facility_id: "GBE-HUB",
        kind: "linehaul",
        countries: ["BW"],
        capacity: { kg: 100, m3: 2, pieces: 10, cold_slots: 0 },
      },
    });
    assert.equal(bRun.status, 201, JSON.stringify(bRun.body));
    const run = bRun.body.data.id as string;
    const stop = await t.call("POST", `/business/network-runs/${run}/stops`, {
      key,
      body: { kind: "deliver", waybill: bShipment.waybill },
    });
    assert.equal(stop.status, 201, JSON.stringify(stop.body));
    const before = await snapshotOfA(t, a, ids);
    const aPreview = await t.call("GET", `/business/courier/billing/events`, {
      key: a.business.api_key,
    });

    // spec: courier 1.1: another courier's things named in a body do not exist for the caller.
    const refused: [string, string, unknown, number][] = [
      ["POST", "/business/courier/claims", {
        waybill: ids.waybill,
        kind: "damage",
        amount: 10,
        description: "box crushed",
      }, 404],
      ["POST", "/business/shipments", {
        sender_name: "S",
        sender_address: "Plot 1, Gaborone",
        recipient_name: "R",
        recipient_phone: "+26771234567",
        recipient_address: "Plot 2, Gaborone",
        parcels: [{ weight_kg: 1, length_cm: 10, width_cm: 10, height_cm: 10 }],
        contents: "Books",
        from_country: "BW",
        to_country: "BW",
        courier_client_id: aClient.id,
        service_level: "express",
      }, 404],
      [
        "POST",
        `/business/network-runs/${run}/stops`,
        { kind: "deliver", waybill: ids.waybill },
        404,
      ],
      ["POST", `/business/network-runs/${run}/stops`, {
        kind: "collect",
        work_order: {
          sender: "S",
          recipient: "R",
          courier_client_id: aClient.id,
          reserved: { kg: 1, m3: 0.1, pieces: 1, cold_slots: 0 },
        },
      }, 422],
      ["POST", `/business/network-runs/${run}/driver`, { driver_id: aDriver.id }, 422],
      ["POST", "/business/network-runs", {
        facility_id: "GBE-HUB",
        kind: "linehaul",
        countries: ["BW"],
        capacity: { kg: 100, m3: 2, pieces: 10, cold_slots: 0 },
        driver_id: aDriver.id,
      }, 422],
      ["POST", `/business/network-runs/${run}/transfer`, {
        waybills: [bShipment.waybill],
        to_run: ids.run,
      }, 404],
      ["PATCH", `/business/courier/clients/${bClient.id}`, { rate_card_id: a.rateCardId }, 422],
      ["POST", "/business/courier/service-levels", {
        code: "sneaky",
        name: "Sneaky",
        transit_days: 1,
        cut_off: "14:00",
        calendar_id: aCalendar,
        ...HOURS,
      }, 422],
    ];
    const failures: string[] = [];
    for (const [method, path, body, status] of refused) {
      const r = await t.call(method, path, { key, body });
      if (r.status !== status) {
        failures.push(`${method} ${path}: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
      }
    }
    const created = await t.call("POST", "/business/courier/clients", {
      key,
      body: {
        name: "Sneaky",
        code: "SNEAKY",
        email: "sneaky@example.com",
        settlement_mode: "prepaid",
        billing_currency: "BWP",
        rate_card_id: a.rateCardId,
      },
    });
    if (created.status < 300 || created.status >= 500) {
      failures.push(`POST /business/courier/clients with A's card: ${created.status}`);
    }

    // Lists and searches, with A's identifiers as filters, show none of A's rows.
    await t.settle();
    const lists = [
      `/business/courier/shipments?q=${ids.waybill}`,
      `/business/courier/shipments?q=A-ORDER-1`,
      `/business/courier/operations?q=${ids.waybill}`,
      `/business/courier/operations?client_id=${aClient.id}&include_closed=1`,
      `/business/courier/operations`,
      `/business/courier/operations/report`,
      `/business/courier/claims?client_id=${aClient.id}`,
      `/business/courier/claims?waybill=${ids.waybill}`,
      `/business/courier/claims`,
      `/business/courier/alerts`,
      `/business/courier/billing/events?client_id=${aClient.id}`,
      `/business/courier/billing/events`,
      `/business/courier/billing/export?client_id=${aClient.id}`,
      `/business/courier/billing/export`,
      `/business/courier/rate-cards`,
      `/business/courier/calendars`,
      `/business/courier/service-levels`,
      `/business/courier/facilities`,
      `/business/compliance-checklists`,
      `/business/courier/operations/views`,
      `/business/courier/clients/${aClient.id}/stores`,
      `/driver/network-runs`,
      // Cursors made of A's rows only say where a page starts: still B's rows only.
      `/business/courier/claims?cursor=${
        encodeCursor(Number.MAX_SAFE_INTEGER, ids["/business/courier/claims/{id}:id"]!)
      }`,
      `/business/courier/alerts?cursor=${
        encodeCursor(Number.MAX_SAFE_INTEGER, ids["/business/courier/alerts/{id}:id"]!)
      }`,
      `/business/courier/billing/events?cursor=${Number.MAX_SAFE_INTEGER}|${ids.event_id}`,
      `/business/courier/shipments?q=${ids.waybill}&cursor=${
        encodeCursor(Number.MAX_SAFE_INTEGER, ids.waybill!)
      }`,
    ];
    const aIds = [
      ...Object.values(ids).filter((v) => v.length > 6),
      aClient.id,
      a.rateCardId,
      aCalendar,
      "A-ORDER-1",
      aDriver.id,
    ];
    const bDriver = await newDriver(t, b.business.id);
    for (const path of lists) {
      const as = path.startsWith("/driver/") ? { bearer: bDriver.token } : { key };
      const r = await send(t, "GET", path, as);
      // Filtering by another courier's client answers as an unknown client does (404).
      if (r.status !== 200 && r.status !== 404) {
        failures.push(`GET ${path}: ${r.status} ${JSON.stringify(r.body)}`);
      }
      // The rows (a list's meta echoes the filters asked: no row of A's).
      const text = typeof r.body === "string" ? r.body : JSON.stringify(r.body?.data) ?? "";
      for (const id of aIds) {
        if (text.includes(id)) failures.push(`GET ${path} shows courier A's ${id}`);
      }
    }
    const view = await t.call("GET", "/business/courier/operations?view=a-view", { key });
    if (view.status !== 404) failures.push(`A's saved view: ${view.status}`);
    // A POST export naming A's client marks none of A's entries.
    const exported = await t.app.request("/api/business/courier/billing/export", {
      method: "POST",
      headers: { "X-Business-API-Key": key, "Content-Type": "application/json" },
      body: JSON.stringify({ client_id: aClient.id }),
    });
    const file = await exported.text();
    for (const id of aIds) if (file.includes(id)) failures.push(`POST export shows A's ${id}`);
    // Courier B's client names courier A's paper and stores: none exist for it (courier 4.6).
    for (
      const path of [
        `/client/shipments/${ids.waybill}`,
        `/client/shipments/${ids.waybill}/label`,
        `/client/shipments/${ids.waybill}/waybill`,
        `/client/shipments/${ids.waybill}/packing-slip`,
      ]
    ) {
      const r = await t.app.request(`/api${path}`, { headers: clientKey(bClient) });
      await r.body?.cancel();
      if (r.status !== 404) failures.push(`B's client: GET ${path}: ${r.status}`);
    }
    const packet = await t.call("POST", `/client/stores/${ids.store}/packets/stock`, {
      headers: clientKey(bClient),
      body: { packet_code: "PKT-B-1" },
    });
    if (packet.status !== 404) failures.push(`B's client stocks A's store: ${packet.status}`);
    assert.deepEqual(failures, [], failures.join("\n"));
    await t.settle();
    assert.deepEqual(await snapshotOfA(t, a, ids), before, "B's calls changed A's things");
    const aAfter = await t.call("GET", `/business/courier/billing/events`, {
      key: a.business.api_key,
    });
    assert.deepEqual(aAfter.body, aPreview.body);
  }));
