/**
 * The billing export against a lagging ledger projection (courier 3.1, 4.3): entries are
 * committed while exports are made, each reaching `ledger_entries` only some steps later (the
 * projection's lag, or a parked change), and every entry still goes out in exactly one export:
 * marked by one, and one row in one POST's file. The projection's writes are played here as the
 * rows it inserts, at the step they would land, so the interleaving is chosen, not timed.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  billingCsvStream,
  type ExportRange,
  markExported,
} from "../../../src/courier/queries/billing_export.ts";
import type { NewLedgerEntry } from "../../../src/db/schema.ts";
import { openTestDatabase, type TestDatabase } from "../../db/helpers.ts";

const TENANT = "biz_race";
const START = Date.parse("2026-03-02T08:00:00.000Z");

type Step =
  | { readonly kind: "commit"; readonly client: "cl_a" | "cl_b"; readonly lag: number }
  | { readonly kind: "tick"; readonly ms: number }
  | { readonly kind: "export"; readonly bounded: boolean };

function entry(reference: string, client: string, seq: number, at: number): NewLedgerEntry {
  return {
    tenant: TENANT,
    client_id: client,
    reference,
    seq,
    period: new Date(at).toISOString().slice(0, 7),
    kind: "adjustment",
    amount_minor: 100,
    currency: "BWP",
    status: "posted",
    payer: "client",
    recoverable: true,
    reason: null,
    evidence_path: null,
    source_event: null,
    original_amount_minor: null,
    original_currency: null,
    fx_rate: null,
    fx_source: null,
    corrects: null,
    shipment: null,
    created_at: new Date(at),
    invoice_id: null,
    external_reference: null,
  };
}

/** The references of a file's rows (the `reference` column). */
async function referencesIn(csv: ReadableStream<Uint8Array>): Promise<string[]> {
  const lines = (await new Response(csv).text()).trim().split(/\r?\n/).filter((l) => l !== "");
  const header = lines[0]!.split(",");
  const column = header.indexOf("reference");
  return lines.slice(1).map((line) => line.split(",")[column]!);
}

interface Outcome {
  readonly committed: string[];
  /** Each reference's rows over every POST's file. */
  readonly filed: Map<string, number>;
  readonly markedBy: Map<string, string>;
}

/**
 * Plays the steps on one clock: each export covers from just after the previous one's cut-off
 * (ranges that tile time, as a courier exporting each day does) to the clock's time, as its `to`
 * (bounded) or only as its `as_of`. Ends with the projection caught up and one more export.
 */
async function play(t: TestDatabase, steps: readonly Step[]): Promise<Outcome> {
  let now = START;
  let lastTo: number | null = null;
  const seqs = new Map<string, number>();
  const inFlight: { lands: number; row: NewLedgerEntry }[] = [];
  const committed: string[] = [];
  const filed = new Map<string, number>();
  let step = 0;
  const project = async (all: boolean) => {
    const landing = inFlight.filter((f) => all || f.lands <= step);
    for (const f of landing) inFlight.splice(inFlight.indexOf(f), 1);
    if (landing.length > 0) {
      await t.db.insertInto("ledger_entries").values(landing.map((f) => f.row)).execute();
    }
  };
  const exportNow = async (bounded: boolean) => {
    const from = lastTo === null ? null : new Date(lastTo + 1);
    const range: ExportRange = {
      tenant: TENANT,
      client_id: null,
      from,
      to: bounded ? new Date(now) : null,
      as_of: new Date(now),
    };
    lastTo = now;
    const id = `exp_${step}`;
    await markExported(t.db, range, id, "test");
    for (const reference of await referencesIn(await billingCsvStream(t.db, range, id))) {
      filed.set(reference, (filed.get(reference) ?? 0) + 1);
    }
  };
  for (const s of steps) {
    step++;
    await project(false);
    if (s.kind === "tick") now += s.ms;
    if (s.kind === "export") await exportNow(s.bounded);
    if (s.kind === "commit") {
      const seq = (seqs.get(s.client) ?? 0) + 1;
      seqs.set(s.client, seq);
      const reference = `${s.client}_${seq}`;
      committed.push(reference);
      inFlight.push({ lands: step + s.lag, row: entry(reference, s.client, seq, now) });
    }
  }
  step++;
  await project(true);
  now += 1_000;
  await exportNow(true);
  const rows = await t.db.selectFrom("ledger_entries").select(["reference", "exported_by"])
    .where("tenant", "=", TENANT).execute();
  const markedBy = new Map(rows.map((r) => [r.reference, r.exported_by ?? ""]));
  return { committed, filed, markedBy };
}

function assertExactlyOnce(outcome: Outcome): void {
  for (const reference of outcome.committed) {
    assert.notEqual(outcome.markedBy.get(reference) ?? "", "", `${reference} never exported`);
    assert.equal(outcome.filed.get(reference) ?? 0, 1, `${reference} in one POST's file`);
  }
}

async function clearLedger(t: TestDatabase): Promise<void> {
  await t.db.deleteFrom("ledger_entries").execute();
  await t.db.deleteFrom("billing_exports").execute();
}

Deno.test("billing export: an entry projected after the export covering its date goes out in the next one", async () => {
  await using t = await openTestDatabase();
  // Committed on day one, projected after day one's export, then day two's export (its range
  // starts after the entry's date) takes it; the late entry is not in day one's file either.
  const outcome = await play(t, [
    { kind: "commit", client: "cl_a", lag: 0 },
    { kind: "commit", client: "cl_a", lag: 3 },
    { kind: "export", bounded: true },
    { kind: "tick", ms: 86_400_000 },
    { kind: "commit", client: "cl_b", lag: 0 },
    { kind: "export", bounded: true },
  ]);
  assertExactlyOnce(outcome);
  assert.equal(outcome.markedBy.get("cl_a_1"), "exp_3");
  assert.equal(outcome.markedBy.get("cl_a_2"), "exp_6", "carried over from day one");
});

Deno.test("billing export: entries committed and exported in any interleaving, whatever the lag, go out exactly once", async () => {
  await using t = await openTestDatabase();
  const stepArb: fc.Arbitrary<Step> = fc.oneof(
    fc.record({
      kind: fc.constant("commit" as const),
      client: fc.constantFrom("cl_a" as const, "cl_b" as const),
      lag: fc.nat({ max: 6 }),
    }),
    fc.record({ kind: fc.constant("tick" as const), ms: fc.constantFrom(0, 1, 1_000) }),
    fc.record({ kind: fc.constant("export" as const), bounded: fc.boolean() }),
  );
  await fc.assert(
    fc.asyncProperty(fc.array(stepArb, { maxLength: 12 }), async (steps) => {
      await clearLedger(t);
      assertExactlyOnce(await play(t, steps));
    }),
    { numRuns: 15 },
  );
});
