import assert from "node:assert/strict";
import { exportedLookup } from "../../src/outbound/alerting.ts";
import { withTestEnv } from "../helpers/test_env.ts";
import { billingCsv, bookWaybill, newClient, newCourier, topUp } from "../helpers/courier.ts";

Deno.test("alerting: entries asked about at once are each answered whether they went out in an export", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const [a, b] = [await newClient(t, courier), await newClient(t, courier)];
    await topUp(t, courier, a, "500");
    await topUp(t, courier, b, "500");
    const wa = await bookWaybill(t, a);
    const wb = await bookWaybill(t, b);
    await t.settle();
    // Only the first client's entries go out.
    await billingCsv(t, courier, "POST", `client_id=${a.id}`);
    const exported = exportedLookup(t.env.db);
    const tenant = courier.business.id;
    const answers = await Promise.all([
      exported({ tenant, client_id: a.id, reference: wa }),
      exported({ tenant, client_id: a.id, reference: wa, kind: "shipment" }),
      exported({ tenant, client_id: a.id, reference: wa, kind: "waiting" }),
      exported({ tenant, client_id: b.id, reference: wb }),
      exported({ tenant, client_id: b.id, reference: wa }),
      exported({ tenant: "biz_other", client_id: a.id, reference: wa }),
    ]);
    assert.deepEqual(answers, [true, true, false, false, false, false]);
  }));
