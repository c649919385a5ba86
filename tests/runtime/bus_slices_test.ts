/**
 * A change past one bus message (NATS refuses one past its max_payload) goes as several, in
 * order, each newer than the one before, the last at the change's version.
 */
import assert from "node:assert/strict";
import type {
  ActorChange,
  Bus,
  BusHandler,
  RequestHandler,
  SubscribeOptions,
} from "../../src/bus/bus.ts";
import { MemoryBus } from "../../src/bus/memory_bus.ts";
import { accept, type ActorDefinition } from "../../src/runtime/actor.ts";
import { changeSlices } from "../../src/runtime/bus_slices.ts";
import { BUS_CHANGE_BYTES_MAX } from "../../src/limits.ts";
import { openTestRuntime } from "./fixtures.ts";

const T = "tenant_slices";

function changeWith(events: number, eventChars: number): ActorChange {
  return {
    env: "test",
    tenant: T,
    type: "t",
    id: "a",
    version: events,
    events: Array.from({ length: events }, (_, i) => ({
      seq: i + 1,
      at: 0,
      event: { text: "é".repeat(eventChars) },
    })),
    snapshot: { count: events },
  };
}

const bytesOf = (c: ActorChange) => new TextEncoder().encode(JSON.stringify(c)).length;

Deno.test("bus slices: a change under the bound is one message, untouched", () => {
  const change = changeWith(3, 100);
  const [only, ...rest] = changeSlices(change, undefined, 10_000);
  assert.equal(only, change);
  assert.deepEqual(rest, []);
});

Deno.test("bus slices: a change past the bound is split by UTF-8 bytes, every event once in order, versions rising to the change's", () => {
  // 'é' is two bytes of UTF-8: 20 events of 1,000 bytes each, past a bound of 5,000.
  const change = changeWith(20, 500);
  const slices = changeSlices(change, 1, 5_000 * 100);
  assert.equal(slices.length, 1, "a rough size far under the bound is trusted");
  const split = changeSlices(change, undefined, 5_000);
  assert.ok(split.length >= 4);
  for (const s of split) {
    assert.ok(bytesOf(s) <= 5_000, `${bytesOf(s)} bytes`);
    assert.deepEqual(s.snapshot, change.snapshot);
    assert.equal(s.version, s.events.at(-1)!.seq);
  }
  assert.deepEqual(split.flatMap((s) => s.events), change.events);
  assert.equal(split.at(-1)!.version, change.version);
});

Deno.test("bus slices: an event that cannot fit beside the snapshot is a clear error", () => {
  assert.throws(
    () => changeSlices(changeWith(1, 5_000), undefined, 5_000),
    /change of t a too large for the bus: event 1 takes \d+ bytes beside the snapshot, max \d+/,
  );
});

/** Big events, a small state: changes committed apart, together past one bus message. */
const shouter: ActorDefinition<
  number,
  { kind: "shout"; texts: string[] },
  { text: string },
  number
> = {
  type: "test_shouter",
  version: 1,
  initial: 0,
  decide: (_s, c) => c.kind === "timer" ? accept([]) : accept(c.texts.map((text) => ({ text }))),
  evolve: (s) => s + 1,
  project: (s) => s,
};

/** The in-process bus, failing every publication while `down`. */
class Flaky implements Bus {
  readonly bus = new MemoryBus();
  down = false;
  publish(subject: string, payload: unknown): Promise<void> {
    return this.down ? Promise.reject(new Error("down")) : this.bus.publish(subject, payload);
  }
  subscribe(pattern: string, handler: BusHandler, options?: SubscribeOptions) {
    return this.bus.subscribe(pattern, handler, options);
  }
  flush() {
    return this.bus.flush();
  }
  drain() {
    return this.bus.drain();
  }
  request(subject: string, payload: unknown, options: { timeoutMs: number }) {
    return this.bus.request(subject, payload, options);
  }
  serve(subject: string, handler: RequestHandler) {
    return this.bus.serve(subject, handler);
  }
}

Deno.test("bus slices: events a failed publication kept off the bus, past one message together, are published again in messages under the bound", async () => {
  const bus = new Flaky();
  const rt = await openTestRuntime(":memory:", { bus, definitions: [shouter] });
  const seen: ActorChange[] = [];
  bus.subscribe("test.*.test_shouter.*", (m) => {
    seen.push(m.payload as ActorChange);
  });
  try {
    bus.down = true;
    // Three commits of 400,000 characters of events each: 1.2 MB to publish again at once.
    for (let i = 0; i < 3; i++) {
      const texts = Array.from({ length: 4 }, () => `${i}`.repeat(100_000));
      assert.ok((await rt.runtime.ask(shouter, T, "s", { kind: "shout", texts })).ok);
    }
    assert.equal(seen.length, 0);
    bus.down = false;
    await rt.runtime.close();
    assert.ok(seen.length >= 2, `several messages: ${seen.length}`);
    for (const c of seen) assert.ok(bytesOf(c) <= BUS_CHANGE_BYTES_MAX);
    assert.deepEqual(
      seen.flatMap((c) => c.events.map((e) => e.seq)),
      [...Array(12).keys()].map((i) => i + 1),
    );
    assert.equal(seen.at(-1)!.version, 12);
    assert.deepEqual(await rt.store.unpublished(10), [], "and the marker is gone");
  } finally {
    await rt.close();
  }
});
