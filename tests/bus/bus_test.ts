/** Subject names, opening a bus from the configuration, and what only the NATS bus does (several instances, a flush released by unsubscribing). */
import assert from "node:assert/strict";
import { openBus, subjectOf, subjectPattern } from "../../src/bus/mod.ts";
import { MemoryBus } from "../../src/bus/memory_bus.ts";
import { NatsBus } from "../../src/bus/nats_bus.ts";
import { collect, delay, subjects, uniqueEnv, waitFor } from "./bus_fixtures.ts";

const natsUrl = Deno.env.get("NATS_URL");

Deno.test("subjectOf: joins env, tenant, type and id with dots", () => {
  assert.equal(subjectOf("live", "biz_1", "shipment", "shp_1"), "live.biz_1.shipment.shp_1");
});

Deno.test("subjectOf: replaces `.`, `*`, `>` and white space in a token with `_`", () => {
  assert.equal(subjectOf("live", "biz.1", "ship ment", "a*b>c"), "live.biz_1.ship_ment.a_b_c");
  assert.equal(subjectOf("sand\tbox", "biz\n1", "a\u00a0b", "*"), "sand_box.biz_1.a_b._");
  assert.equal(subjectOf("live", ">", "..", " "), "live._.__._");
});

Deno.test("subjectOf: refuses an empty token in any position", () => {
  const cases = [
    ["", "biz_1", "shipment", "shp_1"],
    ["live", "", "shipment", "shp_1"],
    ["live", "biz_1", "", "shp_1"],
    ["live", "biz_1", "shipment", ""],
  ];
  for (const [env = "", tenant = "", type = "", id = ""] of cases) {
    assert.throws(
      () => subjectOf(env, tenant, type, id),
      RangeError,
      `accepted: ${[env, tenant, type, id].join("|")}`,
    );
  }
});

Deno.test("subjectPattern: keeps `*` as a wildcard and sanitizes other tokens", () => {
  assert.equal(subjectPattern("live", "*", "*"), "live.*.*.*");
  assert.equal(subjectPattern("live", "biz.1", "shipment"), "live.biz_1.shipment.*");
  assert.throws(() => subjectPattern("", "*", "*"), RangeError);
});

Deno.test("openBus: no NATS URL gives the in-process bus", async () => {
  const bus = await openBus(undefined);
  try {
    assert.ok(bus instanceof MemoryBus);
  } finally {
    await bus.drain();
  }
});

if (natsUrl) {
  // NATS only: the in-process bus's flush waits for every handler call under way, unsubscribed or not.
  Deno.test("bus (nats): each instance's handlers get every message once, its own and another instance's", async () => {
    const a = await NatsBus.connect(natsUrl);
    const b = await NatsBus.connect(natsUrl);
    try {
      const env = uniqueEnv();
      const onA = collect(a, `${env}.>`);
      const onB = collect(b, `${env}.>`);
      await a.flush();
      await b.flush();
      await a.publish(subjectOf(env, "biz_1", "shipment", "from_a"), { n: 1 });
      await b.publish(subjectOf(env, "biz_1", "shipment", "from_b"), { n: 2 });
      await a.flush();
      await b.flush();
      await waitFor("both on both", () => onA.length === 2 && onB.length === 2);
      await delay(50); // no echo arrives late as a second copy
      for (const received of [onA, onB]) {
        assert.deepEqual(subjects(received).sort(), [
          subjectOf(env, "biz_1", "shipment", "from_a"),
          subjectOf(env, "biz_1", "shipment", "from_b"),
        ]);
      }
    } finally {
      await a.drain();
      await b.drain();
    }
  });

  Deno.test("bus (nats): unsubscribe releases a flush waiting for that handler", async () => {
    const bus = await NatsBus.connect(natsUrl);
    let open = () => {};
    const gate = new Promise<void>((resolve) => open = resolve);
    try {
      const subject = subjectOf(uniqueEnv(), "biz_1", "shipment", "shp_1");
      let entered = false;
      const stuck = bus.subscribe(subject, async () => {
        entered = true;
        await gate;
      });
      await bus.publish(subject, { n: 1 });
      await bus.publish(subject, { n: 2 });
      await waitFor("the handler holds the first message", () => entered);

      // One flush already waits for the handler, the other still for the server.
      const flushes = [bus.flush()];
      await delay(20);
      flushes.push(bus.flush());
      stuck.unsubscribe();
      let released = false;
      void Promise.all(flushes).then(() => released = true);
      await waitFor("both flushes released", () => released);
    } finally {
      open();
      await bus.drain();
    }
  });

  Deno.test("openBus: a NATS URL gives the NATS bus", async () => {
    const bus = await openBus(natsUrl);
    try {
      assert.ok(bus instanceof NatsBus);
    } finally {
      await bus.drain();
    }
  });
}
