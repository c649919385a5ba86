/**
 * Request/reply on every `Bus` (forwarded asks, src/runtime/forwarding.ts): the in-process bus
 * always, NATS when NATS_URL is set, asked from another connection and from the serving one.
 */
import assert from "node:assert/strict";
import {
  type Bus,
  NoResponders,
  partitionSubject,
  RequestTimeout,
  subjectOf,
} from "../../src/bus/bus.ts";
import { implementations, uniqueEnv } from "./bus_fixtures.ts";

Deno.test("bus: a partition's subject has its own first token, off every change feed", () => {
  assert.equal(partitionSubject("live_abc", 7), "forward.live_abc.7");
  assert.equal(partitionSubject("live.x y", 0), "forward.live_x_y.0");
  assert.throws(() => partitionSubject("live", -1), RangeError);
  assert.throws(() => partitionSubject("live", 1.5), RangeError);
  assert.notEqual(partitionSubject("live", 1).split(".")[0], subjectOf("live", "t", "a", "1")[0]);
});

for (const impl of implementations) {
  // The in-process bus has one "connection": every instance of the process shares it.
  const askers = impl.name === "memory"
    ? ["the serving connection"] as const
    : ["another connection", "the serving connection"] as const;
  for (const asker of askers) {
    Deno.test(`bus (${impl.name}): request/reply from ${asker}: the JSON answer, no responders, a silent handler times out`, async () => {
      const server = await impl.open();
      const client: Bus = asker === "another connection" ? await impl.open() : server;
      try {
        const subject = partitionSubject(uniqueEnv(), 3);
        const asked: unknown[] = [];
        const sub = server.serve(subject, (payload) => {
          asked.push(payload);
          const n = (payload as { n: number }).n;
          return Promise.resolve({ doubled: n * 2, nested: { list: [n, null, "x"] } });
        });
        await server.flush(); // the server has the subscription before anyone asks
        const payload = { n: 21 };
        const answer = await client.request(subject, payload, { timeoutMs: 2_000 });
        assert.deepEqual(answer, { doubled: 42, nested: { list: [21, null, "x"] } });
        assert.deepEqual(asked, [payload]);
        assert.notEqual(asked[0], payload, "a copy crossed, as on the wire");

        sub.unsubscribe();
        await server.flush();
        await assert.rejects(
          () => client.request(subject, payload, { timeoutMs: 2_000 }),
          (e) => e instanceof NoResponders && e.subject === subject,
        );

        const silent = partitionSubject(uniqueEnv(), 4);
        server.serve(silent, () => Promise.reject(new Error("fails on purpose")));
        await server.flush();
        await assert.rejects(
          () => client.request(silent, payload, { timeoutMs: 30 }),
          (e) => e instanceof RequestTimeout && e.timeoutMs === 30,
        );
      } finally {
        if (client !== server) await client.drain();
        await server.drain();
      }
    });
  }
}
