/**
 * Courier billing (courier 4.2 `cod-remitted`, `correct`; 2.6 evidence_path): a remittance that
 * is refused keeps no evidence file, and an entry's evidence names only a file the courier holds:
 * bad input changes nothing.
 */
import assert from "node:assert/strict";
import { withTestEnv } from "../../helpers/test_env.ts";
import { billingAction as act, postCharge as charge } from "../../helpers/courier.ts";
import { storeEvidence } from "../../../src/courier/flows/evidence.ts";
import { book, ready, view } from "./billing_fixtures.ts";
import { sha256Hex } from "../../../src/domain/secrets.ts";

Deno.test("billing: a cod-remitted refused past the exact bound keeps no evidence file", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t, { settlement_mode: "prepaid" });
    const most = await act(t, courier, client, "top-up", {
      amount: "9999999999999.99",
      currency: "BWP",
      reference: "MOST",
    });
    assert.equal(most.status, 201, JSON.stringify(most.body));
    const waybill = await book(t, client);
    const spent = 9999999999999.99 - (await view(t, courier, client)).balances.prepaid;
    // The remitted COD would take the prepaid balance past the largest amount stated exactly.
    const cod = await t.call("POST", `/business/courier/shipments/${waybill}/cod-collected`, {
      key: courier.business.api_key,
      body: { amount: (spent + 1).toFixed(2), currency: "BWP" },
    });
    assert.equal(cod.status, 201, JSON.stringify(cod.body));
    const before = await view(t, courier, client);

    const slip = new TextEncoder().encode(`%PDF-1.4 remittance slip for ${waybill}`);
    const form = new FormData();
    form.set("waybill", waybill);
    form.set("evidence_file", new File([slip], "slip.pdf", { type: "application/pdf" }));
    const r = await act(t, courier, client, "cod-remitted", form);
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.equal(r.body.code, "amount_too_large");

    const file = await t.app.request(`/api/business/courier/billing/evidence/${sha256Hex(slip)}`, {
      headers: { "X-Business-API-Key": courier.business.api_key },
    });
    assert.equal(file.status, 404, "a refused remittance keeps no file");
    assert.deepEqual(await view(t, courier, client), before, "nothing changed");
  }));

Deno.test("billing: an evidence text naming a file the courier does not hold is refused 422 naming evidence, and changes nothing", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const [other] = await ready(t);
    const theirs = new TextEncoder().encode("%PDF-1.4 another courier's slip");
    const stored = await storeEvidence(t.env.runtime, other.business.id, {
      name: "slip.pdf",
      content_type: "application/pdf",
      bytes: theirs,
    }, "test");
    assert.ok(stored.ok);
    await charge(t, courier, client, { reference: "CUS-1" });
    const waybill = await book(t, client);
    const cod = await t.call("POST", `/business/courier/shipments/${waybill}/cod-collected`, {
      key: courier.business.api_key,
      body: { amount: "30.00", currency: "BWP" },
    });
    assert.equal(cod.status, 201, JSON.stringify(cod.body));
    const before = await view(t, courier, client);
    const nobody = sha256Hex(new TextEncoder().encode("uploaded by nobody"));
    for (const hash of [sha256Hex(theirs), nobody]) {
      const evidence = `file:sha256:${hash}`;
      for (
        const [action, body] of [
          ["cod-remitted", { waybill, evidence }],
          ["correct", { entry_reference: "CUS-1", amount: "-1.00", reason: "goodwill", evidence }],
        ] as const
      ) {
        const r = await act(t, courier, client, action, body);
        assert.equal(r.status, 422, `${action}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.code, "validation_failed");
        assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path), ["evidence"]);
      }
    }
    assert.deepEqual(await view(t, courier, client), before, "nothing changed");
  }));
