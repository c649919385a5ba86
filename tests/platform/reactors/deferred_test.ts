/**
 * Deferred work (src/platform/reactors/deferred.ts, actors/platform/deferred_work.ts) holds whatever a worker failed
 * on: a busy shipment's change, many scans committed together beside its long trail, is kept
 * and handed back whole to the worker's deferred try.
 */
import assert from "node:assert/strict";
import { deferredWorkActor, deferredWorkId } from "../../../actors/platform/deferred_work.ts";
import { shipmentActor } from "../../../actors/courier/shipment/mod.ts";
import type { ActorChange, BusMessage } from "../../../src/bus/bus.ts";
import { subjectPattern } from "../../../src/bus/bus.ts";
import { DeferredWorks } from "../../../src/platform/reactors/deferred.ts";
import { DEFERRED_WORK_RETRY_MS, STATE_BYTES_MAX } from "../../../src/limits.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { bookWaybill, newClient, newCourier, topUp } from "../../helpers/courier.ts";

Deno.test("deferred work: a busy shipment's change, past one store value, is kept and tried whole", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    await topUp(t, courier, client, "1000");
    const tenant = courier.business.id;
    const waybill = await bookWaybill(t, client);
    const seen: BusMessage[] = [];
    const sub = t.env.bus.subscribe(
      subjectPattern(t.env.runtime.busPrefix, "*", shipmentActor.type),
      (m) => void seen.push(m),
    );
    try {
      // A busy shipment: 190 hub scans with a short note each, sent at once so that many commit
      // together (one change carries each scan's event and, once, the trail).
      const scans = Array.from(
        { length: 190 },
        (_, i) =>
          t.env.runtime.ask(shipmentActor, tenant, waybill, {
            kind: "record",
            scan: {
              event: "scan",
              facility_id: "GBE-HUB",
              holder: "drv_0123456789",
              note: `sorted at bay ${i % 12}, label checked, seal intact`,
              by: "usr_operations_0001",
            },
          }),
      );
      for (const r of await Promise.all(scans)) assert.ok(r.ok, JSON.stringify(r));
      await t.env.bus.flush();
    } finally {
      sub.unsubscribe();
    }
    const size = (m: BusMessage) => JSON.stringify(m.payload).length;
    const busiest = seen.reduce((a, b) => size(b) > size(a) ? b : a);
    // As the NATS bus hands it over: parsed from its JSON, nothing shared.
    const message = {
      subject: busiest.subject,
      payload: JSON.parse(JSON.stringify(busiest.payload)),
    };
    assert.ok(JSON.stringify(message.payload).length > STATE_BYTES_MAX, "past one store value");

    const tried: unknown[] = [];
    const works = new DeferredWorks({ runtime: t.env.runtime, bus: t.env.bus, onError: () => {} });
    works.register("test_worker", (m) => {
      tried.push(m.payload);
      return Promise.resolve();
    });
    try {
      await works.defer("test_worker", message, new Error("client read refused"));
      const id = deferredWorkId(
        "test_worker",
        message.subject,
        (message.payload as ActorChange).version,
      );
      const kept = await t.env.runtime.ask(deferredWorkActor, tenant, id, { kind: "get" });
      assert.ok(kept.ok && kept.reply.status === "waiting", JSON.stringify(kept).slice(0, 300));
      t.clock.advanceBy(DEFERRED_WORK_RETRY_MS[0]!);
      await t.env.runtime.fireDueTimers();
      await t.env.bus.flush();
      assert.deepEqual(tried, [message.payload], "the whole message, once");
      const done = await t.env.runtime.ask(deferredWorkActor, tenant, id, { kind: "get" });
      assert.ok(done.ok && done.reply.status === "done");
      assert.equal(done.reply.payload, null, "not kept once done");
    } finally {
      await works.close();
    }
  }));
