/**
 * The laboratory profile and operations' scans as flows (courier 2.6 rule 3, 2.10, 3.4, 4.4),
 * called without HTTP: a cold-chain profile books its charge once, a profile naming no
 * checklist the courier has leaves nothing behind, and a scan books the later charge it causes
 * before answering.
 */
import assert from "node:assert/strict";
import { labSampleCommand } from "../../../src/courier/flows/lab.ts";
import { profileLabSample } from "../../../src/courier/flows/lab_profile.ts";
import { recordScan } from "../../../src/courier/flows/scans.ts";
import { Refused } from "../../../src/runtime/actor.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { bookWaybill, newClient, newCourier, topUp } from "../../helpers/courier.ts";

async function ready(t: TestEnv, card: Record<string, unknown>) {
  const courier = await newCourier(t, card);
  const client = await newClient(t, courier);
  await topUp(t, courier, client, "2000");
  return { tenant: courier.business.id, waybill: await bookWaybill(t, client) };
}

async function refusal(work: () => Promise<unknown>): Promise<Refused["rejection"]> {
  try {
    await work();
  } catch (e) {
    if (e instanceof Refused) return e.rejection;
    throw e;
  }
  throw new Error("expected a refusal");
}

async function entriesOf(t: TestEnv, tenant: string, kind: string): Promise<[string, number][]> {
  await t.settle();
  const rows = await t.env.db.selectFrom("ledger_entries").selectAll()
    .where("tenant", "=", tenant)
    .where("kind", "=", kind)
    .orderBy("seq")
    .execute();
  return rows.map((r) => [r.reference, Number(r.amount_minor)]);
}

const COLD = {
  sample_type: "blood",
  laboratory: "Gaborone Lab",
  min_temp_c: 2,
  max_temp_c: 8,
  deadline_at: null,
  seal_id: null,
};

Deno.test("lab profile flow: a cold-chain profile sent again books its charge once", () =>
  withTestEnv(async (t) => {
    const { tenant, waybill } = await ready(t, { cold_chain_fee: 45 });
    const input = { waybill, profile: COLD, checklist: null, by: "ops" };
    const first = await profileLabSample(t.env.runtime, tenant, input);
    const again = await profileLabSample(t.env.runtime, tenant, input);
    assert.equal(first.sample.cold_chain, true);
    assert.equal(first.cold_chain_charge?.reference, `COLD-${waybill}`);
    assert.equal(again.cold_chain_charge?.reference, `COLD-${waybill}`);
    assert.deepEqual(await entriesOf(t, tenant, "cold_chain"), [[`COLD-${waybill}`, 4500]]);
  }));

Deno.test("lab profile flow: an unknown checklist or another courier's shipment leaves no sample", () =>
  withTestEnv(async (t) => {
    const { tenant, waybill } = await ready(t, { cold_chain_fee: 45 });
    const other = await newCourier(t);
    const runtime = t.env.runtime;
    const unknown = await refusal(() =>
      profileLabSample(runtime, tenant, {
        waybill,
        profile: COLD,
        checklist: { code: "NO-SUCH" },
        by: "ops",
      })
    );
    assert.deepEqual([unknown.code, unknown.message], [
      "not_found",
      "no compliance checklist NO-SUCH",
    ]);
    const elsewhere = await refusal(() =>
      profileLabSample(runtime, other.business.id, {
        waybill,
        profile: COLD,
        checklist: null,
        by: "ops",
      })
    );
    assert.deepEqual([elsewhere.code, elsewhere.message], ["not_found", "shipment not found"]);
    const none = await refusal(() => labSampleCommand(runtime, tenant, waybill, { kind: "get" }));
    assert.equal(none.code, "not_found");
    assert.deepEqual(await entriesOf(t, tenant, "cold_chain"), []);
  }));

Deno.test("scans flow: a redelivery books its charge before the scan answers; a closed shipment refuses more", () =>
  withTestEnv(async (t) => {
    const { tenant, waybill } = await ready(t, { redelivery_fee: 25 });
    // Only the flow books here: the shipment's own worker is stopped.
    await t.env.reactors["scan_charges"]!.close();
    for (const event of ["out_for_delivery", "delivery_attempted", "out_for_delivery"] as const) {
      await recordScan(t.env.runtime, tenant, waybill, { event, by: "ops" });
    }
    assert.deepEqual(await entriesOf(t, tenant, "redelivery"), [[`RDL-${waybill}-1`, 2500]]);
    await recordScan(t.env.runtime, tenant, waybill, {
      event: "delivered",
      received_by: "Neo",
      by: "ops",
    });
    const closed = await refusal(() =>
      recordScan(t.env.runtime, tenant, waybill, { event: "out_for_delivery", by: "ops" })
    );
    assert.equal(closed.code, "shipment_closed");
  }));
