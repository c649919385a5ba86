/**
 * One suite for every `Bus`: the in-process bus always, NATS when NATS_URL is set (STYLE 7, 9).
 * Each test opens its own bus and uses its own subject prefix, so NATS tests never interfere.
 */
import assert from "node:assert/strict";
import type { ActorChange, Bus, BusMessage } from "../../src/bus/mod.ts";
import { subjectOf, subjectPattern } from "../../src/bus/mod.ts";
import {
  busTest,
  collect,
  delay,
  implementations,
  numberIn,
  publishAndSettle,
  subjects,
  uniqueEnv,
  waitFor,
} from "./bus_fixtures.ts";

for (const impl of implementations) {
  const test = (name: string, fn: (bus: Bus, env: string) => Promise<void>) =>
    busTest(impl, name, fn);

  test("publish then subscribe delivers the JSON payload, frozen", async (bus, env) => {
    const received = collect(bus, subjectPattern(env, "biz_1", "shipment"));
    const subject = subjectOf(env, "biz_1", "shipment", "shp_1");
    const change: ActorChange = {
      env,
      tenant: "biz_1",
      type: "shipment",
      id: "shp_1",
      version: 2,
      events: [
        { seq: 1, at: 1_700_000_000_000, event: { kind: "booked", amount: "12.50" } },
        { seq: 2, at: 1_700_000_000_500, event: { kind: "picked_up", note: "gate 2, ünïcødé" } },
      ],
      snapshot: { status: "picked_up", tags: ["fragile"], courier: null },
    };

    await bus.publish(subject, change);
    await bus.flush();
    await waitFor("one delivery", () => received.length === 1);

    const [message] = received;
    assert.ok(message);
    assert.equal(message.subject, subject);
    assert.deepEqual(message.payload, change);
    assert.ok(Object.isFrozen(message.payload));
  });

  test("a subscriber cannot change what another subscriber sees", async (bus, env) => {
    const pattern = subjectPattern(env, "biz_1", "shipment");
    const refused: string[] = [];
    bus.subscribe(pattern, (m) => {
      const change = m.payload as { events: { event: { note: string } }[]; tags: string[] };
      for (
        const mutate of [
          () => change.events[0]!.event.note = "changed",
          () => change.tags.push("x"),
        ]
      ) {
        try {
          mutate();
        } catch (e) {
          refused.push((e as Error).name);
        }
      }
    });
    const seen = collect(bus, pattern);
    const payload = { events: [{ seq: 1, at: 1, event: { note: "as published" } }], tags: ["a"] };
    await bus.publish(subjectOf(env, "biz_1", "shipment", "shp_1"), payload);
    await bus.flush();
    await waitFor("one delivery", () => seen.length === 1);

    assert.deepEqual(refused, ["TypeError", "TypeError"]);
    assert.deepEqual(seen[0]?.payload, {
      events: [{ seq: 1, at: 1, event: { note: "as published" } }],
      tags: ["a"],
    });
  });

  test("`*` matches exactly one token", async (bus, env) => {
    const oneTenant = collect(bus, `${env}.biz_1.business.*`);
    const anyTenant = collect(bus, `${env}.*.business.*`);

    await publishAndSettle(bus, [
      `${env}.biz_1.business`, // no token where `*` stands
      `${env}.biz_1.business.b1.extra`, // two tokens where `*` stands
      `${env}.biz_2.business.b2`,
      `${env}.biz_1.shipment.s1`,
      `${env}.biz_1.business.b1`,
    ], [oneTenant, anyTenant]);

    assert.deepEqual(subjects(oneTenant), [`${env}.biz_1.business.b1`]);
    assert.deepEqual(subjects(anyTenant), [`${env}.biz_2.business.b2`, `${env}.biz_1.business.b1`]);
  });

  test("`>` matches one or more tokens", async (bus, env) => {
    const everything = collect(bus, `${env}.>`);
    const underBiz = collect(bus, `${env}.biz_1.>`);

    await publishAndSettle(bus, [
      env, // `>` needs at least one token
      `${env}.biz_1`,
      `${env}.biz_1.business.b1.deep`,
      `${env}.biz_2.business.b2`,
      `${env}.biz_1.business.b1`,
    ], [everything, underBiz]);

    assert.deepEqual(subjects(everything), [
      `${env}.biz_1`,
      `${env}.biz_1.business.b1.deep`,
      `${env}.biz_2.business.b2`,
      `${env}.biz_1.business.b1`,
    ]);
    assert.deepEqual(subjects(underBiz), [
      `${env}.biz_1.business.b1.deep`,
      `${env}.biz_1.business.b1`,
    ]);
  });

  test("overlapping patterns each get every matching message once, in order", async (bus, env) => {
    const otherEnv = uniqueEnv();
    const everyActor = collect(bus, subjectPattern(env, "*", "*"));
    const shipments = collect(bus, subjectPattern(env, "*", "shipment"));
    const shipmentsAgain = collect(bus, subjectPattern(env, "*", "shipment"));
    const everything = collect(bus, `${env}.>`);
    const underBiz = collect(bus, `${env}.biz_1.>`);
    const envOnly = collect(bus, env);
    const anyEnvShipments = collect(bus, "*.*.shipment.*");
    const alerts = collect(bus, subjectPattern(env, "*", "alert"));
    const elsewhere = collect(bus, `${otherEnv}.>`);

    const a = subjectOf(env, "biz_1", "shipment", "a");
    const b = subjectOf(env, "biz_2", "shipment", "b");
    const client = subjectOf(env, "biz_1", "courier_client", "c");
    const deep = `${a}.deep`;
    await publishAndSettle(bus, [a, b, client, deep, env, b, a], [everything]);

    assert.deepEqual(subjects(everyActor), [a, b, client, b, a]);
    assert.deepEqual(subjects(shipments), [a, b, b, a]);
    assert.deepEqual(subjects(shipmentsAgain), [a, b, b, a]);
    assert.deepEqual(subjects(everything), [a, b, client, deep, b, a]);
    assert.deepEqual(subjects(underBiz), [a, client, deep, a]);
    assert.deepEqual(subjects(envOnly), [env]);
    // Other tests' messages may pass through a pattern for every env.
    assert.deepEqual(subjects(anyEnvShipments).filter((s) => s.startsWith(`${env}.`)), [
      a,
      b,
      b,
      a,
    ]);
    assert.deepEqual(alerts, []);
    assert.deepEqual(elsewhere, []);
    // One parse per message: the handlers share the payload, so none may change it.
    assert.equal(everyActor[0]?.payload, shipments[0]?.payload);
    assert.equal(shipments[0]?.payload, everything[0]?.payload);
  });

  test("a handler subscribed after a publish does not get it", async (bus, env) => {
    const subject = subjectOf(env, "biz_1", "shipment", "shp_1");
    const early = collect(bus, `${env}.>`);
    await bus.publish(subject, { n: 1 });
    // Subscribed while the first message may still be on its way to this process.
    const late = collect(bus, subjectPattern(env, "*", "shipment"));
    await bus.publish(subject, { n: 2 });
    await bus.flush();
    await waitFor("both messages at the early subscriber", () => early.length === 2);

    assert.deepEqual(late.map(numberIn), [2]);
  });

  test("flush waits for a slow handler, which holds up no other handler", async (bus, env) => {
    const subject = subjectOf(env, "biz_1", "shipment", "shp_1");
    let open = () => {};
    const gate = new Promise<void>((resolve) => open = resolve);
    const slow: number[] = [];
    bus.subscribe(subjectPattern(env, "*", "shipment"), async (message) => {
      await gate;
      slow.push(numberIn(message));
    });
    const fast = collect(bus, `${env}.>`);

    // Not awaited one by one: the in-process bus resolves a publish once its handlers ran.
    const published = [1, 2, 3].map((n) => bus.publish(subject, { n }));
    await waitFor("the fast handler got all three", () => fast.length === 3);
    assert.deepEqual(slow, []);

    let flushed = false;
    const flush = bus.flush().then(() => flushed = true);
    await delay(20);
    assert.equal(flushed, false, "flush resolved before the slow handler finished");
    open();
    await flush;
    assert.deepEqual(slow, [1, 2, 3]);
    await Promise.all(published);
  });

  test(
    "a pipelined handler is given each message in order without waiting, and flush waits until it is done with them",
    async (bus, env) => {
      const subject = subjectOf(env, "biz_1", "shipment", "shp_1");
      let open = () => {};
      const gate = new Promise<void>((resolve) => open = resolve);
      const given: number[] = [];
      const done: number[] = [];
      bus.subscribe(subjectPattern(env, "*", "shipment"), (message) => {
        given.push(numberIn(message));
        return gate.then(() => {
          done.push(numberIn(message));
        });
      }, { pipelined: true });

      const published = [1, 2, 3].map((n) => bus.publish(subject, { n }));
      await waitFor("all three given while the first is not done", () => given.length === 3);
      assert.deepEqual(given, [1, 2, 3]);
      assert.deepEqual(done, []);

      let flushed = false;
      const flush = bus.flush().then(() => flushed = true);
      await delay(20);
      assert.equal(flushed, false, "flush resolved before the pipelined handler was done");
      open();
      await flush;
      assert.deepEqual(done, [1, 2, 3]);
      await Promise.all(published);
    },
  );

  test("a change for another tenant or env is not delivered", async (bus, env) => {
    const otherEnv = uniqueEnv();
    const received = collect(bus, subjectPattern(env, "biz_1", "shipment"));

    await publishAndSettle(bus, [
      subjectOf(env, "biz_2", "shipment", "shp_1"),
      subjectOf(otherEnv, "biz_1", "shipment", "shp_1"),
      subjectOf(env, "biz_1", "alert", "shp_1"),
      subjectOf(env, "biz_1", "shipment", "shp_1"),
    ], [received]);

    assert.deepEqual(subjects(received), [subjectOf(env, "biz_1", "shipment", "shp_1")]);
  });

  test(
    "flush resolves only once this instance's handlers finished what was published before",
    async (bus, env) => {
      const subject = `${env}.biz_1.shipment.shp_9`;
      const handled: number[] = [];
      bus.subscribe(subject, async (message) => {
        // A handler that takes a few turns of the event loop, as a projection's database write does.
        for (let i = 0; i < 3; i++) await new Promise((resolve) => setTimeout(resolve, 0));
        handled.push((message.payload as { n: number }).n);
      });
      for (let n = 1; n <= 5; n++) await bus.publish(subject, { n });
      await bus.flush();
      assert.deepEqual(handled, [1, 2, 3, 4, 5]);
    },
  );

  test("unsubscribe stops delivery", async (bus, env) => {
    const subject = `${env}.biz_1.shipment.shp_1`;
    const stopped: BusMessage[] = [];
    const subscription = bus.subscribe(subject, (message) => {
      stopped.push(message);
    });
    const control = collect(bus, subject);

    await bus.publish(subject, { n: 1 });
    await bus.flush();
    await waitFor(
      "first message at both subscribers",
      () => stopped.length === 1 && control.length === 1,
    );

    subscription.unsubscribe();
    await bus.publish(subject, { n: 2 });
    await bus.flush();
    await waitFor("second message at the control subscriber", () => control.length === 2);

    assert.deepEqual(stopped.map((m) => m.payload), [{ n: 1 }]);
  });

  test("1,000 messages to one subject arrive in order", async (bus, env) => {
    const count = 1_000;
    const subject = `${env}.biz_1.shipment.shp_1`;
    const received = collect(bus, subject);

    for (let n = 1; n <= count; n++) await bus.publish(subject, { n });
    await bus.flush();
    await waitFor(`${count} deliveries`, () => received.length >= count);

    const expected = Array.from({ length: count }, (_, i) => ({ n: i + 1 }));
    assert.deepEqual(received.map((m) => m.payload), expected);
  });

  test("an async handler finishes each message before the next starts", async (bus, env) => {
    const subject = `${env}.biz_1.shipment.shp_1`;
    const handled: number[] = [];
    bus.subscribe(subject, async (message) => {
      const n = numberIn(message);
      // The first message is the slowest: a handler run out of turn would finish it last.
      await delay(n === 1 ? 30 : 0);
      handled.push(n);
    });
    for (let n = 1; n <= 3; n++) await bus.publish(subject, { n });
    await bus.flush();
    await waitFor("three handled", () => handled.length === 3);
    assert.deepEqual(handled, [1, 2, 3]);
  });

  test("a throwing handler is logged and later messages still arrive", async (bus, env) => {
    const subject = `${env}.biz_1.shipment.shp_1`;
    const handled: unknown[] = [];
    bus.subscribe(subject, async (message) => {
      await Promise.resolve();
      const n = numberIn(message);
      if (n % 2 === 1) throw new Error(`handler refused: ${n}`);
      handled.push(n);
    });

    const logged: unknown[][] = [];
    const consoleError = console.error;
    console.error = (...args: unknown[]) => logged.push(args);
    try {
      for (let n = 1; n <= 4; n++) await bus.publish(subject, { n });
      await bus.flush();
      await waitFor("both even messages handled", () => handled.length === 2);
    } finally {
      console.error = consoleError;
    }

    assert.deepEqual(handled, [2, 4]);
    const errors = logged.map((args) => args.find((a) => a instanceof Error));
    assert.deepEqual(errors.map((e) => e instanceof Error ? e.message : e), [
      "handler refused: 1",
      "handler refused: 3",
    ]);
  });

  test("a subject built from unsafe tokens reaches its pattern", async (bus, env) => {
    const received = collect(bus, subjectPattern(env, "biz.1", "ship ment"));
    const subject = subjectOf(env, "biz.1", "ship ment", "id*with>wild\tcards");

    await publishAndSettle(bus, [subject], [received]);

    assert.deepEqual(subjects(received), [`${env}.biz_1.ship_ment.id_with_wild_cards`]);
  });

  test("drain lets handlers finish, then publish is refused", async (bus, env) => {
    const subject = `${env}.biz_1.shipment.shp_1`;
    const handled: unknown[] = [];
    bus.subscribe(subject, async (message) => {
      await delay(1); // work in flight while drain runs
      handled.push(message.payload);
    });

    for (let n = 1; n <= 10; n++) await bus.publish(subject, { n });
    await bus.drain();

    assert.equal(handled.length, 10);
    await assert.rejects(bus.publish(subject, { n: 11 }));
    // busTest drains again afterwards: a second drain must be harmless.
  });
}
