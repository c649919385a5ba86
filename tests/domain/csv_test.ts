import assert from "node:assert/strict";
import { parse } from "csv-parse/sync";
import { csvStream } from "../../src/domain/csv.ts";

Deno.test("csvStream: the header, then every row in order, read a chunk at a time", async () => {
  let read = 0;
  async function* rows() {
    for (let i = 0; i < 25; i++) {
      read++;
      yield { n: i, name: i === 3 ? 'a "quoted", name' : `row ${i}` };
    }
  }
  const stream = await csvStream(["n", "name"], rows(), (r) => [String(r.n), r.name], 10);
  // The first row is read before answering (a failing source fails before a 200), no more.
  assert.equal(read, 1);
  const reader = stream.getReader();
  const pieces: string[] = [];
  const decoder = new TextDecoder();
  const readsAfterPiece: number[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    pieces.push(decoder.decode(value));
    readsAfterPiece.push(read);
  }
  // Memory holds one chunk: the source is never read further ahead than the piece being written.
  assert.deepEqual(readsAfterPiece.slice(0, 4), [1, 10, 20, 25]);
  const records = parse(pieces.join("")) as string[][];
  assert.deepEqual(records[0], ["n", "name"]);
  assert.deepEqual(records.slice(1).map((r) => Number(r[0])), [...Array(25).keys()]);
  assert.equal(records[4]![1], 'a "quoted", name');
});

Deno.test("csvStream: cancelling the answer closes the source", async () => {
  let closed = false;
  async function* rows() {
    try {
      for (let i = 0;; i++) yield i;
    } finally {
      closed = true;
    }
  }
  const stream = await csvStream(["n"], rows(), (n) => [String(n)], 5);
  const reader = stream.getReader();
  await reader.read();
  await reader.read();
  await reader.cancel();
  assert.equal(closed, true);
});
