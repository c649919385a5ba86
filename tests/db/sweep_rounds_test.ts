/**
 * Rounds of a periodic sweep (src/db/sweep_rounds.ts), over rows held in memory: every row old
 * enough is looked at, a round after the first reads only what became due since the last, a
 * failure is looked at again next round, a row that arrived late is found by the next deep
 * round, and passes never run side by side.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  SweepRounds,
  type SweepRoundsOptions,
  type SweepWindow,
  type SweptPage,
} from "../../src/db/sweep_rounds.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const OPTIONS: SweepRoundsOptions = {
  lookbackMs: 24 * HOUR,
  settleMs: MINUTE,
  deepEveryMs: HOUR,
  pageSize: 3,
  pagesPerPass: 2,
};

interface Row {
  readonly at: number;
  readonly key: string;
}

/** A table of rows and a page reader over it, noting every row each pass read. */
function table(
  rows: Row[],
  fails: (row: Row) => boolean = () => false,
  pageSize = OPTIONS.pageSize,
) {
  const read: Row[] = [];
  const page = (w: SweepWindow<string>): Promise<SweptPage<string>> => {
    const after = w.after;
    const found = rows
      .filter((r) => r.at >= w.from && r.at < w.until)
      .filter((r) => !after || r.at > after.at || (r.at === after.at && r.key > after.key))
      .sort((a, b) => a.at - b.at || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .slice(0, pageSize);
    read.push(...found);
    const failed = found.filter(fails);
    const last = found.at(-1);
    return Promise.resolve({
      read: found.length,
      last: last ? { at: last.at, key: last.key } : null,
      done: found.length - failed.length,
      failedAt: failed.map((r) => r.at),
    });
  };
  return { rows, read, page };
}

Deno.test("sweep rounds: every row old enough within the lookback is read, whatever the passes", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.integer({ min: 0, max: 30 * MINUTE }), { maxLength: 40 }),
      fc.array(fc.integer({ min: 1, max: 5 * MINUTE }), { minLength: 1, maxLength: 30 }),
      async (times, steps) => {
        const start = 24 * HOUR;
        const t = table(times.map((at, i) => ({ at: start + at, key: `r${i}` })));
        const rounds = new SweepRounds<string>(OPTIONS);
        let now = start;
        for (const step of steps) await rounds.pass(now += step, t.page);
        // Passes a minute apart until a whole round has run since the last `now`.
        const last = now;
        for (let i = 0; i < 40; i++) await rounds.pass(now += MINUTE, t.page);
        const seen = new Set(t.read.map((r) => r.key));
        for (const row of t.rows) {
          if (row.at < last - OPTIONS.settleMs) assert.ok(seen.has(row.key), `${row.key} read`);
        }
      },
    ),
  );
});

Deno.test("sweep rounds: a round after the first reads only what became due since, with an overlap", async () => {
  const start = 24 * HOUR;
  const t = table(
    Array.from({ length: 10 }, (_, i) => ({ at: start - 10 * HOUR + i * HOUR, key: `old${i}` })),
    undefined,
    100,
  );
  const rounds = new SweepRounds<string>({ ...OPTIONS, pageSize: 100 });
  await rounds.pass(start, t.page);
  assert.equal(t.read.length, 10, "the first round after a start goes all the way back");
  t.read.length = 0;
  t.rows.push({ at: start - 30_000, key: "settling" }, { at: start + 30_000, key: "new" });
  await rounds.pass(start + 2 * MINUTE, t.page);
  assert.deepEqual(t.read.map((r) => r.key), ["settling", "new"], "nothing older read again");
  t.read.length = 0;
  await rounds.pass(start + 3 * MINUTE, t.page);
  assert.deepEqual(t.read.map((r) => r.key), ["new"], "one settling interval of overlap only");
});

Deno.test("sweep rounds: the next round starts again at the row that failed", async () => {
  const start = 24 * HOUR;
  let failing = true;
  const t = table(
    [
      { at: start - 10 * MINUTE, key: "fails" },
      { at: start - 9 * MINUTE, key: "skipped" },
      { at: start - 8 * MINUTE, key: "fine" },
    ],
    (r) => failing && r.key === "fails",
    100,
  );
  const rounds = new SweepRounds<string>({ ...OPTIONS, pageSize: 100 });
  assert.equal(await rounds.pass(start, t.page), 2);
  t.read.length = 0;
  failing = false;
  assert.equal(await rounds.pass(start + MINUTE, t.page), 3, "from the failed row on");
  assert.deepEqual(t.read.map((r) => r.key), ["fails", "skipped", "fine"]);
  t.read.length = 0;
  await rounds.pass(start + 2 * MINUTE, t.page);
  assert.equal(t.read.length, 0, "handled: not read again");
});

Deno.test("sweep rounds: a row that reached the table after its round is found by the next deep one", async () => {
  const start = 24 * HOUR;
  const t = table([]);
  const rounds = new SweepRounds<string>(OPTIONS);
  await rounds.pass(start, t.page);
  // Projected half an hour late: older than any later round's overlap.
  t.rows.push({ at: start - 30 * MINUTE, key: "late" });
  let now = start;
  for (; now < start + OPTIONS.deepEveryMs - MINUTE; now += MINUTE) await rounds.pass(now, t.page);
  assert.equal(t.read.length, 0, "the incremental rounds do not look that far back");
  await rounds.pass(start + OPTIONS.deepEveryMs, t.page);
  assert.deepEqual(t.read.map((r) => r.key), ["late"]);
  t.read.length = 0;
  t.rows.push({ at: start - OPTIONS.lookbackMs, key: "beyond" });
  await rounds.pass(start + 2 * OPTIONS.deepEveryMs + MINUTE, t.page);
  assert.deepEqual(t.read.map((r) => r.key), ["late"], "never further back than the lookback");
});

Deno.test("sweep rounds: a pass under way is answered to a second call, not run beside it", async () => {
  const rows = Array.from({ length: 4 }, (_, i) => ({ at: i, key: `r${i}` }));
  const t = table(rows);
  let pages = 0;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => release = resolve);
  const slow = async (w: SweepWindow<string>) => {
    pages++;
    await gate;
    return t.page(w);
  };
  const rounds = new SweepRounds<string>(OPTIONS);
  const first = rounds.pass(HOUR, slow);
  const second = rounds.pass(HOUR, slow);
  release();
  assert.equal(await first, await second);
  assert.equal(pages, 2, "one pass: two pages of three rows");
  assert.deepEqual(t.read.map((r) => r.key), ["r0", "r1", "r2", "r3"]);
});
