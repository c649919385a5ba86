/** The delivery engine as each environment runs it: a due event is sent without anyone asking. */
import assert from "node:assert/strict";
import { outboundEventActor } from "../../actors/platform/outbound_event/mod.ts";
import { seal, sealOwner } from "../../src/domain/secrets.ts";
import { verifyV2 } from "../../src/domain/signature_verification.ts";
import { withTestEnv } from "../helpers/test_env.ts";

const SECRET = "whsec_wiring_test_secret";
const DELIVERY_WAIT_MS_MAX = 10_000;

Deno.test("outbound: an environment delivers a due event and records it delivered", () =>
  withTestEnv(async (t) => {
    const received: { body: string; signature: string | null; at: number }[] = [];
    const receiver = Deno.serve(
      { port: 0, hostname: "127.0.0.1", onListen: () => {} },
      async (req) => {
        received.push({
          body: await req.text(),
          signature: req.headers.get("X-Service-Signature-V2"),
          at: Number(req.headers.get("X-Service-Timestamp")),
        });
        return new Response("ok");
      },
    );
    try {
      const raw = JSON.stringify({ event: "shipment.delivered", waybill: "WBTEST" });
      const created = await t.env.runtime.ask(outboundEventActor, "biz_wiring", "evt_wiring_1", {
        kind: "create",
        event: {
          event_id: "evt_wiring_1",
          stream: "client_webhook",
          event_type: "shipment.delivered",
          raw_body: raw,
          target: {
            url: `http://127.0.0.1:${receiver.addr.port}/hook`,
            key_id: "key_1",
            sealed_secret: await seal(
              t.env.dataKey,
              SECRET,
              sealOwner("outbound_target", "biz_wiring", "evt_wiring_1"),
            ),
          },
        },
      });
      assert.ok(created.ok);
      // The first attempt is due now: the operator's clock advance fires it and pumps.
      await t.call("POST", "/operator/clock/advance", { operator: true, body: { seconds: 0 } });
      // On NATS the due notice travels the network; the environment's own pump loop catches up.
      const deadline = Date.now() + DELIVERY_WAIT_MS_MAX;
      while (received.length === 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.equal(received.length, 1);
      assert.equal(received[0]!.body, raw);
      const verdict = await verifyV2(SECRET, raw, received[0]!.signature, received[0]!.at);
      assert.deepEqual(verdict, { ok: true });
      // The outcome is recorded once the receiver's answer is read: wait for that commit.
      const status = async () => {
        const after = await t.env.runtime.ask(outboundEventActor, "biz_wiring", "evt_wiring_1", {
          kind: "get",
        });
        return after.ok ? after.reply?.status : undefined;
      };
      while ((await status()) !== "delivered" && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.equal(await status(), "delivered");
    } finally {
      await receiver.shutdown();
    }
  }));
