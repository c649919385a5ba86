/**
 * Issue 42 item 9: a store written by the code before three fixes (its records made by hand here,
 * in the shapes that code wrote) is brought to today's rules by the passes over old data that an
 * environment runs at start, and running them again changes nothing.
 */
import assert from "node:assert/strict";
import { sealOwner, unseal } from "../../../src/domain/secrets.ts";
import { importDataKey } from "../../../src/domain/secrets.ts";
import { KvActorStore } from "../../../src/runtime/kv_store.ts";
import { PASS_DONE } from "../../../src/runtime/kv_layout.ts";
import type { ActorRecord } from "../../../src/runtime/store.ts";
import type { WebhookSecret } from "../../../src/domain/credentials.ts";
import { nameClaimsFiledBefore } from "../../../src/courier/flows/old_data/claims.ts";
import { restateReturningShipments } from "../../../src/courier/flows/old_data/returning.ts";
import { bindClientSeals } from "../../../src/courier/flows/old_data/seals.ts";
import { bindBusinessSeals } from "../../../src/platform/flows/old_seals.ts";
import { openTestEnv, type TestEnv } from "../../helpers/test_env.ts";
import {
  bookWaybill,
  type Client,
  clientKey,
  type Courier,
  newClient,
  newCourier,
  topUp,
} from "../../helpers/courier.ts";

const HOUR_MS = 3_600_000;

/** Writes an actor's record as it stands in the store, by hand (no runtime: no rule runs). */
async function put(
  store: KvActorStore,
  type: string,
  id: string,
  change: (r: ActorRecord | null) => ActorRecord,
): Promise<void> {
  const stored = await store.load({ type, id });
  const record = change(stored?.record ?? null);
  const recordJson = JSON.stringify(record);
  const r = await store.commit([{
    type,
    id,
    expected: stored?.version ?? null,
    record,
    events: [],
    indexSet: [],
    indexDelete: [],
    timerSet: [],
    timerDelete: [],
    replies: [],
    recordJson,
    recordBytes: recordJson.length,
    unpublishedFrom: null,
  }]);
  assert.ok(r.ok, `wrote ${type} ${id}`);
}

/**
 * A seal as the code before b505d63 made it: AES-GCM with no additional data and no `v`, so it
 * unseals in whatever record it is copied to.
 */
async function oldSeal(key: CryptoKey, secret: string): Promise<{ iv: string; data: string }> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const data = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv },
    key,
    new TextEncoder().encode(secret),
  );
  const b64 = (b: Uint8Array) =>
    btoa(String.fromCharCode(...b)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
  return { iv: b64(iv), data: b64(new Uint8Array(data)) };
}

async function scan(t: TestEnv, courier: Courier, waybill: string, body: Record<string, unknown>) {
  const r = await t.call("POST", `/business/courier/shipments/${waybill}/scans`, {
    key: courier.business.api_key,
    body,
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
}

async function boardRow(t: TestEnv, courier: Courier, waybill: string) {
  await t.settle();
  const r = await t.call("GET", `/business/courier/operations?q=${waybill}`, {
    key: courier.business.api_key,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data[0] as Record<string, unknown>;
}

/** A claim as the route before e67d727 filed it: under an id of its own, not the shipment's. */
function oldClaim(o: {
  id: string;
  courier: string;
  client: string;
  waybill: string;
  kind: string;
  description: string;
  filed_at: number;
}): ActorRecord {
  const state = {
    id: o.id,
    courier_id: o.courier,
    client_id: o.client,
    waybill: o.waybill,
    kind: o.kind,
    amount_minor: 2_500,
    currency: "BWP",
    description: o.description,
    evidence: null,
    window_closes_at: o.filed_at + 30 * 24 * HOUR_MS,
    status: "filed",
    filed_at: o.filed_at,
    filed_by: "api_key",
    decision: null,
    credit: null,
  };
  return { v: 1, tenant: o.courier, state, seq: 1, timers: {}, indexes: [] };
}

interface World {
  readonly courier: Courier;
  readonly client: Client;
  readonly returning: string;
  readonly claimed: string;
  readonly clientSecret: string;
}

/** Today's code makes the world; the test then writes parts of it back as the old code had it. */
async function world(t: TestEnv): Promise<World> {
  const courier = await newCourier(t);
  const client = await newClient(t, courier);
  await topUp(t, courier, client, "2000");
  const returning = await bookWaybill(t, client);
  for (const event of ["collected", "received_at_destination", "out_for_delivery"]) {
    await scan(t, courier, returning, { event, facility_id: "GBE-HUB" });
  }
  await scan(t, courier, returning, { event: "delivery_attempted", note: "nobody home" });
  await scan(t, courier, returning, { event: "returning" });
  const claimed = await bookWaybill(t, client);
  const hook = await t.call("POST", "/client/webhook", {
    headers: clientKey(client),
    body: { url: "http://127.0.0.1:9/hook" },
  });
  assert.equal(hook.status, 201, JSON.stringify(hook.body));
  await t.settle();
  return { courier, client, returning, claimed, clientSecret: hook.body.data.webhook_secret };
}

/** The records the code before each fix stored, written over today's. */
async function writeOldData(store: KvActorStore, w: World, key: CryptoKey, now: number) {
  const courier = w.courier.business.id;
  // Stored returning by the code before f20ab52: the recipient's redelivery still open, so its
  // health waited on the customer.
  await put(store, "shipment", w.returning, (r) => {
    const s = r!.state as Record<string, unknown>;
    const redelivery = {
      name: "redelivery",
      owner: "recipient",
      opened_at: now,
      due_at: now + 16 * HOUR_MS,
      at_risk_at: now + 12 * HOUR_MS,
      at_risk_raised: false,
      overdue_raised: false,
      supplied_at: null,
    };
    const state = {
      ...s,
      milestones: [...(s["milestones"] as unknown[]), redelivery],
      health: "waiting_customer",
      health_reason: "waiting on the recipient to rebook delivery",
      next_milestone: "redelivery",
      next_due_at: redelivery.due_at,
      next_owner: "recipient",
    };
    return { ...r!, state };
  });
  // Filed twice by the route before e67d727 (random ids): the same loss, two claims.
  for (
    const [id, kind, at] of [["clm_old_first", "damage", now], [
      "clm_old_later",
      "loss",
      now + 1,
    ]] as const
  ) {
    await put(store, "claim", id, () =>
      oldClaim({
        id,
        courier,
        client: w.client.id,
        waybill: w.claimed,
        kind,
        description: "Crushed box, bottles broken",
        filed_at: at,
      }));
  }
  // Sealed by the code before b505d63: no `v`, no owner, so it unsealed in any record.
  const businessSeal = await oldSeal(key, w.courier.business.webhook_secret);
  await put(store, "business", courier, (r) => {
    const s = r!.state as { webhook_secret: WebhookSecret };
    const { v: _, ...held } = s.webhook_secret;
    return { ...r!, state: { ...s, webhook_secret: { ...held, ...businessSeal } } };
  });
  const clientSeal = await oldSeal(key, w.clientSecret);
  await put(store, "courier_client", w.client.id, (r) => {
    const s = r!.state as { webhook: { secret: WebhookSecret } };
    const { v: _, ...held } = s.webhook.secret;
    const webhook = { ...s.webhook, secret: { ...held, ...clientSeal } };
    return { ...r!, state: { ...s, webhook } };
  });
}

/**
 * A store the code before the fixes wrote holds no marker of the passes; `first`, today's code,
 * marked them at its start (src/runtime/old_data.ts).
 */
async function forgetOldDataPasses(kvPath: string): Promise<void> {
  const kv = await Deno.openKv(kvPath);
  try {
    for await (const e of kv.list({ prefix: [PASS_DONE] })) {
      if (String(e.key[1]).startsWith("old_data:")) await kv.delete(e.key);
    }
  } finally {
    kv.close();
  }
}

/** What the store holds of an actor's state (as written, before any load). */
async function stored<T>(store: KvActorStore, type: string, id: string): Promise<T> {
  return (await store.load({ type, id }))!.record.state as T;
}

Deno.test("old data: claims, returning shipments and seals stored before their fixes meet today's rules after the start's passes, and a second run changes nothing", async () => {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/kv.sqlite`;
  const dataKey = await importDataKey(crypto.getRandomValues(new Uint8Array(32)));
  const first = await openTestEnv({ kvPath, dataKey });
  let store: KvActorStore | null = null;
  try {
    const w = await world(first);
    const courier = w.courier.business.id;
    const writer = await KvActorStore.open(kvPath);
    await writeOldData(writer, w, dataKey, first.clock.now());
    writer.close();
    await forgetOldDataPasses(kvPath);
    // The board as the code before f20ab52 left it.
    await first.env.db.updateTable("shipments")
      .set({ health: "waiting_customer", next_owner: "recipient" })
      .where("id", "=", w.returning).execute();
    assert.equal((await boardRow(first, w.courier, w.returning))["health"], "waiting_customer");

    // Another instance of the deployment starts on that store: the passes run before it serves.
    const t = await openTestEnv({ alongside: first, dataKey });
    const kv = store = await KvActorStore.open(kvPath);
    try {
      // f20ab52: returning owes the recipient nothing: the board reads the return.
      const row = await boardRow(t, w.courier, w.returning);
      assert.equal(row["health"], "on_schedule", JSON.stringify(row));
      assert.equal(row["health_reason"], "returning to the sender");
      assert.equal(row["next_owner"], "courier");
      const ship = await stored<{ milestones: { name: string }[] }>(kv, "shipment", w.returning);
      assert.ok(
        !ship.milestones.some((m) => m.name === "redelivery"),
        "stored as the rule leaves it",
      );

      // e67d727: one claim a shipment: the first one filed answers for it.
      const file = (body: Record<string, unknown>) =>
        t.call("POST", "/business/courier/claims", {
          key: w.courier.business.api_key,
          body: { waybill: w.claimed, amount: "25.00", ...body },
        });
      const same = await file({ kind: "damage", description: "Crushed box, bottles broken" });
      assert.equal(same.status, 200, JSON.stringify(same.body));
      assert.equal(same.body.data.id, "clm_old_first");
      const second = await file({ kind: "delay", description: "Arrived a week late" });
      assert.equal(second.status, 409, JSON.stringify(second.body));
      assert.equal(second.body.code, "claim_conflict");
      assert.match(second.body.message, /clm_old_first/);

      // b505d63: each seal is bound to its record: it unseals for its owner, nowhere else.
      const biz = await stored<{ webhook_secret: WebhookSecret }>(kv, "business", courier);
      const bizOwner = sealOwner("business_webhook", courier, courier);
      assert.equal(biz.webhook_secret.v, 2);
      assert.equal(
        await unseal(dataKey, biz.webhook_secret, bizOwner),
        w.courier.business.webhook_secret,
      );
      const elsewhere = sealOwner("client_webhook", courier, w.client.id);
      await assert.rejects(() => unseal(dataKey, biz.webhook_secret, elsewhere));
      const cli = await stored<{ webhook: { secret: WebhookSecret } }>(
        store,
        "courier_client",
        w.client.id,
      );
      assert.equal(cli.webhook.secret.v, 2);
      assert.equal(await unseal(dataKey, cli.webhook.secret, elsewhere), w.clientSecret);
      await assert.rejects(() => unseal(dataKey, cli.webhook.secret, bizOwner));
      // The business's audit trail says the service bound them, naming the secret, not its seal.
      const audit = await t.call("GET", "/business/audit-log", { key: w.courier.business.api_key });
      assert.equal(audit.status, 200, JSON.stringify(audit.body));
      const bound = (audit.body.data.entries as { action: string; by: string; detail: unknown }[])
        .filter((e) => e.action === "webhook_seals_bound");
      assert.deepEqual(bound.map((e) => [e.by, e.detail]), [
        ["service", { key_ids: [biz.webhook_secret.key_id] }],
      ]);

      // Run again: nothing to change, nothing written.
      const before = await Promise.all(
        [["shipment", w.returning], ["business", courier], ["courier_client", w.client.id]]
          .map(async ([type, id]) => (await kv.load({ type: type!, id: id! }))!.version),
      );
      const runtime = t.env.runtime;
      assert.deepEqual(
        await Promise.all([
          nameClaimsFiledBefore(runtime),
          restateReturningShipments(runtime),
          bindClientSeals(runtime, dataKey),
          bindBusinessSeals(runtime, dataKey),
        ]),
        [0, 0, 0, 0],
      );
      const after = await Promise.all(
        [["shipment", w.returning], ["business", courier], ["courier_client", w.client.id]]
          .map(async ([type, id]) => (await kv.load({ type: type!, id: id! }))!.version),
      );
      assert.deepEqual(after, before);
    } finally {
      await t.close();
    }
  } finally {
    store?.close();
    await first.close();
    await Deno.remove(dir, { recursive: true });
  }
});
