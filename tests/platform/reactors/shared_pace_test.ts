/**
 * The outbound backlog's pace held across instances (issue 43 item 4, issue 42 item 4): two
 * instances, each holding half the partitions, pace one recipient's backlog spread over both out
 * of one Postgres, so it gets the bound a second in all, not the bound per instance. Postgres
 * only (DATABASE_URL): on the embedded defaults each instance paces in its memory, as
 * fair_pump_test.ts shows, and so does each while the database fails.
 */
import assert from "node:assert/strict";
import { Kysely } from "kysely";
import { PostgresJSDialect } from "kysely-postgres-js";
import postgres from "postgres";
import {
  type NewOutboundEvent,
  outboundEventActor,
  type Recipient,
} from "../../../actors/platform/outbound_event/mod.ts";
import { importDataKey, seal, sealOwner } from "../../../src/domain/secrets.ts";
import type { OutboundRequest } from "../../../src/outbound/pinned_post.ts";
import { OutboundDelivery } from "../../../src/platform/reactors/deliver.ts";
import {
  SharedRecipientRate,
  sweepRecipientRates,
} from "../../../src/platform/reactors/shared_recipient_rate.ts";
import { createLogger } from "../../../src/observe/log.ts";
import type { Database } from "../../../src/db/schema.ts";
import { openTestDatabase } from "../../db/helpers.ts";
import { idsIn } from "../../helpers/once_placement.ts";
import { type Instance, openWorld } from "../../runtime/work_once_world.ts";

const url = Deno.env.get("DATABASE_URL");
const quiet = createLogger("silent", { write: () => {} });
const T = "biz_pace";
const PER_SECOND = 3;

Deno.test({
  name:
    "OutboundDelivery: a recipient's backlog spread over two instances goes out at the bound a second in all",
  ignore: !url,
  async fn() {
    await using db = await openTestDatabase();
    const w = await openWorld([outboundEventActor]);
    const dataKey = await importDataKey(crypto.getRandomValues(new Uint8Array(32)));
    let endpoint = false;
    const targets = async (tenant: string, _recipient: Recipient) =>
      endpoint
        ? {
          url: "http://127.0.0.1:9/courier",
          key_id: "key_1",
          sealed_secret: await seal(
            dataKey,
            "whsec_pace",
            sealOwner("business_webhook", tenant, tenant),
          ),
        }
        : null;
    const sent: string[] = [];
    const errors: unknown[] = [];
    const engine = (i: Instance) =>
      new OutboundDelivery({
        runtime: i.runtime,
        bus: i.bus,
        dataKey,
        clock: w.clock,
        allowLoopback: true,
        send: (request: OutboundRequest) => {
          sent.push(i.name);
          return Promise.resolve({ status: request.url.pathname === "/courier" ? 200 : 500 });
        },
        targets,
        limits: { recipientAttemptsPerSecondMax: PER_SECOND },
        paceDb: db.db,
        onError: (e) => errors.push(e),
      });
    const deliveries = [engine(w.a), engine(w.b)];
    const step = async () => {
      for (const i of [w.a, w.b]) await i.runtime.fireDueTimers();
      await w.flush();
      const made = await Promise.all(deliveries.map((d) => d.pump()));
      await w.flush();
      return made[0]! + made[1]!;
    };
    try {
      await w.start();
      // Six billing events on each instance's partitions wait for the courier's endpoint.
      const type = outboundEventActor.type;
      const ids = [...idsIn(type, 0, 6, "evt_a"), ...idsIn(type, 1, 6, "evt_b")];
      const ask = (id: string, command: Parameters<Instance["runtime"]["ask"]>[3]) =>
        w.holder({ type, id }).runtime.ask(outboundEventActor, T, id, command);
      for (const id of ids) {
        const event: NewOutboundEvent = {
          event_id: id,
          stream: "billing",
          event_type: "shipment.booked",
          raw_body: `{"event_id":"${id}"}`,
          recipient: { kind: "courier" },
        };
        assert.ok((await ask(id, { kind: "create", event, endpoint_missing: true })).ok);
      }
      // The endpoint is set: every waiting event, on both instances, is due at once.
      endpoint = true;
      for (const id of ids) assert.ok((await ask(id, { kind: "endpoint_set" })).ok);
      const perSecond: number[] = [await step()];
      assert.equal(await step(), 0, "nothing more within the same second, on either instance");
      while (sent.length < ids.length && perSecond.length < 10) {
        w.clock.advanceBy(1000);
        perSecond.push(await step());
      }
      // Per instance, each would have sent the bound a second: twice it in all.
      assert.deepEqual(perSecond, [3, 3, 3, 3]);
      assert.deepEqual([...new Set(sent)].sort(), ["a", "b"], "both instances sent their share");
      for (const id of ids) {
        const r = await w.holder({ type, id }).runtime.read(outboundEventActor, T, id, {
          kind: "get",
        });
        assert.equal(r.ok && r.reply?.status, "delivered", id);
      }
      assert.deepEqual(errors, []);
    } finally {
      for (const d of deliveries) await d.close();
      await w.close();
    }
  },
});

Deno.test({
  name:
    "SharedRecipientRate: two instances are granted the bound a second in all; rows of seconds gone are swept",
  ignore: !url,
  async fn() {
    await using db = await openTestDatabase();
    const a = new SharedRecipientRate({ db: db.db, perSecond: PER_SECOND, log: quiet });
    const b = new SharedRecipientRate({ db: db.db, perSecond: PER_SECOND, log: quiet });
    const spend = (r: SharedRecipientRate, key: string, now: number) => {
      let n = 0;
      while (r.take(key, now)) n++;
      return n;
    };
    const now = 1_800_000_000_500;
    // t1's backlog waits on both instances; t2's, two events, on a only.
    const waiting = new Map([["t1/courier", 5], ["t2/courier", 2]]);
    await Promise.all([a.reserve(waiting, now), b.reserve(new Map([["t1/courier", 5]]), now)]);
    const t1 = [spend(a, "t1/courier", now), spend(b, "t1/courier", now)];
    assert.equal(t1[0]! + t1[1]!, PER_SECOND, "the bound in all, however the two raced");
    assert.equal(
      spend(a, "t2/courier", now) + spend(b, "t2/courier", now),
      2,
      "what waited, no more",
    );
    // Asked again within the second: nothing left.
    await a.reserve(waiting, now + 100);
    assert.equal(spend(a, "t1/courier", now + 100), 0);
    // A budget is for its second: the next second is a new one, and the old one's is lost.
    await b.reserve(waiting, now + 1000);
    assert.equal(spend(b, "t1/courier", now), 0, "a budget of a second gone is not spent");
    assert.equal(spend(b, "t1/courier", now + 1000), PER_SECOND);

    assert.equal(await sweepRecipientRates(db.db, now + 30_000), 0, "rows still recent are kept");
    assert.equal(await sweepRecipientRates(db.db, now + 62_000), 2);
    const left = await db.db.selectFrom("recipient_rate_counters").select("key").execute();
    assert.deepEqual(left, []);
  },
});

Deno.test("SharedRecipientRate: with the database failing, each instance paces in its memory", async () => {
  // A Postgres no one listens on: every statement fails to connect.
  const client = postgres("postgres://postgres@127.0.0.1:1/postgres", {
    max: 1,
    connect_timeout: 1,
    onnotice: () => {},
  });
  const db = new Kysely<Database>({ dialect: new PostgresJSDialect({ postgres: client }) });
  try {
    const rate = new SharedRecipientRate({ db, perSecond: PER_SECOND, log: quiet });
    const now = 1_800_000_000_000;
    assert.equal(rate.take("t1/courier", now), false, "no budget taken yet");
    await rate.reserve(new Map([["t1/courier", 10]]), now);
    let sent = 0;
    while (rate.take("t1/courier", now)) sent++;
    assert.equal(sent, PER_SECOND, "the bound, counted here");
  } finally {
    await db.destroy();
  }
});
