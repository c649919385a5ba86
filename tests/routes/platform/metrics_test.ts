import assert from "node:assert/strict";
import { raiseAlert } from "../../../src/courier/flows/alerts.ts";
import { bookShipment, type Courier, hookedClient, newCourier } from "../../helpers/courier.ts";
import { logLines } from "../../helpers/log_lines.ts";
import { type Receiver, startReceiver, until } from "../../helpers/receiver.ts";
import { OPERATOR_TOKEN, type TestEnv, withTestEnv } from "../../helpers/test_env.ts";

const DAY = 24 * 3600_000;

async function scrape(t: TestEnv): Promise<string> {
  const r = await t.app.request("/api/metrics", {
    headers: { Authorization: `Bearer ${OPERATOR_TOKEN}` },
  });
  assert.equal(r.status, 200);
  assert.match(r.headers.get("Content-Type")!, /^text\/plain; version=0\.0\.4/);
  return await r.text();
}

/** The value of one sample (`name{labels}` as the scrape writes it); absent: null. */
function sample(text: string, series: string): number | null {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? null : Number(line.slice(series.length + 1));
}

/** A booking by a client whose webhook is `receiver`, its `shipment.booked` event delivered. */
async function bookedAndDelivered(t: TestEnv, receiver: Receiver): Promise<Courier> {
  const { courier, client } = await hookedClient(t, receiver.url);
  await bookShipment(t, client);
  // The event is made by a reactor after the commit (settle() waits for projections, not for
  // reactors), then sent by its outbox's handler: on a loaded machine that chain outlasted a
  // fixed number of settling rounds, so this waits for the delivery itself, as other tests do.
  await until(t, () => receiver.deliveries.length > 0, "the booking's webhook");
  await t.settle();
  return courier;
}

Deno.test("metrics: a scrape after a booking shows requests, commits, deliveries, alerts, timers", async () => {
  const receiver = startReceiver();
  try {
    await withTestEnv(async (t) => {
      const before = await scrape(t);
      const booked = 'http_request_duration_seconds_count{method="POST",route="/api/client/book",' +
        'status="201"}';
      assert.equal(sample(before, booked), null);
      const courier = await bookedAndDelivered(t, receiver);
      await raiseNoScan(t, courier);
      await t.settle();
      // Timers of the booking fall due when the clock moves, until the runtime fires them.
      t.clock.advanceBy(2 * DAY);
      const after = await scrape(t);
      assert.equal(sample(after, booked), 1);
      // A latency histogram per route and status: its buckets name both.
      assert.ok(
        after.split("\n").some((l) =>
          l.startsWith("http_request_duration_seconds_bucket{") &&
          l.includes('route="/api/client/book"') && l.includes('status="201"')
        ),
      );
      assert.ok(sample(after, "actor_group_commit_writes_count")! > 0);
      assert.ok(
        sample(after, "actor_group_commit_writes_sum")! >=
          sample(after, "actor_group_commit_writes_count")!,
      );
      assert.ok(sample(after, "actor_group_commit_duration_seconds_count")! > 0);
      assert.ok(sample(after, 'outbound_deliveries_total{outcome="delivered"}')! >= 1);
      assert.equal(sample(after, 'alerts_open{kind="no_scan"}'), 1);
      assert.ok(sample(after, "timers_due")! > 0);
      assert.equal(sample(after, "actor_mailbox_commands"), 0);
      // The scrape itself is the one request being answered.
      assert.equal(sample(after, "http_requests_in_flight"), 1);
      assert.equal(sample(after, "bus_lag_messages"), 0);
      assert.equal(sample(after, 'projection_lag_changes{projection="snapshots"}'), 0);
      assert.equal(sample(after, 'projection_lag_seconds{projection="read_tables"}'), 0);
      await t.env.runtime.fireDueTimers();
      assert.equal(sample(await scrape(t), "timers_due"), 0);
    });
  } finally {
    await receiver.close();
  }
});

/** An alert of kind `no_scan` in the courier's tenant. */
async function raiseNoScan(t: TestEnv, courier: Courier): Promise<string> {
  const alert = await raiseAlert(t.env.runtime, courier.business.id, {
    kind: "no_scan",
    condition_key: "metrics-test",
    owner: "courier",
    subject: { type: "shipment", id: "WB1" },
    waybill: "WB1",
    message: "no physical scan for 26 hours: WB1",
  });
  return alert.id;
}

Deno.test("metrics: the operator token only (401 otherwise), and in the OpenAPI document", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    const none = await t.call("GET", "/metrics");
    assert.equal(none.status, 401);
    assert.equal(none.body.code, "unauthenticated");
    const wrong = await t.call("GET", "/metrics", { bearer: "op_wrong_token_0123456789abcdef" });
    assert.equal(wrong.status, 401);
    const business = await t.call("GET", "/metrics", { key: courier.business.api_key });
    assert.equal(business.status, 401);
    const doc = await t.call("GET", "/api-docs/openapi.json");
    const op = doc.body.paths["/metrics"]?.get;
    assert.ok(op, "GET /metrics is not in the OpenAPI document");
    assert.ok(op.responses["200"].content["text/plain"]);
  }));

Deno.test("log: an outbound attempt and an alert raised each leave a line", async () => {
  const receiver = startReceiver();
  const log = logLines();
  try {
    await withTestEnv(async (t) => {
      const courier = await bookedAndDelivered(t, receiver);
      const alertId = await raiseNoScan(t, courier);
      await t.settle();
      const raised = log.all().filter((l) => l.event === "alert_raised");
      assert.deepEqual(
        raised.map((l) => [l.tenant_id, l.alert_id, l.kind]),
        [[courier.business.id, alertId, "no_scan"]],
      );
      const attempts = log.all().filter((l) => l.event === "outbound_attempt");
      assert.ok(attempts.length >= 1);
      const delivered = attempts.find((l) => l.outcome === "delivered")!;
      assert.equal(delivered.http_status, 200);
      assert.match(delivered.event_id, /^\S+$/);
      assert.equal(delivered.stream, "client_webhook");
      assert.equal(receiver.deliveries[0]!.headers.get("X-Service-Delivery"), delivered.event_id);
      const text = log.raw.join("");
      assert.ok(!text.includes(receiver.deliveries[0]!.body), "a webhook body was logged");
    }, { log: log.destination });
  } finally {
    await receiver.close();
  }
});

Deno.test("log: a failed webhook attempt is a warning line with its failure's kind, and counted failed", async () => {
  // issue 35 item 4: webhook attempts and failures each leave a line; item 5: by outcome.
  const receiver = startReceiver();
  receiver.failFirst = 1;
  const log = logLines();
  try {
    await withTestEnv(async (t) => {
      const courier = await bookedAndDelivered(t, receiver);
      await until(
        t,
        () => log.all().some((l) => l.event === "outbound_attempt"),
        "the failed attempt's line",
      );
      const failed = log.all().filter((l) =>
        l.event === "outbound_attempt" && l.outcome === "failed"
      );
      assert.equal(failed.length, 1, JSON.stringify(log.all().map((l) => l.event)));
      const line = failed[0]!;
      assert.equal(line.level, 40, "a failed attempt is logged as a warning");
      assert.equal(line.tenant_id, courier.business.id);
      assert.equal(line.http_status, 500);
      assert.equal(line.failure, "http_status");
      assert.equal(line.stream, "client_webhook");
      assert.equal(receiver.deliveries[0]!.status, 500);
      assert.equal(receiver.deliveries[0]!.headers.get("X-Service-Delivery"), line.event_id);
      assert.ok(!log.raw.join("").includes(receiver.deliveries[0]!.body), "a body was logged");
      assert.ok(sample(await scrape(t), 'outbound_deliveries_total{outcome="failed"}')! >= 1);
    }, { log: log.destination });
  } finally {
    await receiver.close();
  }
});
