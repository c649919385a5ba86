/**
 * The credential cache under a placement of several instances (issue 43 items 2 and 4): only what
 * this instance holds is remembered, so a raised rate limit or a rotated key read from another
 * instance's actor is read from its holder each time, never from a copy waiting on the bus.
 */
import assert from "node:assert/strict";
import { openBus } from "../../../src/bus/mod.ts";
import { CredentialCache, type Owner } from "../../../src/platform/auth/credential_cache.ts";
import { partitionOf } from "../../../src/runtime/placement.ts";
import { SplitPlacement } from "../../helpers/counters_placement.ts";
import { ForwardCluster } from "../../helpers/forward_placement.ts";

/** A business id whose actor falls in a partition of the parity asked. */
function businessIn(parity: 0 | 1): { owner: Owner; partition: number } {
  for (let i = 0;; i++) {
    const partition = partitionOf({ type: "business", id: `biz_${i}` });
    if (partition % 2 === parity) return { owner: `business/biz_${i}`, partition };
  }
}

Deno.test("credential cache: an instance remembers credentials of the actors it holds only, and forgets them when it loses their partition", async () => {
  const placement = new SplitPlacement("a");
  const cache = new CredentialCache({
    bus: await openBus(undefined),
    busPrefix: "live",
    placement,
  });
  try {
    const held = businessIn(0);
    const elsewhere = businessIn(1);
    const remember = (hash: string, owners: Owner[]) =>
      cache.remember("business", hash, { value: { hash }, owners, epoch: cache.epoch });
    remember("h_held", [held.owner]);
    remember("h_elsewhere", [elsewhere.owner]);
    remember("h_both", [held.owner, elsewhere.owner]);
    assert.ok(cache.get("business", "h_held"));
    assert.equal(cache.get("business", "h_elsewhere"), undefined, "read from its holder each time");
    assert.equal(cache.get("business", "h_both"), undefined, "one owner held elsewhere is enough");
    // The lease moves away: what was read from that partition's actors is forgotten at once.
    const epoch = cache.epoch;
    placement.lose(held.partition);
    assert.equal(cache.get("business", "h_held"), undefined);
    cache.remember("business", "h_late", { value: {}, owners: [held.owner], epoch });
    assert.equal(cache.get("business", "h_late"), undefined, "read before the loss");
  } finally {
    await cache.close();
  }
});

Deno.test("credential cache: a key read through another holder is not remembered when its partition comes here meanwhile (the holder's rotation may not be heard yet)", async () => {
  const cluster = new ForwardCluster();
  const cache = new CredentialCache({
    bus: await openBus(undefined),
    busPrefix: "live",
    placement: cluster.placement("b"),
  });
  try {
    // A business "a" holds: b asks a who the key is.
    const elsewhere = businessIn(0);
    const epoch = cache.epoch;
    // Meanwhile a rotates the key, answers, and the lease moves to b before b hears the change
    // on the bus: a's answer read before the rotation must not be kept.
    cluster.move(elsewhere.partition, "b");
    cache.remember("business", "h_old", { value: {}, owners: [elsewhere.owner], epoch });
    assert.equal(cache.get("business", "h_old"), undefined, "read from the previous holder");
    // Read after the move, it is b's own and kept.
    cache.remember("business", "h_new", {
      value: {},
      owners: [elsewhere.owner],
      epoch: cache.epoch,
    });
    assert.ok(cache.get("business", "h_new"));
  } finally {
    await cache.close();
  }
});
