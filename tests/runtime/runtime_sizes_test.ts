/**
 * The runtime's sizes at the store's edges: a state or an event larger than one store value is
 * split and read back whole; events are chunked by the bytes the store keeps.
 */
import assert from "node:assert/strict";
import { notebookActor, openTestRuntime } from "./fixtures.ts";
import type { ActorChange } from "../../src/bus/bus.ts";

const T = "biz_tenant";

Deno.test("runtime: a state larger than one store value is split, read back whole, and its parts go when it shrinks", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/kv.sqlite`;
  // Multi-byte characters, so parts end mid-character: only the whole is decoded.
  const notes = Array.from({ length: 250 }, (_, i) => `${i}: ${"é€".repeat(300)}`);
  const first = await openTestRuntime(path);
  for (const text of notes) {
    const r = await first.runtime.ask(notebookActor, T, "nb", { kind: "write", text });
    assert.ok(r.ok);
  }
  const past = await first.runtime.ask(notebookActor, T, "nb", {
    kind: "write",
    text: "x".repeat(500_000),
  });
  assert.ok(!past.ok && past.code === "too_large", "past stateBytesMax nothing is written");
  await first.close();
  const partsIn = async () => {
    const kv = await Deno.openKv(path);
    try {
      let n = 0;
      for await (const _ of kv.list({ prefix: ["p", "test_notebook", "nb"] })) n++;
      return n;
    } finally {
      kv.close();
    }
  };
  assert.ok((await partsIn()) >= 4, "the state is stored in several parts");

  const second = await openTestRuntime(path, { clock: first.clock });
  try {
    const r = await second.runtime.ask(notebookActor, T, "nb", { kind: "get" });
    assert.ok(r.ok);
    assert.deepEqual(r.reply, notes);
    assert.ok((await second.runtime.ask(notebookActor, T, "nb", { kind: "clear" })).ok);
    await second.runtime.ask(notebookActor, T, "nb", { kind: "write", text: "small" });
  } finally {
    await second.close();
  }
  assert.equal(await partsIn(), 0, "a state that fits one value again leaves no parts behind");
  const third = await openTestRuntime(path, { clock: first.clock });
  try {
    const r = await third.runtime.ask(notebookActor, T, "nb", { kind: "get" });
    assert.ok(r.ok);
    assert.deepEqual(r.reply, ["small"]);
  } finally {
    await third.close();
    await Deno.remove(dir, { recursive: true });
  }
});

/**
 * Writes `texts` to one notebook in one commit on a KV file, with the bus gone before the publish
 * (a crash between commit and publish); then starts again on that file. Answers what the restart
 * republished from the stored log and what the log reads back from `fromSeq`.
 */
async function notebookCommitAfterCrash(texts: readonly string[], fromSeq = 1) {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/kv.sqlite`;
  const first = await openTestRuntime(path);
  await first.bus.drain();
  const r = await first.runtime.ask(notebookActor, T, "nb", { kind: "write_all", texts });
  assert.ok(r.ok);
  first.store.close();
  const republished: ActorChange[] = [];
  const { MemoryBus } = await import("../../src/bus/memory_bus.ts");
  const bus = new MemoryBus();
  bus.subscribe("test.>", (m) => {
    republished.push(m.payload as ActorChange);
  });
  const second = await openTestRuntime(path, { bus, clock: first.clock });
  try {
    await bus.flush();
    const read: { seq: number; event: unknown }[] = [];
    for await (const e of second.runtime.events(notebookActor, "nb", fromSeq)) {
      read.push({ seq: e.seq, event: e.event });
    }
    const state = await second.runtime.ask(notebookActor, T, "nb", { kind: "get" });
    assert.ok(state.ok);
    assert.deepEqual(state.reply, texts);
    return { republished, read };
  } finally {
    await second.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("runtime: events past Latin-1 are chunked by the bytes the store keeps: two of 20,000 '€' in one commit are stored, read back and republished", async () => {
  // Each is 20,000 UTF-16 units, which Deno KV keeps at two bytes each: together past one value.
  // So is a text with a lone surrogate, though its JSON escapes it in ASCII.
  for (const text of ["€".repeat(20_000), `\ud800${"a".repeat(20_000)}`]) {
    const texts = [text, text];
    const { republished, read } = await notebookCommitAfterCrash(texts);
    const written = texts.map((text) => ({ kind: "written", text }));
    assert.deepEqual(read, written.map((event, i) => ({ seq: i + 1, event })));
    assert.equal(republished.length, 1);
    assert.deepEqual(republished[0]?.events.map((e) => e.event), written);
  }
});

Deno.test("runtime: a chunk counts what the store keeps around each event: 2,000 one-letter notes of one commit are stored and read back", async () => {
  const rt = await openTestRuntime();
  try {
    const texts = Array.from({ length: 2_000 }, (_, i) => String.fromCharCode(97 + (i % 26)));
    assert.ok((await rt.runtime.ask(notebookActor, T, "tiny", { kind: "write_all", texts })).ok);
    const read: unknown[] = [];
    for await (const e of rt.runtime.events(notebookActor, "tiny")) read.push(e.event);
    assert.deepEqual(read, texts.map((text) => ({ kind: "written", text })));
  } finally {
    await rt.close();
  }
});

Deno.test("runtime: an event larger than one store value is stored split, read back whole from any seq, and republished", async () => {
  // About 100,000 bytes as stored, past Latin-1 or not, between small events of the same commit.
  for (const big of ["€".repeat(50_000), "x".repeat(100_000)]) {
    const texts = [big, "between", big, "after"];
    // Read from seq 2: the first big event's parts are passed over.
    const { republished, read } = await notebookCommitAfterCrash(texts, 2);
    const written = texts.map((text) => ({ kind: "written", text }));
    assert.deepEqual(read, written.slice(1).map((event, i) => ({ seq: i + 2, event })));
    assert.equal(republished.length, 1);
    assert.deepEqual(
      republished[0]?.events.map((e) => [e.seq, e.event]),
      written.map((e, i) => [i + 1, e]),
    );
  }
});
