/** What the tracking route tests share: a scan the courier records on a shipment. */
import assert from "node:assert/strict";
import type { TestEnv } from "../../helpers/test_env.ts";
import type { Courier } from "../../helpers/courier.ts";

/** Records the scan on the shipment with the courier's key, which must answer 201. */
export async function scan(
  t: TestEnv,
  courier: Courier,
  waybill: string,
  body: Record<string, unknown>,
) {
  const r = await t.call("POST", `/business/courier/shipments/${waybill}/scans`, {
    key: courier.business.api_key,
    body,
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
}
