/**
 * Notes reserved on their charged entry (courier 2.6 rule 5): notes sent at once never take the
 * entry below zero, the ledger and the entry agree, a request that died between its reservation
 * and its posting is resolved by the entry's timer or completed by its retry, and an entry the
 * charged entries were never told of is read from its account's log.
 */
import assert from "node:assert/strict";
import {
  type ChargedEntry,
  chargedEntryActor,
  chargedEntryId,
  type Reserved,
} from "../../../actors/courier/charged_entry/mod.ts";
import { asClient, courierClientActor } from "../../../actors/courier/courier_client.ts";
import { correctEntry } from "../../../src/courier/flows/billing/notes.ts";
import { Refused } from "../../../src/runtime/actor.ts";
import { NOTE_RESERVATION_LAPSE_MS } from "../../../src/limits.ts";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { CHARGED_ENTRY_OUTBOX } from "../../../actors/courier/client_ledger/entry_outbox.ts";
import { account, charge, must, refused } from "./billing_helpers.ts";
import { entryAsk } from "../../../actors/courier/client_ledger.ts";
import { fillChargedEntries } from "../../../src/courier/flows/old_data/charged_entries.ts";
import { outboxRetryDue } from "../../helpers/outbox_retry.ts";
import { commandKind, flakyRuntime } from "../../helpers/faults.ts";
import { chargedEntryFill } from "../../../src/courier/flows/billing/entry_fill.ts";

type Account = Awaited<ReturnType<typeof account>>;

async function held(t: TestEnv, a: Account, reference: string): Promise<ChargedEntry> {
  const r = await t.env.runtime.read(
    chargedEntryActor,
    a.caller.courier,
    chargedEntryId(a.client, reference),
    { kind: "get" },
  );
  assert.ok(r.ok && r.reply !== null, JSON.stringify(r));
  return r.reply as ChargedEntry;
}

/** The notes on `reference` the statement holds: how many, and their sum. */
async function booked(t: TestEnv, a: Account, reference: string): Promise<[number, number]> {
  await t.settle();
  const rows = await t.env.db.selectFrom("ledger_entries").select("amount_minor")
    .where("tenant", "=", a.caller.courier).where("client_id", "=", a.client)
    .where("corrects", "=", reference).execute();
  return [rows.length, rows.reduce((n, r) => n + Number(r.amount_minor), 0)];
}

Deno.test("billing notes: 20 credit notes sent at once on an entry whose net allows 5 book exactly 5; the ledger and the entry agree", () =>
  withTestEnv(async (t) => {
    const a = await account(t);
    await charge(t, a, "W-1", 5_000);
    const answers = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        correctEntry(t.env, a.caller, a.client, {
          entry_reference: "W-1",
          amount: "-10.00",
          reason: "refund",
          reference: `CN-${i}`,
        }, null)),
    );
    const ok = answers.filter((r) => r.status === "fulfilled");
    const codes = answers.flatMap((r) =>
      r.status === "rejected" && r.reason instanceof Refused ? [r.reason.rejection.code] : []
    );
    assert.equal(ok.length, 5);
    assert.deepEqual(new Set(codes), new Set(["correction_exceeds_entry"]));
    assert.equal(codes.length, 15);
    assert.deepEqual(await booked(t, a, "W-1"), [5, -5_000]);
    const entry = (await held(t, a, "W-1")).entries[0]!;
    assert.deepEqual([entry.notes, entry.notes_minor, entry.reservations], [5, -5_000, []]);
    // The account's balance took the five notes only.
    const got = await t.env.runtime.read(courierClientActor, a.caller.courier, a.client, {
      kind: "get",
    });
    assert.ok(got.ok);
    assert.equal(asClient(got.reply).money.receivable_minor, 0);
  }));

Deno.test("billing notes: a request that died after its reservation is resolved by the entry's timer (released, or counted once if posted), and its retry completes it once", () =>
  withTestEnv(async (t) => {
    const a = await account(t);
    await charge(t, a, "W-1", 5_000);
    await t.settle();
    const id = chargedEntryId(a.client, "W-1");
    const reserve = (key: string, amount_minor: number) =>
      t.env.runtime.ask(chargedEntryActor, a.caller.courier, id, {
        kind: "reserve",
        key,
        entry_kind: "waiting",
        currency: "BWP",
        amount_minor,
        reason: "refund",
        other_adjustments: 0,
      });
    // The request reserved, then died before the account posted anything.
    assert.ok((await reserve("entry:note:CN-DEAD", -4_000)).ok);
    const note = { entry_reference: "W-1", amount: "-20.00", reason: "refund" };
    await refused(correctEntry(t.env, a.caller, a.client, note, null), "correction_exceeds_entry");
    t.clock.advanceBy(NOTE_RESERVATION_LAPSE_MS);
    await t.env.runtime.fireDueTimers();
    await t.settle();
    assert.deepEqual((await held(t, a, "W-1")).entries[0]!.reservations, []);
    await correctEntry(t.env, a.caller, a.client, note, null);

    // Another died the same way; its retry (same reference: same key) finds it and books it once.
    assert.ok((await reserve("entry:note:CN-RETRY", -3_000)).ok);
    const retry = { ...note, amount: "-30.00", reference: "CN-RETRY" };
    const done = await correctEntry(t.env, a.caller, a.client, retry, null);
    assert.equal(done.replayed, false);
    t.clock.advanceBy(NOTE_RESERVATION_LAPSE_MS);
    await t.env.runtime.fireDueTimers();
    assert.deepEqual(await booked(t, a, "W-1"), [2, -5_000]);
    const entry = (await held(t, a, "W-1")).entries[0]!;
    assert.deepEqual([entry.notes, entry.notes_minor, entry.reservations], [2, -5_000, []]);
    assert.equal((await correctEntry(t.env, a.caller, a.client, retry, null)).replayed, true);

    // A third was posted, but its answer was lost and the account's word to the entry waits:
    // the timer finds it posted under its key and counts it; the word, handled later, adds none.
    await charge(t, a, "W-2", 5_000);
    await t.settle();
    const waits = t.env.runtime.handleOutbox(
      CHARGED_ENTRY_OUTBOX,
      () => Promise.reject(new Error("the account's word waits")),
    );
    try {
      const key = entryAsk("note:CN-LOST");
      const reserved = await t.env.runtime.ask(
        chargedEntryActor,
        a.caller.courier,
        chargedEntryId(a.client, "W-2"),
        {
          kind: "reserve",
          key: key.idempotencyKey!,
          entry_kind: "waiting",
          currency: "BWP",
          amount_minor: -1_000,
          reason: "refund",
          other_adjustments: 0,
        },
      );
      assert.ok(reserved.ok);
      const { original, reservation } = reserved.reply as Reserved;
      await must(t, a.caller.courier, a.client, {
        kind: "correct",
        original,
        seen_seq: 0,
        reservation,
        amount_minor: -1_000,
        reason: "refund",
        reference: "CN-LOST",
        by: "test",
      }, key);
      t.clock.advanceBy(NOTE_RESERVATION_LAPSE_MS);
      await t.env.runtime.fireDueTimers();
      await t.settle();
    } finally {
      waits();
    }
    const counted = async () => {
      const e = (await held(t, a, "W-2")).entries[0]!;
      return [e.notes, e.notes_minor, e.reservations];
    };
    assert.deepEqual(await counted(), [1, -1_000, []]);
    await t.env.runtime.sweepOutboxes();
    assert.deepEqual(await counted(), [1, -1_000, []]);
    assert.deepEqual(await booked(t, a, "W-2"), [1, -1_000]);
  }));

Deno.test("billing notes: entries the charged entries were never told of are read from the account's log; told later, nothing counts twice", () =>
  withTestEnv(async (t) => {
    const a = await account(t);
    // As before accounts told their charged entries: the account's word waits in its outbox.
    const release = t.env.runtime.handleOutbox(
      CHARGED_ENTRY_OUTBOX,
      () => Promise.reject(new Error("booked before the charged entries were told")),
    );
    const note = { entry_reference: "W-1", reason: "refund" };
    try {
      await charge(t, a, "W-1", 5_000);
      await charge(t, a, "W-1", 2_000, { kind: "redelivery" });
      await oldNote(t, a, "W-1", -1_000);
      const both = { ...note, amount: "-1.00" };
      await refused(correctEntry(t.env, a.caller, a.client, both, null), "reference_conflict");
      const waiting = { ...note, entry_kind: "waiting" as const };
      await refused(
        correctEntry(t.env, a.caller, a.client, { ...waiting, amount: "-40.01" }, null),
        "correction_exceeds_entry",
      );
      await correctEntry(t.env, a.caller, a.client, { ...waiting, amount: "-40.00" }, null);
    } finally {
      release();
    }
    outboxRetryDue(t.clock);
    await t.env.runtime.sweepOutboxes();
    assert.deepEqual(await booked(t, a, "W-1"), [2, -5_000]);
    const entries = (await held(t, a, "W-1")).entries;
    assert.deepEqual(entries.map((e) => [e.kind, e.notes, e.notes_minor, e.reservations]), [
      ["redelivery", 0, 0, []],
      ["waiting", 2, -5_000, []],
    ]);

    // Booked before any account told its charged entries (nothing in the outbox), then a payment
    // quoting the reference, told: the pass at start fills the entry and its notes from the log.
    const b = await account(t);
    const untold = t.env.runtime.handleOutbox(CHARGED_ENTRY_OUTBOX, () => Promise.resolve());
    try {
      await charge(t, b, "W-OLD", 5_000);
      await oldNote(t, b, "W-OLD", -1_000);
    } finally {
      untold();
    }
    await must(t, b.caller.courier, b.client, {
      kind: "payment",
      amount_minor: 100,
      currency: "BWP",
      reference: "W-OLD",
      by: "test",
    }, entryAsk("payment:W-OLD"));
    await t.settle();
    assert.ok(await fillChargedEntries(t.env.runtime) >= 1);
    assert.equal(await fillChargedEntries(t.env.runtime), 0, "filled once");
    const old = { entry_reference: "W-OLD", reason: "refund" };
    await refused(
      correctEntry(t.env, b.caller, b.client, { ...old, amount: "-40.01" }, null),
      "correction_exceeds_entry",
    );
    await correctEntry(t.env, b.caller, b.client, { ...old, amount: "-40.00" }, null);
    assert.deepEqual(await booked(t, b, "W-OLD"), [2, -5_000]);
  }));

/** A note the account judged before notes were reserved: on the entry as read then. */
function oldNote(t: TestEnv, a: Account, reference: string, amount_minor: number) {
  return must(t, a.caller.courier, a.client, {
    kind: "correct",
    original: {
      reference,
      kind: "waiting",
      amount_minor: 5_000,
      currency: "BWP",
      status: "posted",
      recoverable: false,
      shipment: null,
      net_minor: 5_000,
    },
    seen_seq: 0,
    amount_minor,
    reason: "old",
    by: "test",
  });
}

Deno.test("billing notes: a refused read (busy) of the charged entry or of its account is thrown, never taken as no entry", () =>
  withTestEnv(async (t) => {
    const a = await account(t);
    await charge(t, a, "W-1", 5_000);
    const note = { entry_reference: "W-1", amount: "-10.00", reason: "refund", reference: "CN-1" };
    // spec: courier 2.6: the entry exists; a full mailbox is answered as such, never 404.
    const busyEntry = flakyRuntime(t.env.runtime, {
      fails: commandKind("get", chargedEntryActor.type),
      refuse: true,
    });
    const deps = { ...t.env, runtime: busyEntry.runtime };
    await assert.rejects(
      correctEntry(deps, a.caller, a.client, note, null),
      (e) => e instanceof Refused && e.rejection.code === "actor_busy",
    );
    // The cold source of an entry the store does not hold: a busy account is no missing one
    // (taken as missing, the entry would be loaded empty and its first commit store it so).
    const id = chargedEntryId(a.client, "W-1");
    const busyAccount = flakyRuntime(t.env.runtime, {
      fails: commandKind("get", courierClientActor.type),
      refuse: true,
    });
    await assert.rejects(chargedEntryFill(busyAccount.runtime)(a.caller.courier, id));
    assert.notEqual(await chargedEntryFill(t.env.runtime)(a.caller.courier, id), null);
    await correctEntry(t.env, a.caller, a.client, note, null);
  }));
