/**
 * Business API 1.3: what may leave an environment is one decision. Live sends; the sandbox is
 * deny-by-default: webhooks (to registered addresses) only, every message channel and payment
 * gateway refused before a connection is opened.
 */
import assert from "node:assert/strict";
import { MESSAGE_CHANNELS } from "../../src/domain/messages.ts";
import {
  egressPolicyOf,
  EgressRefused,
  egressSend,
  messageDisposition,
} from "../../src/outbound/egress.ts";
import type { OutboundRequest } from "../../src/outbound/pinned_post.ts";

const request: OutboundRequest = {
  url: new URL("https://hooks.example.com/in"),
  addresses: ["93.184.216.34"],
  headers: {},
  body: "{}",
  signal: new AbortController().signal,
};

Deno.test("egress: the sandbox sends webhooks and refuses every message channel at the sender", () => {
  const sandbox = egressPolicyOf("sandbox");
  const live = egressPolicyOf("live");
  for (const channel of MESSAGE_CHANNELS) {
    assert.deepEqual(messageDisposition(live, channel), { status: "queued" });
    const refused = messageDisposition(sandbox, channel);
    assert.equal(refused.status, "refused", channel);
    assert.match(refused.status === "refused" ? refused.reason : "", new RegExp(`^${channel} `));
  }
});

Deno.test("egress: a refused kind never reaches the transport; an allowed one does", async () => {
  const sent: OutboundRequest[] = [];
  const transport = (r: OutboundRequest) => {
    sent.push(r);
    return Promise.resolve({ status: 200 });
  };
  const sandbox = egressPolicyOf("sandbox");
  assert.deepEqual(await egressSend(sandbox, "webhook", transport)(request), { status: 200 });
  await assert.rejects(
    () => egressSend(sandbox, "payment_gateway", transport)(request),
    EgressRefused,
  );
  await assert.rejects(() => egressSend(sandbox, "sms", transport)(request), /sms refused/);
  assert.equal(sent.length, 1);
  const live = egressPolicyOf("live");
  assert.deepEqual(await egressSend(live, "payment_gateway", transport)(request), { status: 200 });
});
