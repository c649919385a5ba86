/**
 * What the customs route tests share: a courier and client ready, a cross-border shipment and its
 * crossing presented as a run's border stop presents it, the courier's moves and papers, and what
 * the shipment, its crossings, the ledger, the alerts and the billing events show.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import type { TestEnv } from "../../helpers/test_env.ts";
import {
  bookWaybill,
  type Client,
  type Courier,
  DOMESTIC,
  grantScopes,
  newClient,
  newCourier,
  topUp,
} from "../../helpers/courier.ts";
import { until } from "../../helpers/receiver.ts";
import { openCrossing } from "../../../src/courier/flows/customs.ts";

/** A shipment from Botswana to South Africa. */
export const CROSS_BORDER = {
  ...DOMESTIC,
  to_country: "ZA",
  recipient_address: "12 Long St, Rustenburg",
};

/** A courier, and a client of it topped up with 2000. */
export async function ready(t: TestEnv): Promise<[Courier, Client]> {
  const courier = await newCourier(t);
  const client = await newClient(t, courier);
  await topUp(t, courier, client, "2000");
  return [courier, client];
}

/** Presents the shipment at Tlokweng, as a run's border stop does; answers the crossing's id. */
export function present(t: TestEnv, courier: Courier, waybill: string, stop = "stop_tlokweng") {
  return openCrossing(t.env.runtime, courier.business.id, {
    waybill,
    country: "BW",
    to_country: "ZA",
    border_post: "Tlokweng",
    run_id: "run_test",
    stop_id: stop,
    by: "driver:test",
  });
}

/**
 * A courier and client ready, a cross-border shipment booked and presented at Tlokweng (its
 * crossing `id`); the courier may approve at customs when `customs`.
 */
export async function presented(t: TestEnv, o: { customs?: boolean } = {}) {
  const [courier, client] = await ready(t);
  if (o.customs) await grantScopes(t, courier, "customs:approve");
  const waybill = await bookWaybill(t, client, CROSS_BORDER);
  const id = await present(t, courier, waybill);
  return { courier, client, waybill, id };
}

/** POSTs a customs move on the crossing, which must answer `status`; answers the body. */
export async function move(
  t: TestEnv,
  courier: Courier,
  crossing: string,
  body: Record<string, unknown>,
  status = 200,
) {
  const r = await t.call("POST", `/business/customs/${crossing}/move`, {
    key: courier.business.api_key,
    body,
  });
  assert.equal(r.status, status, `${JSON.stringify(body)}: ${JSON.stringify(r.body)}`);
  return r.body;
}

/** Supplies the named documents for the crossing; answers the crossing. */
export async function supply(t: TestEnv, courier: Courier, crossing: string, names: string[]) {
  const r = await t.call("POST", `/business/customs/${crossing}/supply`, {
    key: courier.business.api_key,
    body: { documents: names.map((name) => ({ name, reference: `${name}-1` })) },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data;
}

/** The shipment's crossings as the courier reads them, once the query side caught up. */
export async function crossings(t: TestEnv, courier: Courier, waybill: string) {
  await t.settle();
  const r = await t.call("GET", `/business/shipments/${waybill}/customs`, {
    key: courier.business.api_key,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data.crossings as {
    id: string;
    status: string;
    border_post: string;
    country: string;
    to_country: string;
    run_id: string | null;
    stop_id: string | null;
    history: { action: string; reason: string | null }[];
    documents: { name: string }[];
    duties: { amount: number; payer: string }[];
    exit_at: string | null;
    entry_at: string | null;
    vehicle_left_at: string | null;
    released_at: string | null;
  }[];
}

/** The shipment as operations read it: headline, health, exception, milestones, trail. */
export async function shipment(t: TestEnv, courier: Courier, waybill: string) {
  const r = await t.call("GET", `/business/courier/operations/${waybill}`, {
    key: courier.business.api_key,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data as {
    status: string;
    health: string;
    exception: { reason: string } | null;
    obligations: { milestone: string; owner: string }[];
    trail: { event: string }[];
  };
}

/** The courier's ledger entries of `kind`, in order, once the query side caught up. */
export async function ledger(t: TestEnv, courier: Courier, kind: string) {
  await t.settle();
  const r = await sql<{
    reference: string;
    amount_minor: number;
    currency: string;
    recoverable: boolean;
    evidence_path: string | null;
    source_event: string | null;
    status: string;
  }>`select reference, amount_minor, currency, recoverable, evidence_path, source_event, status
    from ledger_entries where tenant = ${courier.business.id} and kind = ${kind}
    order by seq`.execute(t.env.db);
  return r.rows.map((row) => ({ ...row, amount_minor: Number(row.amount_minor) }));
}

/** The courier's alerts of `kind`, once the query side caught up. */
export async function alerts(t: TestEnv, courier: Courier, kind: string) {
  await t.settle();
  const r = await t.call("GET", `/business/courier/alerts?kind=${kind}`, {
    key: courier.business.api_key,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data as {
    kind: string;
    waybill: string;
    owner: string;
    message: string;
    detail: Record<string, string>;
  }[];
}

/** Waits for the billing event a charge produces (courier 6.1), bus-driven. */
export async function billingEvent(t: TestEnv, courier: Courier, eventType: string): Promise<void> {
  await until(t, async () => {
    const r = await t.call("GET", `/business/courier/billing/events?event_type=${eventType}`, {
      key: courier.business.api_key,
    });
    return r.status === 200 && r.body.data.length === 1;
  }, `billing event ${eventType}`);
}
