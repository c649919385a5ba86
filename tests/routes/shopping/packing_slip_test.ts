/**
 * GET /business/trips/{id}/packing-slip of a shopping order (Business API 4.1): the recipient's
 * first names and surname as the order of shopping 2.2 sent them.
 */
import assert from "node:assert/strict";
import { pdfText } from "../../helpers/pdf.ts";
import { until } from "../../helpers/receiver.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { collect, recordLine, storeIdsOf } from "./events_fixtures.ts";
import { createOrder, orderBody, shoppingBusiness } from "./shopping_fixtures.ts";

const PHOTO = Uint8Array.from({ length: 3_000 }, (_, i) => (i * 5 + 1) % 256);

Deno.test("shopping packing slip: prints recipient_first_names and recipient_surname as sent, a surname of several words too", () =>
  withTestEnv(async (t) => {
    const b = await shoppingBusiness(t);
    const made = await createOrder(
      t,
      b.api_key,
      orderBody("ORD-SLIP", { stores: 1, lines: 1 }, {
        recipient_first_names: "Anna",
        recipient_surname: "van der Merwe",
      }),
    );
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const reference = made.body.data.reference;
    const [s0] = await storeIdsOf(t, b.id, reference);
    await recordLine(t, b.id, s0!, "0-0", {
      outcome: "found",
      qty_found: 2,
      unit_price_paid_minor: 1_000,
      substitute: null,
    });
    await collect(t, b.id, s0!, { amount_minor: 2_000, photo: PHOTO });
    await until(t, async () => {
      const o = await t.call("GET", `/business/shopping-orders/${reference}`, { key: b.api_key });
      return o.body.data.float.reconciliation !== null;
    }, "the basket collected");
    const res = await t.app.request(`/api/business/trips/${reference}/packing-slip`, {
      headers: { "X-Business-API-Key": b.api_key },
    });
    assert.equal(res.status, 200);
    const text = await pdfText(new Uint8Array(await res.arrayBuffer()));
    // Each detail row reads `label  value`.
    const rows = text.split("\n").map((l) => l.trim().split(/\s{2,}/));
    const value = (label: string) => rows.find((r) => r[0] === label)?.[1];
    assert.equal(value("First names"), "Anna", text);
    assert.equal(value("Surname"), "van der Merwe", text);
  }));
