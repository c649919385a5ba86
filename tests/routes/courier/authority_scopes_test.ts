/** Authority sweep of scopes, walked from the OpenAPI document (courier 1.5, 5): every endpoint that names a scope refuses a credential holding every scope but that one with 403 scope_denied naming it, and the courier's own key with no stored scopes, or a coordinator, never approves, overrides or administers billing (courier 5 "Who gets which scopes" rule 1). */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import {
  bookWaybill,
  courierWithScopes,
  grantScopes,
  newClient,
  newCourier,
  topUp,
} from "../../helpers/courier.ts";
import { type Shipment, shipmentActor } from "../../../actors/courier/shipment/mod.ts";
import { COURIER_SCOPES, PARTNER_SCOPES } from "../../../src/platform/rules/scopes.ts";
import { CROSS_BORDER } from "./customs_fixtures.ts";
import {
  BODY,
  coordinatorOf,
  expand,
  Operation,
  operations,
  ownedByA,
  send,
} from "./authority_fixtures.ts";

/** The single scope a route's document names, if it names exactly one. */
function namedScope(op: Operation): string | null {
  const m = op.forbidden.match(/`scope_denied`: the credential lacks the scope `([a-z:-]+)`/);
  return m ? m[1]! : null;
}

Deno.test("authority sweep: every endpoint naming a scope refuses a partner key holding every other scope, whatever the body claims", () =>
  withTestEnv(async (t) => {
    const a = await newCourier(t);
    const client = await newClient(t, a);
    const { ids } = await ownedByA(t, a, client);
    // The live board is a WebSocket: its credential and scope are checked on the socket
    // (tests/routes/courier/board_test.ts), after the upgrade this plain request lacks.
    const ops = (await operations(t)).filter((o) =>
      namedScope(o) !== null && o.path !== "/business/courier/operations/live"
    );
    assert.ok(ops.length >= 40, `endpoints naming a scope: ${ops.length}`);
    const keys = new Map<string, string>();
    // Every scope an endpoint names, the Business API's partner scopes among them.
    const scopes = [...new Set([...COURIER_SCOPES, ...PARTNER_SCOPES])];
    for (const scope of scopes) {
      const issued = await t.call("POST", `/operator/businesses/${a.business.id}/partner-keys`, {
        operator: true,
        // Administering billing implies reading it: a key without the reading has neither.
        body: {
          partner: `all but ${scope}`,
          scopes: scopes.filter((s) =>
            s !== scope && !(scope === "billing:view-own" && s === "billing:administer")
          ),
        },
      });
      assert.equal(issued.status, 201, JSON.stringify(issued.body));
      keys.set(scope, issued.body.data.key ?? issued.body.data.api_key);
    }
    const failures: string[] = [];
    for (const op of ops) {
      const scope = namedScope(op)!;
      for (const path of expand(op, ids)) {
        const r = await send(t, op.method, path, { key: keys.get(scope)! });
        // spec: courier 5: 403 scope_denied, the message naming the scope.
        if (
          r.status !== 403 || r.body.code !== "scope_denied" ||
          !String(r.body.message).includes(scope)
        ) {
          failures.push(
            `${op.method} ${path} without ${scope}: ${r.status} ${
              JSON.stringify(r.body).slice(0, 200)
            }`,
          );
        }
      }
    }
    assert.deepEqual(failures, [], failures.join("\n"));
    await t.settle();
  }));

/** Scopes courier 5 rule 1 never gives the courier's own key unless the operator stored them. */
const NEVER_BY_DEFAULT = [
  "customs:approve",
  "runs:override",
  "claims:approve",
  "billing:administer",
];

Deno.test("authority sweep: the courier's own key with no stored scopes, and a coordinator, never approve, override or administer billing", () =>
  withTestEnv(async (t) => {
    const a = await newCourier(t);
    const client = await newClient(t, a);
    const { ids } = await ownedByA(t, a, client);
    const coordinator = await coordinatorOf(t, a);
    // The same courier, its key's stored scopes taken away.
    const cleared = await t.call("PATCH", `/operator/businesses/${a.business.id}`, {
      operator: true,
      body: { api_key_scopes: [] },
    });
    assert.equal(cleared.status, 200, JSON.stringify(cleared.body));
    const ops = (await operations(t)).filter((o) => NEVER_BY_DEFAULT.includes(namedScope(o) ?? ""));
    assert.ok(ops.length >= 15, `endpoints needing what rule 1 never gives: ${ops.length}`);
    // spec: courier 5 rules 1 and 2: create, view, submit documents, operate; nothing more.
    const failures: string[] = [];
    for (const [who, key] of [["api key", a.business.api_key], ["coordinator", coordinator]]) {
      for (const op of ops) {
        for (const path of expand(op, ids)) {
          const r = await send(t, op.method, path, { key: key! });
          if (r.status !== 403 || r.body.code !== "scope_denied") {
            failures.push(
              `${who}: ${op.method} ${path}: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`,
            );
          }
        }
      }
      // Actions whose scope depends on what they do (courier 4.5).
      const perAction: [string, unknown, string][] = [
        [`/business/customs/${ids.crossing}/move`, {
          action: "clear",
          customs_reference: "C1",
        }, "customs:approve"],
        [`/business/customs/${ids.crossing}/move`, {
          action: "release",
          evidence: "e.jpg",
        }, "customs:approve"],
        [`/business/customs/${ids.crossing}/move`, {
          action: "refuse",
          reason: "no",
        }, "customs:approve"],
        [`/business/network-runs/${ids.run}/waiting`, {
          stop_id: ids.stop,
          minutes: 30,
        }, "billing:administer"],
        [`/business/shipments/${ids.reference}/lab/approve`, {
          decision: "accept",
          reason: "ok",
        }, "runs:override"],
        [`/business/courier/claims/${ids["/business/courier/claims/{id}:id"]}/decide`, {
          outcome: "approved",
        }, "claims:approve"],
      ];
      for (const [path, body, scope] of perAction) {
        const r = await t.call("POST", path, { key: key!, body });
        if (
          r.status !== 403 || r.body.code !== "scope_denied" || !r.body.message.includes(scope)
        ) {
          failures.push(
            `${who}: POST ${path} ${JSON.stringify(body)}: ${r.status} ${JSON.stringify(r.body)}`,
          );
        }
      }
      // What the rules give still works: reading its own board.
      const board = await t.call("GET", "/business/courier/operations", { key: key! });
      assert.equal(board.status, 200, `${who}: ${JSON.stringify(board.body)}`);
    }
    assert.deepEqual(failures, [], failures.join("\n"));
  }));

Deno.test("authority sweep: a courier with no stored scopes is refused the same way by a fresh key", () =>
  withTestEnv(async (t) => {
    const plain = await courierWithScopes(t, []);
    for (
      const [method, path] of [
        ["POST", "/business/courier/rate-cards"],
        ["POST", "/business/courier/calendars"],
        ["POST", "/business/compliance-checklists"],
        ["POST", "/business/courier/clients"],
        ["POST", "/business/courier/billing/export"],
      ]
    ) {
      const r = await t.call(method!, path!, { key: plain.api_key, body: BODY });
      assert.equal(r.status, 403, `${path}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, "scope_denied", path);
    }
  }));

Deno.test("authority: a scan records customs' clearance or release only with customs:approve, papers supplied only with customs:submit-documents (courier 5)", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "500");
    // Cross-border: its crossing opens at booking, so a customs outcome may be scanned on it.
    const waybill = await bookWaybill(t, client, CROSS_BORDER);
    const scan = (key: string, event: string) =>
      t.call("POST", `/business/courier/shipments/${waybill}/scans`, { key, body: { event } });
    // The courier's own key operates runs, yet never approves at customs by default.
    for (const event of ["cleared", "released"]) {
      const r = await scan(courier.business.api_key, event);
      assert.equal(r.status, 403, `${event}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, "scope_denied");
      assert.match(r.body.message, /customs:approve/);
    }
    const issued = await t.call(
      "POST",
      `/operator/businesses/${courier.business.id}/partner-keys`,
      {
        operator: true,
        body: { partner: "runs only", scopes: ["runs:operate"] },
      },
    );
    assert.equal(issued.status, 201, JSON.stringify(issued.body));
    const runsOnly = issued.body.data.key as string;
    const supplied = await scan(runsOnly, "documents_supplied");
    assert.equal(supplied.status, 403, JSON.stringify(supplied.body));
    assert.match(supplied.body.message, /customs:submit-documents/);
    // Nothing was recorded: the shipment is still booked, with no line in its trail.
    const got = await t.env.runtime.read(shipmentActor, courier.business.id, waybill, {
      kind: "get",
    });
    assert.ok(got.ok);
    assert.equal((got.reply as Shipment).status, "booked");
    assert.equal((got.reply as Shipment).trail_total, 0);
    assert.equal((await scan(runsOnly, "collected")).status, 201);
    await grantScopes(t, courier, "customs:approve");
    assert.equal((await scan(courier.business.api_key, "cleared")).status, 201);
  }));
