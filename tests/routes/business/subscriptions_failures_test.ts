/**
 * Business API 4.2 recurring deliveries over HTTP, occurrences that cannot be booked: a booking
 * failing for a passing reason (an actor too busy, a store failing) is tried again a bounded number
 * of times, then the occurrence is shown failed with its reason, and nothing is tried again.
 */
import assert from "node:assert/strict";
import { busyAsks, commandKind } from "../../helpers/faults.ts";
import { outboxRetryDue } from "../../helpers/outbox_retry.ts";
import { withTestEnv } from "../../helpers/test_env.ts";
import { walletActor } from "../../../actors/platform/wallet.ts";
import { SUBSCRIPTION_OCCURRENCE_ATTEMPTS_MAX } from "../../../src/limits.ts";
import { fundedBusiness } from "./trips_fixtures.ts";
import { advanceAndBook, HOUR, subscribe } from "./subscription_fixtures.ts";

// spec: business 4.2 (OpenAPI: each occurrence is booked once; a refused one is shown in
// occurrences): a failure that never passes is not retried for ever, nor left "booking" unseen.
Deno.test("subscriptions: an occurrence whose booking keeps failing is tried a bounded number of times, then shown failed", () =>
  withTestEnv(async (t) => {
    const b = await fundedBusiness(t);
    const s = (await subscribe(t, b.api_key)).body.data;
    // The wallet's mailbox is full at every charge: each attempt fails, none is refused.
    const busy = busyAsks(t.env.runtime, commandKind("debit", walletActor.type), 1_000);
    await advanceAndBook(t, 23 * HOUR);
    for (let failures = 1; failures < SUBSCRIPTION_OCCURRENCE_ATTEMPTS_MAX; failures++) {
      const read = await t.call("GET", `/business/subscriptions/${s.id}`, { key: b.api_key });
      assert.equal(read.body.data.occurrences[0].status, "booking", `after ${failures} failures`);
      outboxRetryDue(t.clock, failures);
      await t.env.runtime.sweepOutboxes();
      await t.env.runtime.outboxesIdle();
    }
    assert.equal(busy(), SUBSCRIPTION_OCCURRENCE_ATTEMPTS_MAX, "one charge an attempt");
    const got = (await t.call("GET", `/business/subscriptions/${s.id}`, { key: b.api_key }))
      .body.data;
    assert.deepEqual(got.occurrences.map((o: { status: string }) => o.status), ["failed"]);
    assert.deepEqual(got.occurrences[0].refusal, {
      code: "booking_failed",
      message: `not booked after ${SUBSCRIPTION_OCCURRENCE_ATTEMPTS_MAX} attempts; the last: ` +
        "actor_busy",
    });
    assert.equal(got.occurrences[0].trip_reference, null);
    outboxRetryDue(t.clock, SUBSCRIPTION_OCCURRENCE_ATTEMPTS_MAX);
    assert.equal(await t.env.runtime.sweepOutboxes(), 0, "nothing left to retry");
    assert.equal(busy(), SUBSCRIPTION_OCCURRENCE_ATTEMPTS_MAX);
    assert.equal(got.status, "active", "the next days are still booked");
  }));
