/**
 * Who handles a message of a partition (bus.ts HandledBy, issue 43 item 3), on every bus: a
 * holder's handler takes only the partitions it holds, a per-instance one every message, and a
 * message naming no partition reaches both. Over NATS the partition crosses to the other
 * connection in a header. And every subscription in src/ says which kind it is.
 */
import assert from "node:assert/strict";
import type { Bus, BusMessage, Holding } from "../../src/bus/bus.ts";
import { EVERY_INSTANCE, subjectOf, subjectPattern } from "../../src/bus/bus.ts";
import { implementations, uniqueEnv, waitFor } from "./bus_fixtures.ts";

const EVEN: Holding = { held: (p) => p % 2 === 0 ? 1 : undefined };

for (const impl of implementations) {
  Deno.test(`bus (${impl.name}): a holder's handler takes its partitions only, a per-instance one all, and a message of no partition reaches both`, async () => {
    // Publisher and subscribers on two connections where the bus has them (NATS).
    const publisher = await impl.open();
    const subscriber: Bus = impl.name === "memory" ? publisher : await impl.open();
    const env = uniqueEnv();
    try {
      const held: BusMessage[] = [];
      const every: BusMessage[] = [];
      const pattern = subjectPattern(env, "*", "job");
      subscriber.subscribe(pattern, (m) => void held.push(m), { handledBy: EVEN });
      subscriber.subscribe(pattern, (m) => void every.push(m), { handledBy: EVERY_INSTANCE });
      await subscriber.flush();
      for (const partition of [0, 1, 2, 3]) {
        await publisher.publish(subjectOf(env, "t", "job", `j${partition}`), { partition }, {
          partition,
        });
      }
      await publisher.publish(subjectOf(env, "t", "job", "none"), { partition: null });
      await publisher.flush();
      await waitFor("every message", () => every.length === 5);
      await subscriber.flush();
      assert.deepEqual(held.map((m) => m.partition), [0, 2, undefined]);
      assert.deepEqual(every.map((m) => m.partition), [0, 1, 2, 3, undefined]);
    } finally {
      await publisher.drain();
      if (subscriber !== publisher) await subscriber.drain();
    }
  });
}

Deno.test("bus: every subscription in src/ says who handles a partition's message (handledBy)", async () => {
  const missing: string[] = [];
  const root = new URL("../../", import.meta.url);
  for await (const path of sourceFiles("src", root)) {
    if (path.startsWith("src/bus/")) continue; // the bus itself, and its keyed subscribers
    const text = await Deno.readTextFile(new URL(path, root));
    for (const call of text.matchAll(/\.subscribe\(/g)) {
      // The call's text up to its closing parenthesis at depth 0.
      let depth = 0;
      let end = call.index! + ".subscribe".length;
      for (; end < text.length; end++) {
        if (text[end] === "(") depth++;
        else if (text[end] === ")" && --depth === 0) break;
      }
      if (!text.slice(call.index!, end).includes("handledBy")) {
        missing.push(`${path}:${text.slice(0, call.index!).split("\n").length}`);
      }
    }
  }
  assert.deepEqual(missing, []);
});

/** The .ts files under `dir` (relative to `root`), as paths relative to `root`. */
async function* sourceFiles(dir: string, root: URL): AsyncIterable<string> {
  for await (const e of Deno.readDir(new URL(dir, root))) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) yield* sourceFiles(path, root);
    else if (path.endsWith(".ts")) yield path;
  }
}
