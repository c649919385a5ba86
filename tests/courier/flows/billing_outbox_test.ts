/**
 * The billing event and export flows (courier 3.1, 4.3, 6.1), called without HTTP: what an
 * acknowledgement may report, which events a courier may touch, where events may go, and the
 * range an export covers.
 */
import assert from "node:assert/strict";
import { outboundEventActor } from "../../../actors/platform/outbound_event/mod.ts";
import { acknowledgeEvent, setBillingEndpoint } from "../../../src/courier/flows/billing/events.ts";
import { exportEntries, previewExport } from "../../../src/courier/flows/billing/exports.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { account, charge, fieldOf, refused } from "./billing_helpers.ts";

Deno.test("billing flows: an acknowledgement reports a known state of the courier's own billing event; paid is refused first", () =>
  withTestEnv(async (t) => {
    const a = await account(t);
    const ack = (eventId: string, state: string, courier = a.caller) =>
      acknowledgeEvent(t.env, courier, eventId, { state, external_reference: "ERP-1" });
    // spec: courier 3.1 rule 2: there is no paid state, whatever the event.
    await refused(ack("evt_none", "paid"), "state_paid_refused");
    assert.equal(fieldOf(await refused(ack("evt_none", "exported"), "validation_failed")), "state");
    await refused(ack("evt_none", "acknowledged"), "not_found");
    for (const stream of ["billing", "client_webhook"] as const) {
      const made = await t.env.runtime.ask(outboundEventActor, a.caller.courier, `evt_${stream}`, {
        kind: "create",
        event: {
          event_id: `evt_${stream}`,
          stream,
          event_type: "shipment.booked",
          raw_body: "{}",
          recipient: { kind: "courier" },
          entry: null,
          client_id: a.client,
        },
        endpoint_missing: true,
      });
      assert.ok(made.ok, JSON.stringify(made));
    }
    // A client webhook's event is no billing event; another courier's is not found either.
    await refused(ack("evt_client_webhook", "acknowledged"), "not_found");
    const other = { courier: "biz_someone_else", by: "x" };
    await refused(ack("evt_billing", "acknowledged", other), "not_found");
    const event = await ack("evt_billing", "invoiced_externally");
    assert.equal(event.acknowledgement?.reported_state, "invoiced_externally");
    assert.equal(event.acknowledgement?.external_references.invoiced_externally, "ERP-1");
  }));

Deno.test("billing flows: a billing endpoint is public HTTPS, refused naming the url otherwise", () =>
  withTestEnv(async (t) => {
    const a = await account(t);
    for (const url of ["http://billing.example.com/events", "https://127.0.0.1/x", "not a url"]) {
      const r = await refused(setBillingEndpoint(t.env, a.caller, url), "validation_failed");
      assert.equal(fieldOf(r), "url");
    }
  }));

Deno.test("billing flows: an export's range names real days within the years stored, from before to, of the courier's own client", () =>
  withTestEnv(async (t) => {
    const a = await account(t);
    const field = async (input: Parameters<typeof previewExport>[2]) =>
      fieldOf(await refused(previewExport(t.env, a.caller.courier, input), "validation_failed"));
    assert.equal(await field({ from: "2026-11-31" }), "from");
    assert.equal(await field({ to: "2026-02-29" }), "to");
    assert.equal(await field({ from: "2026-11-02", to: "2026-11-01" }), "to");
    assert.equal(await field({ from: "0001-01-01" }), "from");
    await refused(
      previewExport(t.env, "biz_someone_else", { client_id: a.client }),
      "not_found",
    );
  }));

Deno.test("billing flows: an export marks the range's pending entries once and its file shows them; the preview marks none", () =>
  withTestEnv(async (t) => {
    const a = await account(t);
    await charge(t, a, "W-1", 5_000);
    await charge(t, a, "W-2", 1_000);
    const text = async (csv: ReadableStream<Uint8Array>) => await new Response(csv).text();
    const preview = await previewExport(t.env, a.caller.courier, { client_id: a.client });
    assert.equal((await text(preview.csv)).match(/,pending,/g)?.length, 2);
    const exported = await exportEntries(t.env, a.caller, { client_id: a.client });
    assert.equal(exported.marked, 2);
    assert.match(exported.export_id, /^exp_/);
    assert.equal((await text(exported.csv)).match(/,exported,/g)?.length, 2);
    const again = await exportEntries(t.env, a.caller, { client_id: a.client });
    assert.equal(again.marked, 0, "marked once");
    await text(again.csv);
  }));
