/**
 * The live board's feed (ARCHITECTURE "Boards", courier 4.4) without a socket: changes of one
 * alert within a tick coalesced, and a board that stops draining closed instead of buffered.
 */
import assert from "node:assert/strict";
import { MemoryBus } from "../../../src/bus/memory_bus.ts";
import { BoardFeed, CLOSE } from "../../../routes/courier/board.ts";
import { FakeSink } from "../../helpers/feed_sink.ts";

function alertChange(tenant: string, id: string, version: number, status = "open") {
  return {
    env: "live",
    tenant,
    type: "alert",
    id,
    version,
    events: [],
    snapshot: {
      id,
      kind: "no_scan",
      status,
      owner: "courier",
      assigned_to: null,
      subject: { type: "shipment", id: "WB1" },
      waybill: "WB1",
      message: "no scan for 24 h",
      detail: {},
      raised_at: 0,
      raised_by: "system",
      acknowledged_at: null,
      acknowledged_by: null,
      resolved_at: null,
      resolved_by: null,
      resolution: null,
      evidence: null,
      evidence_file: null,
      actions_total: 1,
      last_action: null,
    },
  };
}

Deno.test("board feed: changes of one alert within a tick are coalesced to the latest", async () => {
  const bus = new MemoryBus();
  const sink = new FakeSink();
  const feed = new BoardFeed(sink, { bus, env: "live", tenant: "b1", now: () => 0 });
  try {
    await feed.start();
    for (let v = 1; v <= 5; v++) feed.receive(alertChange("b1", "al_1", v));
    feed.receive(alertChange("b1", "al_2", 1));
    feed.receive(alertChange("b2", "al_3", 1));
    await new Promise((r) => setTimeout(r, 120));
    assert.deepEqual(
      sink.sent.map((m) => m.type === "alert" ? `${m.alert.id}@${m.version}` : m.type),
      ["ready", "al_1@5", "al_2@1"],
    );
  } finally {
    feed.stop();
    await bus.drain();
  }
});

Deno.test("board feed: a board that stops draining is closed with 1013, not buffered", async () => {
  const bus = new MemoryBus();
  const sink = new FakeSink();
  const feed = new BoardFeed(sink, {
    bus,
    env: "live",
    tenant: "b1",
    now: () => 0,
    pendingMax: 10,
    bufferedBytesMax: 100,
  });
  try {
    await feed.start();
    sink.bufferedAmount = 1_000;
    for (let i = 0; i < 10; i++) feed.receive(alertChange("b1", `al_${i}`, 1));
    await new Promise((r) => setTimeout(r, 120));
    assert.equal(sink.closes.length, 0, "ten waiting changes are within the cap");
    assert.deepEqual(sink.sent.map((m) => m.type), ["ready"]);
    feed.receive(alertChange("b1", "al_10", 1));
    assert.deepEqual(sink.closes.map((c) => c.code), [CLOSE.behind]);
    assert.ok(feed.stopped);
  } finally {
    feed.stop();
    await bus.drain();
  }
});
