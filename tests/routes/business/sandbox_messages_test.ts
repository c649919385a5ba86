/**
 * Business API 1.3 over HTTP: the sandbox's messages (the owner's security e-mails, 5.6) are kept
 * refused at the sender, listed newest first to their own business only; live answers 404.
 */
import assert from "node:assert/strict";
import { MAIL_NEWEST_FIRST, mailMessageActor } from "../../../actors/platform/mail_message.ts";
import { importDataKey } from "../../../src/domain/secrets.ts";
import { ACTOR, INDEX, PASS_DONE } from "../../../src/runtime/kv_layout.ts";
import { reindexPass } from "../../../src/runtime/reindex.ts";
import type { ActorRecord, IndexTarget } from "../../../src/runtime/store.ts";
import { SandboxMessageAnswer } from "../../../routes/business/answers/sandbox_messages.ts";
import { noticeIdOf } from "../../../src/platform/reactors/owner_notices.ts";
import { documentedData } from "../../helpers/documented.ts";
import {
  type CreatedBusiness,
  openTestEnv,
  type TestEnv,
  withTestEnv,
} from "../../helpers/test_env.ts";

async function messages(t: TestEnv, key: string, query = "") {
  await t.env.bus.flush();
  await t.settle();
  const r = await t.call("GET", `/business/sandbox/messages${query}`, { key });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return documentedData(SandboxMessageAnswer.array(), r, "messages");
}

Deno.test("sandbox messages: each e-mail kept refused with why, newest first, own business only", () =>
  withTestEnv(async (t) => {
    const a = await t.createBusiness();
    const other = await t.createBusiness();
    const rotated = await t.call("POST", "/business/api-key/regenerate", { key: a.api_key });
    assert.equal(rotated.status, 201);
    const key = rotated.body.data.api_key;
    t.clock.advanceBy(1_000);
    const secret = await t.call("POST", "/business/webhook-secret/regenerate", { key });
    assert.equal(secret.status, 201, JSON.stringify(secret.body));

    const list = await messages(t, key);
    assert.deepEqual(list.map((m: { cause: string }) => m.cause), [
      "webhook_secret_rotated",
      "api_key_rotated",
    ]);
    for (const m of list) {
      assert.equal(m.channel, "email");
      assert.equal(m.to, a.owner.email);
      assert.equal(m.status, "refused");
      assert.match(m.reason, /sandbox reaches no real/);
    }
    assert.equal((await messages(t, key, "?limit=1")).length, 1);
    assert.deepEqual(await messages(t, other.api_key), []);
  }, { name: "sandbox" }));

Deno.test("sandbox messages: on live a live key is answered 404 naming the sandbox base", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const r = await t.call("GET", "/business/sandbox/messages", { key: b.api_key });
    assert.equal(r.status, 404);
    assert.equal(r.body.code, "not_found");
    assert.match(r.body.message, /sandbox base/);
  }));

/** Records `count` refused e-mails of the business's log positions `from` on, at once. */
async function recordNotices(t: TestEnv, businessId: string, from: number, count: number) {
  const seqs = Array.from({ length: count }, (_, i) => from + i);
  for (let i = 0; i < seqs.length; i += 50) {
    await Promise.all(
      seqs.slice(i, i + 50).map(async (seq) => {
        const id = noticeIdOf(businessId, seq);
        const r = await t.env.runtime.ask(mailMessageActor, businessId, id, {
          kind: "record",
          message: {
            id,
            to: "owner@example.com",
            subject: `notice ${seq}`,
            text: `notice ${seq}`,
            cause: "api_key_rotated",
            channel: "email",
            disposition: { status: "refused", reason: "the sandbox reaches no real inbox" },
          },
        });
        assert.ok(r.ok, JSON.stringify(r));
      }),
    );
  }
}

Deno.test("sandbox messages: e-mails of one moment are listed newest first by their number, 12 before 9", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    await recordNotices(t, b.id, 1, 12);
    const ids = (await messages(t, b.api_key)).map((m: { id: string }) => m.id);
    const seqs = Array.from({ length: 12 }, (_, i) => 12 - i);
    assert.deepEqual(ids, seqs.map((seq) => noticeIdOf(b.id, seq)));
    const page = (await messages(t, b.api_key, "?limit=3")).map((m: { id: string }) => m.id);
    assert.deepEqual(page, [12, 11, 10].map((seq) => noticeIdOf(b.id, seq)));
  }, { name: "sandbox" }));

Deno.test("sandbox messages: past 1,000 e-mails the newest is still listed first", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    // Positions 8999 to 9999, each a millisecond after the last: 9999 is the newest.
    for (let i = 0; i < 1_001; i += 143) {
      await recordNotices(t, b.id, 8_999 + i, 143);
      t.clock.advanceBy(1);
    }
    const page = (await messages(t, b.api_key, "?limit=2")).map((m: { id: string }) => m.id);
    assert.deepEqual(page, [noticeIdOf(b.id, 9_999), noticeIdOf(b.id, 9_998)]);
  }, { name: "sandbox" }));

/**
 * The business's e-mails as the code before newest-first keys stored them (mail_message version
 * 2): each under its id in the `mail_message_id` index, written straight into the KV file of a
 * closed environment, without the re-index pass done.
 */
async function writeOldShapeEntries(kvPath: string, businessId: string) {
  const kv = await Deno.openKv(kvPath);
  try {
    const entries = kv.list<IndexTarget>({ prefix: [INDEX, MAIL_NEWEST_FIRST] });
    for await (const e of entries) {
      if (!String(e.key[2]).startsWith(`${businessId}:`)) continue;
      const at = [ACTOR, mailMessageActor.type, e.value.id];
      const stored = await kv.get<string>(at);
      if (typeof stored.value !== "string") throw new Error(`${e.value.id} is not stored whole`);
      const record = JSON.parse(stored.value) as ActorRecord;
      const committed = await kv.atomic().check(stored)
        .delete(e.key)
        .set([INDEX, "mail_message_id", e.value.id], e.value)
        .set(
          at,
          JSON.stringify({ ...record, v: 2, indexes: [`mail_message_id\u0000${e.value.id}`] }),
        )
        .commit();
      if (!committed.ok) throw new Error(`${e.value.id} moved while written`);
    }
    await kv.delete([PASS_DONE, reindexPass(mailMessageActor)!]);
  } finally {
    kv.close();
  }
}

Deno.test("sandbox messages: e-mails stored under the old id keys are listed after an upgrade, newest first", async () => {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/kv.sqlite`;
  const dataKey = await importDataKey(new Uint8Array(32).fill(5));
  try {
    const before = await openTestEnv({ name: "sandbox", kvPath, dataKey });
    let b: CreatedBusiness;
    let key: string;
    try {
      b = await before.createBusiness();
      key = b.api_key;
      for (let i = 0; i < 2; i++) {
        before.clock.advanceBy(1_000);
        const rotated = await before.call("POST", "/business/api-key/regenerate", { key });
        assert.equal(rotated.status, 201, JSON.stringify(rotated.body));
        key = rotated.body.data.api_key;
        // Recorded before the clock moves on: each e-mail of its own second.
        assert.equal((await messages(before, key)).length, i + 1);
      }
    } finally {
      await before.close();
    }
    await writeOldShapeEntries(kvPath, b.id);
    const t = await openTestEnv({ name: "sandbox", kvPath, dataKey });
    try {
      const list = await messages(t, key);
      assert.equal(list.length, 2);
      const [newest, older] = list.map((m: { created_at: string }) => Date.parse(m.created_at));
      assert.ok(newest! > older!, JSON.stringify(list));
      assert.equal(await t.env.runtime.lookup("mail_message_id", list[0].id), null);
    } finally {
      await t.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
