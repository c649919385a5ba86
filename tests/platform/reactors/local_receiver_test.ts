/**
 * The delivery engine's one seam for a built-in receiver (the sandbox inbox, Business API 4.4): a
 * target whose URL names a receiver is signed as any and handed over in process, never sent; it
 * is delivered once the receiver keeps it, failed when the receiver cannot. Any other URL goes to
 * the network as before.
 */
import assert from "node:assert/strict";
import { seal, sealOwner } from "../../../src/domain/secrets.ts";
import { importDataKey } from "../../../src/domain/secrets.ts";
import { verifyV1, verifyV2 } from "../../../src/domain/signature_verification.ts";
import type { OutboundRequest } from "../../../src/outbound/pinned_post.ts";
import {
  type LocalDelivery,
  type LocalReceiver,
  sendAttempt,
} from "../../../src/platform/reactors/outbound_attempt.ts";
import { ManualClock } from "../../../src/runtime/clock.ts";

const INBOX = "https://inbox.example.invalid/";
const SECRET = "whsec_local_receiver";
const BODY = '{"id":"evt_1","event":"trip.created","data":{"n":"é"}}';

async function setup(receiver: LocalReceiver) {
  const dataKey = await importDataKey(crypto.getRandomValues(new Uint8Array(32)));
  const sealed = await seal(dataKey, SECRET, sealOwner("business_webhook", "biz_1", "biz_1"));
  const sent: OutboundRequest[] = [];
  const deps = {
    dataKey,
    clock: new ManualClock(),
    allowLoopback: false,
    resolve: () => Promise.resolve(["93.184.216.34"]),
    send: (r: OutboundRequest) => {
      sent.push(r);
      return Promise.resolve({ status: 204 });
    },
    targets: (_t: string, _r: unknown) => Promise.resolve(null),
    receivers: (_tenant: string, url: string) => url === INBOX ? receiver : undefined,
  };
  const event = {
    event_id: "evt_1",
    stream: "business_webhook" as const,
    event_type: "trip.created",
    raw_body: BODY,
    recipient: { kind: "business" as const },
  };
  const attempt = (url: string) =>
    sendAttempt(deps, "biz_1", event, "att_1", { url, key_id: "k1", sealed_secret: sealed });
  return { attempt, sent };
}

Deno.test("local receiver: a target naming it gets the exact body and signed headers, in process", async () => {
  const got: LocalDelivery[] = [];
  const { attempt, sent } = await setup((d) => {
    got.push(d);
    return Promise.resolve();
  });
  const outcome = await attempt(INBOX);
  assert.deepEqual(outcome, { result: "delivered", http_status: 200, receiver: INBOX });
  assert.equal(sent.length, 0, "nothing reached the network");
  const [d] = got;
  assert.equal(d!.body, BODY);
  assert.deepEqual([d!.tenant, d!.event_id, d!.event_type, d!.attempt_id], [
    "biz_1",
    "evt_1",
    "trip.created",
    "att_1",
  ]);
  const h = d!.headers;
  assert.equal(h["X-Service-Delivery"], "evt_1");
  assert.deepEqual(await verifyV1(SECRET, d!.body, h["X-Service-Signature"]!), { ok: true });
  const ts = Number(h["X-Service-Timestamp"]);
  assert.deepEqual(await verifyV2(SECRET, d!.body, h["X-Service-Signature-V2"]!, ts), {
    ok: true,
  });

  // Any other URL is the network's, as before.
  const other = await attempt("https://hooks.example.com/h");
  assert.deepEqual(other, { result: "delivered", http_status: 204 });
  assert.equal(sent.length, 1);
  assert.equal(got.length, 1);
});

Deno.test("local receiver: one that cannot keep the delivery fails the attempt, to be retried", async () => {
  const { attempt } = await setup(() => Promise.reject(new Error("store closed")));
  const outcome = await attempt(INBOX);
  assert.equal(outcome.result, "failed");
  assert.match((outcome as { error: string }).error, /receiver_failed: store closed/);
});
