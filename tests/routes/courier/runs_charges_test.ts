/**
 * What network run stops charge (courier 2.6 rules 2 and 3, 2.10): never another client's
 * shipment; a note or reason kept by a charge; a checkpoint wait booked once; a work order's
 * client; a failed collection, a redelivery and a return each charged once.
 */
import assert from "node:assert/strict";
import { TEXT_CHARS_MAX } from "../../../src/courier/rules/ledger.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { advance, until } from "../../helpers/receiver.ts";
import { commandKind, whileFlaky } from "../../helpers/faults.ts";
import { RUN_FOLLOW_UP_RETRY_MS } from "../../../actors/courier/network_run/mod.ts";
import { outboundEventActor } from "../../../actors/platform/outbound_event/mod.ts";
import { bookWaybill, newClient, newCourier, topUp } from "../../helpers/courier.ts";
import {
  collectStop,
  deliverStops,
  deliveryRun,
  ledger,
  newRun,
  post,
  ready,
} from "./runs_fixtures.ts";

Deno.test("runs: a stop never charges another client's shipment (failed collection, waiting)", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const other = await newClient(t, courier);
    await topUp(t, courier, other, "2000");
    const theirs = await bookWaybill(t, other);
    const run = await newRun(t, courier);
    const stop = await collectStop(t, courier, run, client, { kg: 5, pieces: 2 });
    const fail = await post(t, courier, `/business/network-runs/${run}/stops/${stop}/fail`, {
      waybill: theirs,
      reason: "sender's shop closed",
    }, 422);
    assert.deepEqual(fail.errors.map((e: { path: string }) => e.path), ["waybill"]);
    const wait = await post(t, courier, `/business/network-runs/${run}/waiting`, {
      stop_id: stop,
      minutes: 30,
      waybill: theirs,
    }, 422);
    assert.deepEqual(wait.errors.map((e: { path: string }) => e.path), ["waybill"]);
    const stranger = await newCourier(t);
    const strangers = await newClient(t, stranger);
    await topUp(t, stranger, strangers, "2000");
    const foreign = await bookWaybill(t, strangers);
    await post(t, courier, `/business/network-runs/${run}/stops/${stop}/fail`, {
      waybill: foreign,
      reason: "sender's shop closed",
    }, 404);
    assert.deepEqual(
      (await ledger(t, courier, other)).filter((e) => e.kind !== "shipment" && e.kind !== "top_up"),
      [],
    );
    // The work order's own client is charged, once.
    const mine = await bookWaybill(t, client);
    await post(t, courier, `/business/network-runs/${run}/stops/${stop}/fail`, {
      waybill: mine,
      reason: "sender's shop closed",
    });
    const failed = (await ledger(t, courier, client)).filter((e) => e.kind === "failed_collection");
    assert.deepEqual(failed.map((e) => [e.shipment, Number(e.amount_minor), e.source_event]), [
      [mine, 1500, `run.collection_failed:${stop}`],
    ]);
  }));

Deno.test("runs: a note or reason a later charge keeps is refused 422 with a control character, and nothing is charged", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const run = await newRun(t, courier);
    const waybill = await bookWaybill(t, client);
    const stop = await collectStop(t, courier, run, client, { kg: 5, pieces: 2 });
    // spec: courier 2.6 rule 1: the wait's note and the failure's reason are the charges' reason,
    // carried by their billing events (2.7), where \u0001 takes six bytes, not one character.
    const wait = await post(t, courier, `/business/network-runs/${run}/waiting`, {
      stop_id: stop,
      minutes: 30,
      waybill,
      note: "gate\u0007locked",
    }, 422);
    assert.equal(wait.code, "validation_failed");
    assert.deepEqual(wait.errors.map((e: { path: string }) => e.path), ["note"]);
    const fail = await post(t, courier, `/business/network-runs/${run}/stops/${stop}/fail`, {
      waybill,
      reason: "shop\u001bclosed",
    }, 422);
    assert.equal(fail.code, "validation_failed");
    assert.deepEqual(fail.errors.map((e: { path: string }) => e.path), ["reason"]);
    const after = await t.call("GET", `/business/network-runs/${run}`, {
      key: courier.business.api_key,
    });
    assert.equal(after.body.data.stops[0].status, "pending", "the stop is as it was");
    assert.deepEqual(
      (await ledger(t, courier, client)).filter((e) =>
        e.kind === "waiting" || e.kind === "failed_collection"
      ),
      [],
    );
    // Over lines is text still: a tab and a line break (two bytes each in an event body).
    await post(t, courier, `/business/network-runs/${run}/waiting`, {
      stop_id: stop,
      minutes: 30,
      waybill,
      note: "gate locked,\n\tcalled the sender",
    });
    const [charged] = (await ledger(t, courier, client)).filter((e) => e.kind === "waiting");
    assert.equal(
      charged?.reason,
      `waited 30 minutes at stop ${stop}: gate locked,\n\tcalled the sender`,
    );
  }));

Deno.test("runs: a wait's or failure's longest note books its charge, the reason cut to the ledger's bound, never refused", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const run = await newRun(t, courier);
    const waybill = await bookWaybill(t, client);
    const stop = await collectStop(t, courier, run, client, { kg: 5, pieces: 2 });
    // spec: courier 2.6 rule 1: each later charge keeps a reason; the note is within its bound.
    const note = "🚚".repeat(250);
    await post(t, courier, `/business/network-runs/${run}/waiting`, {
      stop_id: stop,
      minutes: 30,
      waybill,
      note,
    });
    await post(t, courier, `/business/network-runs/${run}/stops/${stop}/fail`, {
      waybill,
      reason: "x".repeat(500),
    });
    const charged = (await ledger(t, courier, client)).filter((e) =>
      e.kind === "waiting" || e.kind === "failed_collection"
    );
    assert.deepEqual(charged.map((e) => e.kind).sort(), ["failed_collection", "waiting"]);
    for (const e of charged) {
      assert.ok(e.reason!.length <= TEXT_CHARS_MAX, e.reason!);
      assert.ok(e.reason!.isWellFormed(), "no half of a character");
      assert.ok(e.reason!.endsWith("…"), "marked as cut");
    }
  }));

Deno.test("runs: a checkpoint stop's wait books once, on one client, however many clients ride", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const other = await newClient(t, courier);
    await topUp(t, courier, other, "2000");
    const run = await newRun(t, courier);
    const mine = await bookWaybill(t, client);
    const theirs = await bookWaybill(t, other);
    await post(t, courier, `/business/network-runs/${run}/stops`, {
      kind: "checkpoint",
      country: "BW",
      to_country: "BW",
      border_post: "Ramatlabama",
    }, 201);
    await deliverStops(t, courier, run, [mine, theirs]);
    const checkpoint = (await t.call("GET", `/business/network-runs/${run}`, {
      key: courier.business.api_key,
    })).body.data.stops[0].id;
    // Two offices name the wait for different shipments at once: one is charged, for the stop.
    const answers = await Promise.all(
      [mine, theirs].map((waybill) =>
        t.call("POST", `/business/network-runs/${run}/waiting`, {
          key: courier.business.api_key,
          body: { stop_id: checkpoint, minutes: 45, waybill },
        })
      ),
    );
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 409], JSON.stringify(answers));
    const refused = answers.find((a) => a.status === 409)!;
    assert.equal(refused.body.code, "reference_conflict");
    assert.match(refused.body.message, new RegExp(`${checkpoint}.*(${mine}|${theirs})`));
    // spec: courier 6.1 `run.waiting:{stop}`, one per charge, sent once; 2.6 rule 2.
    const waits = [
      ...(await ledger(t, courier, client)),
      ...(await ledger(t, courier, other)),
    ].filter((e) => e.kind === "waiting");
    assert.deepEqual(waits.map((e) => e.source_event), [`run.waiting:${checkpoint}`]);
    // The charged shipment named again is the same wait: answered, not booked again.
    const charged = waits[0]!.shipment!;
    await post(t, courier, `/business/network-runs/${run}/waiting`, {
      stop_id: checkpoint,
      minutes: 45,
      waybill: charged,
    });
    const again = [
      ...(await ledger(t, courier, client)),
      ...(await ledger(t, courier, other)),
    ].filter((e) => e.kind === "waiting");
    assert.equal(again.length, 1);
  }));

Deno.test("runs: a collect stop's work order names a client of this courier, or is refused naming it", () =>
  withTestEnv(async (t) => {
    const [courier] = await ready(t);
    const stranger = await newCourier(t);
    const theirs = await newClient(t, stranger);
    const run = await newRun(t, courier);
    for (const id of ["cli_nobody", theirs.id]) {
      const r = await post(t, courier, `/business/network-runs/${run}/stops`, {
        kind: "collect",
        work_order: {
          sender: "Molapo Pharmacy",
          recipient: "Gaborone hub",
          courier_client_id: id,
          reserved: { kg: 1, pieces: 1, m3: 0.1 },
        },
      }, 422);
      assert.deepEqual(r.errors.map((e: { path: string }) => e.path), [
        "work_order.courier_client_id",
      ]);
    }
    const read = await t.call("GET", `/business/network-runs/${run}`, {
      key: courier.business.api_key,
    });
    assert.deepEqual(read.body.data.stops, [], "nothing added");
  }));

Deno.test("runs: a failed collection that picked nothing up charges the work order's client, once, on its card in force", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    // A new version in force: no shipment froze a card for this work, so today's card prices it.
    // It starts after version 1 (courier 4.2), a second on.
    t.clock.advanceBy(1000);
    await post(t, courier, `/business/courier/rate-cards/${courier.rateCardId}/versions`, {
      effective_from: new Date(t.clock.now()).toISOString(),
      failed_collection_fee: 20,
    }, 201);
    t.clock.advanceBy(1000);
    const run = await newRun(t, courier);
    const stop = await collectStop(t, courier, run, client, { kg: 5, pieces: 2 });
    const body = { reason: "sender's shop closed", idempotency_key: "fail-1" };
    await post(t, courier, `/business/network-runs/${run}/stops/${stop}/fail`, body);
    // A replay after lost signal books nothing again.
    await post(t, courier, `/business/network-runs/${run}/stops/${stop}/fail`, body);
    const failed = (await ledger(t, courier, client)).filter((e) => e.kind === "failed_collection");
    assert.deepEqual(
      failed.map((e) => [e.shipment, Number(e.amount_minor), e.source_event, e.evidence_path]),
      [[null, 2000, `run.collection_failed:${stop}`, `run:${run}/stop:${stop}`]],
    );
    const events = await t.call("GET", "/business/courier/billing/events", {
      key: courier.business.api_key,
    });
    assert.ok(
      events.body.data.some((e: { event_type: string }) =>
        e.event_type === `run.collection_failed:${stop}`
      ),
      JSON.stringify(events.body.data),
    );
  }));

Deno.test("runs: a redelivery after a failed attempt and a return each book their own charge, once", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t, { redelivery_fee: 25, return_fee: 40 });
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "2000");
    const again = await bookWaybill(t, client);
    const back = await bookWaybill(t, client);
    // A card version published after booking does not reprice them (courier 2.3, 4.2); it
    // starts after version 1, a second on.
    t.clock.advanceBy(1000);
    await post(t, courier, `/business/courier/rate-cards/${courier.rateCardId}/versions`, {
      effective_from: new Date(t.clock.now()).toISOString(),
      redelivery_fee: 99,
      return_fee: 99,
    }, 201);
    const run = await newRun(t, courier);
    await deliverStops(t, courier, run, [again, back]);
    const stops = (await post(t, courier, `/business/network-runs/${run}/depart`, {})).data.stops;
    for (const stop of stops) {
      await post(t, courier, `/business/network-runs/${run}/stops/${stop.id}/fail`, {
        reason: "nobody home",
      });
    }
    // Out again (operations' scan), then delivered by a second run: one redelivery.
    const scan = (event: string) =>
      post(t, courier, `/business/courier/shipments/${again}/scans`, { event }, 201);
    await scan("out_for_delivery");
    await scan("out_for_delivery");
    const second = await newRun(t, courier);
    // spec: courier 3.4: the first run hands it over (transferred, its end state there), so the
    // second run plans its delivery.
    await post(t, courier, `/business/network-runs/${run}/transfer`, {
      waybills: [again],
      to_run: second,
    });
    await post(t, courier, `/business/network-runs/${second}/stops`, {
      kind: "deliver",
      waybill: again,
    }, 201);
    const leg = (await post(t, courier, `/business/network-runs/${second}/depart`, {})).data;
    await post(t, courier, `/business/network-runs/${second}/stops/${leg.stops[0].id}/deliver`, {
      received_by: "Neo",
    });
    // The other goes back to the sender, reported twice: one return.
    for (const key of ["r1", "r2"]) {
      await post(t, courier, `/business/network-runs/${run}/report`, {
        waybill: back,
        condition: "returned",
        note: "refused by the recipient",
        idempotency_key: key,
      });
    }
    const charges = (await ledger(t, courier, client))
      .filter((e) => e.kind === "redelivery" || e.kind === "return")
      .map((e) => [e.kind, e.shipment, Number(e.amount_minor), e.currency, e.source_event]);
    assert.deepEqual(charges, [
      ["redelivery", again, 2500, "BWP", `shipment.redelivery:${again}:1`],
      ["return", back, 4000, "BWP", `shipment.return:${back}`],
    ]);
    // Each completion billing event lists the charge its own scan caused (courier 2.7).
    for (
      const [type, waybill, reference] of [
        ["shipment.returned", back, `RET-${back}`],
        ["shipment.delivered", again, `RDL-${again}-1`],
      ] as const
    ) {
      let body: { shipment: { waybill: string; adjustments: { reference: string }[] } } | null =
        null;
      await until(t, async () => {
        const r = await t.call("GET", `/business/courier/billing/events?event_type=${type}`, {
          key: courier.business.api_key,
        });
        const made = r.body.data.find((e: { event_id: string }) => e.event_id);
        if (!made) return false;
        const got = await t.env.runtime.ask(
          outboundEventActor,
          courier.business.id,
          made.event_id,
          {
            kind: "get",
          },
        );
        body = got.ok && got.reply ? JSON.parse(got.reply.raw_body) : null;
        return body?.shipment.waybill === waybill;
      }, type);
      assert.deepEqual(body!.shipment.adjustments.map((a) => a.reference), [reference], type);
    }
  }));

Deno.test("runs: a stop that is done cannot fail afterwards; nothing changes", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const { run, waybill } = await deliveryRun(t, courier, client);
    const stop = (await post(t, courier, `/business/network-runs/${run}/depart`, {})).data
      .stops[0].id;
    await post(t, courier, `/business/network-runs/${run}/stops/${stop}/deliver`, {
      received_by: "Neo",
    });
    const refused = await post(t, courier, `/business/network-runs/${run}/stops/${stop}/fail`, {
      reason: "nobody home",
    }, 409);
    assert.equal(refused.code, "stop_already_done");
    assert.match(refused.message, new RegExp(stop));
    const after = (await t.call("GET", `/business/network-runs/${run}`, {
      key: courier.business.api_key,
    })).body.data;
    assert.equal(after.stops[0].status, "done");
    assert.equal(after.items[0].state, "delivered");
    const ship = await t.call("GET", `/business/courier/operations/${waybill}`, {
      key: courier.business.api_key,
    });
    assert.equal(ship.body.data.status, "delivered");
    assert.ok(
      !ship.body.data.trail.some((e: { event: string }) => e.event === "delivery_attempted"),
      JSON.stringify(ship.body.data.trail),
    );
  }));

Deno.test("runs: a failed collection's fee cut off by a crash books the fee of the card in force when it failed, once, after the client's card changed", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const run = await newRun(t, courier);
    const stop = await collectStop(t, courier, run, client, { kg: 5, pieces: 2 });
    const fail = `/business/network-runs/${run}/stops/${stop}/fail`;
    const body = { reason: "sender's shop closed", idempotency_key: "fail-crash" };
    // The process dies after the run recorded the failure, before the client's account booked it.
    await whileFlaky(t.env, { fails: commandKind("post_charge", "courier_client") }, async () => {
      await post(t, courier, fail, body, 500);
    });
    // Before the retry, the courier gives the client another card with another fee.
    const card = await post(t, courier, "/business/courier/rate-cards", {
      name: "Dearer 2027",
      currency: "BWP",
      base_charge: 50,
      per_kg: 10,
      included_kg: 1,
      volumetric_divisor: 5000,
      minimum_charge: 40,
      tax_pct: 14,
      tax_inclusive: false,
      tax_label: "VAT",
      failed_collection_fee: 99,
    }, 201);
    const assigned = await t.call("PATCH", `/business/courier/clients/${client.id}`, {
      key: courier.business.api_key,
      body: { rate_card_id: card.data.id },
    });
    assert.equal(assigned.status, 200, JSON.stringify(assigned.body));
    // spec: courier 2.6 rules 1, 2: the retry and the follow-ups reactor book the fee in force
    // when the collection failed, once.
    await post(t, courier, fail, body);
    const booked = async () =>
      (await ledger(t, courier, client)).filter((e) => e.kind === "failed_collection");
    await advance(t, RUN_FOLLOW_UP_RETRY_MS / 500);
    await until(t, async () => (await booked()).length > 0, "the failed collection's fee");
    await advance(t, RUN_FOLLOW_UP_RETRY_MS / 500);
    const failed = await booked();
    assert.deepEqual(
      failed.map((e) => [Number(e.amount_minor), e.source_event]),
      [[1500, `run.collection_failed:${stop}`]],
    );
  }));
