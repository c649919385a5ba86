/**
 * Sizes at the edges of the actor store: a kept reply or a state past one store value, a key past
 * the store's bound, one change past one commit, many changes past one commit together. Each is
 * split or refused `too_large` before the store is asked: no commit fails, every actor goes on.
 */
import assert from "node:assert/strict";
import {
  accountActor,
  dropTestStore,
  notebookActor,
  openTestRuntime,
  type TestRuntime,
} from "./fixtures.ts";
import { accept, type ActorDefinition, type Rejection } from "../../src/runtime/actor.ts";
import { GROUP_COMMIT_BYTES_MAX, STATE_BYTES_MAX, STORE_KEY_BYTES_MAX } from "../../src/limits.ts";

const T = "biz_tenant";

const { stateBytesMax: _, ...unbounded } = notebookActor;
/** A notebook of one store value (the default bound). */
const smallNotebook = { ...unbounded, type: "test_small_notebook" };
/** A notebook whose state may be larger than one commit takes. */
const hugeNotebook = { ...notebookActor, type: "test_huge_notebook", stateBytesMax: 4_000_000 };
const definitions = [accountActor, notebookActor, smallNotebook, hugeNotebook];

/** The errors the store answered commits with (none, when every limit is kept before). */
function storeErrors(rt: TestRuntime): string[] {
  const errors: string[] = [];
  const commit = rt.store.commit.bind(rt.store);
  rt.store.commit = async (writes) => {
    const r = await commit(writes);
    if (!r.ok && r.reason === "error") errors.push(`${writes.length} writes: ${r.error.message}`);
    return r;
  };
  return errors;
}

function assertTooLarge(r: unknown, limit: string, max: number): void {
  const refusal = r as Rejection;
  assert.equal(refusal.ok, false);
  assert.equal(refusal.code, "too_large");
  assert.equal(refusal.details?.limit, limit);
  assert.equal(refusal.details?.max, max);
  assert.match(refusal.message, new RegExp(`too large to store: \\d+ .*max ${max}$`));
}

async function kvEntriesUnder(path: string, prefix: Deno.KvKey): Promise<number> {
  const kv = await Deno.openKv(path);
  try {
    let n = 0;
    for await (const _ of kv.list({ prefix })) n++;
    return n;
  } finally {
    kv.close();
  }
}

/** Sets a timer whose firing writes `chars` letters: its outcome is known only when it fires. */
const reminder: ActorDefinition<
  string,
  { kind: "later"; at: number; chars: number } | { kind: "say"; text: string },
  { kind: "said"; text: string },
  string
> = {
  type: "test_reminder",
  version: 1,
  initial: "",
  decide(_state, command) {
    switch (command.kind) {
      case "later":
        return accept([], (s) => s, [{
          op: "set",
          name: "say",
          at: command.at,
          payload: command.chars,
        }]);
      case "say":
        return accept([{ kind: "said", text: command.text }], (s) => s);
      case "timer":
        return accept([{ kind: "said", text: "x".repeat(Number(command.payload)) }]);
    }
  },
  evolve: (_state, event) => event.text,
};

/**
 * The stores the suite runs on, each as a runtime over it: every store the runtime may use (the
 * store port, src/runtime/store.ts) passes the same tests. `entriesUnder`: how a store's own
 * layout is looked into, where a test checks it.
 */
const STORES: readonly {
  readonly name: string;
  readonly open: typeof openTestRuntime;
  readonly entriesUnder?: (path: string, prefix: Deno.KvKey) => Promise<number>;
  /** Removes what was stored for `path` (a file the test removes itself). */
  readonly drop?: (path: string) => Promise<void>;
  /** Skipped: the store's server is not there. */
  readonly ignore?: boolean;
}[] = [
  {
    name: "kv",
    open: (path, o) => openTestRuntime(path, { ...o, store: "kv" }),
    entriesUnder: kvEntriesUnder,
  },
  {
    name: "pg",
    open: (path, o) => openTestRuntime(path, { ...o, store: "postgres" }),
    drop: (path) => dropTestStore(path, "postgres"),
    ignore: !Deno.env.has("DATABASE_URL"),
  },
];

for (const s of STORES) {
  const test = (name: string, fn: () => Promise<void>) =>
    Deno.test({ name, ignore: s.ignore ?? false, fn });

  test(`store limits (${s.name}): a kept reply larger than one store value is split, and replayed whole after a restart`, async () => {
    const dir = await Deno.makeTempDir();
    const path = `${dir}/kv.sqlite`;
    // About 140,000 bytes as stored, past Latin-1: parts end mid-character, only the whole decodes.
    const text = "é€".repeat(35_000);
    const first = await s.open(path, { definitions });
    const errors = storeErrors(first);
    try {
      const r = await first.runtime.ask(notebookActor, T, "nb", { kind: "write", text }, {
        idempotencyKey: "big-reply",
      });
      assert.ok(r.ok);
      assert.deepEqual(r.reply, [text]);
      assert.deepEqual(errors, []);
    } finally {
      await first.close();
    }
    const parts = await s.entriesUnder?.(path, ["q", "test_notebook", "nb", "big-reply"]);
    assert.ok(parts === undefined || parts >= 2, "stored in parts");
    const second = await s.open(path, { definitions, clock: first.clock });
    try {
      const again = await second.runtime.ask(notebookActor, T, "nb", { kind: "write", text }, {
        idempotencyKey: "big-reply",
      });
      assert.ok(again.ok);
      assert.equal(again.replayed, true);
      assert.deepEqual(again.reply, [text]);
      const kept = await second.runtime.replyUnder(notebookActor, "nb", "big-reply");
      assert.deepEqual(kept?.reply, [text]);
      const state = await second.runtime.ask(notebookActor, T, "nb", { kind: "get" });
      assert.ok(state.ok);
      assert.deepEqual(state.reply, [text], "written once: the key replayed its reply");
    } finally {
      await second.close();
      await s.drop?.(path);
      await Deno.remove(dir, { recursive: true });
    }
  });

  test(`store limits (${s.name}): a state past its bound is refused too_large naming the limit; the batch's other commands commit and the actor goes on`, async () => {
    const rt = await s.open(":memory:", { definitions });
    const errors = storeErrors(rt);
    try {
      // One batch: the middle command alone would leave a state past one store value.
      const asks = ["before", "x".repeat(70_000), "after"].map((text) =>
        rt.runtime.ask(smallNotebook, T, "nb", { kind: "write", text })
      );
      const [before, big, after] = await Promise.all(asks);
      assert.ok(before!.ok && after!.ok);
      assertTooLarge(big, "STATE_BYTES_MAX", STATE_BYTES_MAX);
      const state = await rt.runtime.ask(smallNotebook, T, "nb", { kind: "get" });
      assert.ok(state.ok);
      assert.deepEqual(state.reply, ["before", "after"]);
      // A fresh id (decided on a state assumed new, then on the stored one) is refused the same.
      const fresh = await rt.runtime.ask(smallNotebook, T, "nb_new", {
        kind: "write",
        text: "x".repeat(70_000),
      }, { fresh: true });
      assertTooLarge(fresh, "STATE_BYTES_MAX", STATE_BYTES_MAX);
      // An actor that raised its bound names its own.
      const past = await rt.runtime.ask(notebookActor, T, "nb", {
        kind: "write",
        text: "y".repeat(500_000),
      });
      assertTooLarge(past, "stateBytesMax", 400_000);
      assert.deepEqual(errors, []);
    } finally {
      await rt.close();
    }
  });

  test(`store limits (${s.name}): one command whose change is past one commit is refused too_large before the store sees it; the actor goes on`, async () => {
    const rt = await s.open(":memory:", { definitions });
    const errors = storeErrors(rt);
    try {
      // Ten events of 50,000 bytes, and a state holding them again: past 800 KiB, in one write.
      const texts = Array.from({ length: 10 }, (_, i) => `${i}`.repeat(50_000));
      const [small, big] = await Promise.all([
        rt.runtime.ask(hugeNotebook, T, "nb", { kind: "write", text: "small" }),
        rt.runtime.ask(hugeNotebook, T, "nb", { kind: "write_all", texts }),
      ]);
      assert.ok(small!.ok);
      assertTooLarge(big, "GROUP_COMMIT_BYTES_MAX", GROUP_COMMIT_BYTES_MAX);
      // Half of it fits: the actor is usable and holds what was committed, nothing of the refused.
      const half = await rt.runtime.ask(hugeNotebook, T, "nb", {
        kind: "write_all",
        texts: texts.slice(0, 5),
      });
      assert.ok(half.ok);
      assert.deepEqual(half.reply, ["small", ...texts.slice(0, 5)]);
      assert.deepEqual(errors, []);
    } finally {
      await rt.close();
    }
  });

  test(`store limits (${s.name}): a key past the store's 2 KiB is refused too_large, and nothing of the command is written`, async () => {
    const rt = await s.open(":memory:", { definitions });
    const errors = storeErrors(rt);
    try {
      const email = `${"x".repeat(2_100)}@example.com`;
      const r = await rt.runtime.ask(accountActor, T, "acc", { kind: "set_email", email });
      assertTooLarge(r, "STORE_KEY_BYTES_MAX", STORE_KEY_BYTES_MAX);
      assert.equal(await rt.runtime.lookup("test_email", email.slice(0, 100)), null);
      const ok = await rt.runtime.ask(accountActor, T, "acc", {
        kind: "set_email",
        email: "a@b.c",
      });
      assert.ok(ok.ok);
      assert.equal(ok.reply.email, "a@b.c");
      assert.deepEqual(errors, []);
    } finally {
      await rt.close();
    }
  });

  test(`store limits (${s.name}): writes whose keys together pass the store's 80 KiB of keys go in several commits, never tried together`, async () => {
    const rt = await s.open(":memory:", { definitions });
    const errors = storeErrors(rt);
    try {
      // 120 actors each set a 1,500-byte index key: 180 KB of keys, small values.
      const ids = Array.from({ length: 120 }, (_, i) => `acc${i}`);
      const before = rt.runtime.commitStats.commits;
      const results = await Promise.all(
        ids.map((id) =>
          rt.runtime.ask(accountActor, T, id, {
            kind: "set_email",
            email: `${id}@${"k".repeat(1_500)}`,
          })
        ),
      );
      assert.ok(results.every((r) => r.ok));
      assert.deepEqual(errors, []);
      const commits = rt.runtime.commitStats.commits - before;
      assert.ok(commits >= 3 && commits < 60, `grouped within the key limit: ${commits} commits`);
      for (const id of ids) {
        const found = await rt.runtime.lookup("test_email", `${id}@${"k".repeat(1_500)}`);
        assert.equal(found?.id, id);
      }
    } finally {
      await rt.close();
    }
  });

  test(`store limits (${s.name}): a due timer whose outcome is past the actor's bound is refused, reported and dropped, never fired again`, async () => {
    const rt = await s.open(":memory:", { definitions: [reminder] });
    try {
      const at = rt.clock.now() + 1_000;
      const set = await rt.runtime.ask(reminder, T, "r", {
        kind: "later",
        at,
        chars: 70_000,
      });
      assert.ok(set.ok);
      rt.clock.advanceBy(2_000);
      assert.equal(await rt.runtime.fireDueTimers(), 1, "fired once");
      assert.equal(await rt.runtime.timersDue(10), 0, "and dropped");
      assert.equal(await rt.runtime.fireDueTimers(), 0);
      const next = await rt.runtime.ask(reminder, T, "r", { kind: "say", text: "still here" });
      assert.ok(next.ok);
      assert.equal(next.reply, "still here");
    } finally {
      await rt.close();
    }
  });
}
