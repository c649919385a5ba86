/**
 * The operator's webhook ports (PUT /operator/settings `webhook_ports`): an address on 8443 is
 * refused when saved and at the attempt until the operator allows the port, and again once the
 * operator removes it; a port that is never safe cannot be allowed.
 */
import assert from "node:assert/strict";
import {
  type OutboundEvent,
  outboundEventActor,
} from "../../../actors/platform/outbound_event/mod.ts";
import { seal, sealOwner } from "../../../src/domain/secrets.ts";
import type { OutboundRequest } from "../../../src/outbound/pinned_post.ts";
import { webhookPorts } from "../../../src/platform/flows/webhook_urls.ts";
import { sendAttempt } from "../../../src/platform/reactors/outbound_attempt.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";

const URL_8443 = "https://hooks.example.com:8443/h";

/** An event whose fixed target is URL_8443, as its actor would hold it. */
async function eventTo8443(t: TestEnv, tenant: string): Promise<OutboundEvent> {
  const eventId = "evt_ports_1";
  const sealed = await seal(
    t.env.dataKey,
    "whsec_ports",
    sealOwner("outbound_target", tenant, eventId),
  );
  return outboundEventActor.evolve(null, {
    kind: "created",
    at: t.clock.now(),
    event: {
      event_id: eventId,
      stream: "billing",
      event_type: "ledger.entry_posted",
      raw_body: "{}",
      target: { url: URL_8443, key_id: "key_1", sealed_secret: sealed },
    },
  })!;
}

Deno.test("webhook ports: 8443 is refused, accepted once the operator allows it, refused again once removed", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const sent: OutboundRequest[] = [];
    const deps = {
      dataKey: t.env.dataKey,
      clock: t.clock,
      allowLoopback: false,
      allowedPorts: () => webhookPorts(t.env.runtime),
      resolve: () => Promise.resolve(["93.184.216.34"]),
      send: (r: OutboundRequest) => {
        sent.push(r);
        return Promise.resolve({ status: 200 });
      },
    };
    const event = await eventTo8443(t, b.id);
    const attempt = () => sendAttempt(deps, b.id, event, `att_${sent.length}`);
    const save = () =>
      t.call("PATCH", "/business/profile", { key: b.api_key, body: { webhook_url: URL_8443 } });
    const allow = async (ports: number[]) => {
      const r = await t.call("PUT", "/operator/settings", {
        operator: true,
        body: { webhook_ports: ports },
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual(r.body.data.webhook_ports, ports);
    };

    const before = await t.call("GET", "/operator/settings", { operator: true });
    assert.deepEqual(before.body.data.webhook_ports, []);
    const refused = await save();
    assert.equal(refused.status, 422);
    assert.equal(refused.body.code, "validation_failed");
    assert.match(JSON.stringify(refused.body), /a port the operator allows: 8443/);
    assert.deepEqual(await attempt(), {
      result: "failed",
      http_status: null,
      error: "url_refused: must use the HTTPS port (443) or a port the operator allows: 8443",
    });
    assert.equal(sent.length, 0);

    await allow([8443]);
    const saved = await save();
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    assert.equal(saved.body.data.webhook_url, URL_8443);
    assert.deepEqual(await attempt(), { result: "delivered", http_status: 200 });
    assert.equal(sent.length, 1);
    assert.equal(sent[0]!.url.port, "8443");

    // Removed: the address saved while it was allowed is refused at the next attempt.
    await allow([]);
    const outcome = await attempt();
    assert.equal(outcome.result === "failed" && outcome.error?.startsWith("url_refused: "), true);
    assert.equal(sent.length, 1);
    assert.equal((await save()).status, 422);
  }));

Deno.test("webhook ports: a port that is never safe is refused by name, and nothing changes", () =>
  withTestEnv(async (t) => {
    await t.call("PUT", "/operator/settings", { operator: true, body: { webhook_ports: [8443] } });
    for (const [port, why] of [[22, /system port/], [6379, /Redis/], [70_000, /.+/]] as const) {
      const r = await t.call("PUT", "/operator/settings", {
        operator: true,
        body: { webhook_ports: [9443, port] },
      });
      assert.equal(r.status, 422, String(port));
      assert.equal(r.body.code, "validation_failed");
      assert.equal(r.body.errors[0].path, "webhook_ports.1");
      assert.match(r.body.errors[0].message, why);
    }
    const settings = await t.call("GET", "/operator/settings", { operator: true });
    assert.deepEqual(settings.body.data.webhook_ports, [8443]);
    const duplicated = await t.call("PUT", "/operator/settings", {
      operator: true,
      body: { webhook_ports: [9443, 8443, 9443] },
    });
    assert.deepEqual(duplicated.body.data.webhook_ports, [8443, 9443]);
  }));
