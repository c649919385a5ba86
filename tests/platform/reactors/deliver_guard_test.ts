/**
 * Where the outbound delivery engine sends: a redirect is a failed attempt, never followed, and a
 * name resolving to a private address is refused at attempt time.
 */
import assert from "node:assert/strict";
import type { OutboundRequest } from "../../../src/outbound/pinned_post.ts";
import { create, MINUTE, newEvent, openHarness, openReceiver, setup } from "./deliver_fixtures.ts";

Deno.test("outbound delivery: a 302 is a failed attempt and the redirect is never followed", async () => {
  const { clock, dataKeyP } = setup();
  const dataKey = await dataKeyP;
  const receiver = openReceiver([302]);
  const h = await openHarness({ clock, dataKey });
  try {
    const event = await newEvent(dataKey, receiver.url);
    await create(h, event);
    assert.equal(await h.step(), 1);
    assert.deepEqual(receiver.hits.map((x) => x.path), ["/hook"]);
    const stored = await h.get(event.event_id);
    assert.equal(stored.status, "pending");
    assert.deepEqual(stored.attempts[0]!.outcome, {
      result: "failed",
      http_status: 302,
      error: null,
    });
    assert.equal(stored.next_attempt_at, stored.attempts[0]!.at + MINUTE);
  } finally {
    await h.close();
    await receiver.close();
  }
});

Deno.test("outbound delivery: a name resolving to a private address is refused at attempt time", async () => {
  const { clock, dataKeyP } = setup();
  const dataKey = await dataKeyP;
  const sent: OutboundRequest[] = [];
  const table: Record<string, string[]> = { "hooks.example.com": ["93.184.215.14"] };
  const h = await openHarness({
    clock,
    dataKey,
    allowLoopback: false,
    resolve: (host) => Promise.resolve(table[host] ?? []),
    send: (request) => {
      sent.push(request);
      return Promise.resolve({ status: 200 });
    },
  });
  try {
    const event = await newEvent(dataKey, "https://hooks.example.com/billing");
    await create(h, event);
    // The name was public when saved; it now points inward (DNS rebinding).
    table["hooks.example.com"] = ["10.0.0.7"];
    assert.equal(await h.step(), 1);
    assert.equal(sent.length, 0, "nothing is sent to a refused target");
    const stored = await h.get(event.event_id);
    const outcome = stored.attempts[0]!.outcome;
    assert.equal(outcome.result, "failed");
    assert.ok(outcome.result === "failed" && outcome.error?.startsWith("url_refused: "));
    assert.ok(!outcome.error?.includes("10.0.0.7"), "the tenant's outbox is not told the address");
    assert.equal(stored.status, "pending");
    // Public again at the next attempt: sent.
    table["hooks.example.com"] = ["93.184.215.14"];
    clock.advanceBy(MINUTE);
    assert.equal(await h.step(), 1);
    assert.equal(sent.length, 1);
    // Sent to the address just checked, not to a name resolved again.
    assert.deepEqual(sent[0]!.addresses, ["93.184.215.14"]);
    assert.equal(sent[0]!.url.hostname, "hooks.example.com");
    assert.equal((await h.get(event.event_id)).status, "delivered");
  } finally {
    await h.close();
  }
});
