/**
 * Business API 4.2 GET /business/batches/{id}/packing-slips: every stop's packing slip in one
 * PDF in the driving order; with_labels=1 puts each stop's custody label after its slip (the
 * scanning add-on), and a batch without the add-on has none. Another business's batch is 404.
 */
import assert from "node:assert/strict";
import { pageTexts, pdfText } from "../../helpers/pdf.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { LINE, postBatch } from "./batch_fixtures.ts";
import { fundedBusiness } from "./trips_fixtures.ts";
import { commandKind, whileFlaky } from "../../helpers/faults.ts";

async function get(t: TestEnv, key: string, path: string) {
  return await t.app.request(`/api${path}`, { headers: { "X-Business-API-Key": key } });
}

Deno.test("batch packing slips: every stop's slip in the driving order, labels after each with the scanning add-on; 404 for another business", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const on = await t.call("PATCH", `/operator/businesses/${b.id}`, {
      operator: true,
      body: { custody_scanning: true },
    });
    assert.equal(on.status, 200, JSON.stringify(on.body));
    const made = await postBatch(t, b.api_key, { segment: "parcel", stops: LINE });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const batch = made.body.data;
    const path = `/business/batches/${batch.id}/packing-slips`;

    const slips = await get(t, b.api_key, path);
    assert.equal(slips.status, 200);
    assert.equal(slips.headers.get("Content-Type"), "application/pdf");
    const pages = pageTexts(await pdfText(new Uint8Array(await slips.arrayBuffer())));
    assert.equal(pages.length, 3, "one slip a stop (one piece each)");
    // The driving order: each page is its stop's slip, named by its trip reference.
    for (const [i, s] of batch.stops.entries()) {
      assert.match(pages[i]!, /Packing slip/);
      assert.ok(pages[i]!.includes(s.trip_reference), `page ${i + 1}: ${s.trip_reference}`);
      assert.ok(pages[i]!.includes(LINE[s.index]!.dest_address), `page ${i + 1}: its address`);
    }

    const labelled = await get(t, b.api_key, `${path}?with_labels=1`);
    assert.equal(labelled.status, 200);
    const withLabels = pageTexts(await pdfText(new Uint8Array(await labelled.arrayBuffer())));
    assert.equal(withLabels.length, 6, "each slip followed by its label");
    for (const [i, s] of batch.stops.entries()) {
      assert.match(withLabels[2 * i]!, /Packing slip/);
      assert.doesNotMatch(withLabels[2 * i + 1]!, /Packing slip/);
      assert.ok(withLabels[2 * i + 1]!.includes(s.trip_reference), `label ${i + 1}`);
    }

    const other = await fundedBusiness(t);
    const theirs = await get(t, other.api_key, path);
    assert.equal(theirs.status, 404);
    assert.equal((await theirs.json()).code, "not_found");
  }));

Deno.test("batch packing slips: labels asked of a batch booked without the scanning add-on are refused; the slips alone are served", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const made = await postBatch(t, b.api_key, { segment: "parcel", stops: LINE.slice(0, 2) });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const path = `/business/batches/${made.body.data.id}/packing-slips`;
    const refused = await get(t, b.api_key, `${path}?with_labels=1`);
    assert.equal(refused.status, 404);
    const body = await refused.json();
    assert.equal(body.code, "custody_scanning_off");
    assert.match(body.message, /scanning add-on/);
    const slips = await get(t, b.api_key, path);
    assert.equal(slips.status, 200);
    assert.equal(pageTexts(await pdfText(new Uint8Array(await slips.arrayBuffer()))).length, 2);
  }));

Deno.test("batch packing slips: a stop whose trip read meets a busy actor answers 503, never a PDF without that stop's slip", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const made = await postBatch(t, b.api_key, { segment: "parcel", stops: LINE });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const path = `/business/batches/${made.body.data.id}/packing-slips`;
    let status = 0;
    const failed = await whileFlaky(t.env, {
      fails: commandKind("get", "business_trip"),
      refuse: true,
    }, async () => {
      const r = await get(t, b.api_key, path);
      status = r.status;
      await r.body?.cancel();
    });
    assert.equal(failed, 1);
    // spec: business 4.2: every stop's packing slip; a missing one would leave a parcel behind.
    assert.equal(status, 503);
    const slips = await get(t, b.api_key, path);
    assert.equal(slips.status, 200);
    assert.equal(pageTexts(await pdfText(new Uint8Array(await slips.arrayBuffer()))).length, 3);
  }));

Deno.test("batch packing slips: a cancelled stop's slip is left out, never printed to be packed; a batch all cancelled is refused 422 batch_cancelled", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const made = await postBatch(t, b.api_key, { segment: "parcel", stops: LINE });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const batch = made.body.data;
    const path = `/business/batches/${batch.id}/packing-slips`;
    const cancel = async (reference: string) => {
      const r = await t.call("POST", `/business/trips/${reference}/cancel`, { key: b.api_key });
      assert.equal(r.status, 200, JSON.stringify(r.body));
    };
    const [first, second, third] = batch.stops.map((s: { trip_reference: string }) =>
      s.trip_reference
    );
    await cancel(second);
    const slips = await get(t, b.api_key, path);
    assert.equal(slips.status, 200);
    const pages = pageTexts(await pdfText(new Uint8Array(await slips.arrayBuffer())));
    assert.equal(pages.length, 2, "the stops still to be carried");
    assert.ok(pages[0]!.includes(first) && pages[1]!.includes(third));
    assert.ok(!pages.some((p) => p.includes(second)), "no slip of the cancelled stop");

    await cancel(first);
    await cancel(third);
    const none = await get(t, b.api_key, path);
    assert.equal(none.status, 422);
    const body = await none.json();
    assert.equal(body.code, "batch_cancelled");
    assert.match(body.message, new RegExp(batch.id));
  }));
