/**
 * Changes a projection could not write for a lasting reason (a value a table refuses, a defect a
 * later release fixes). They used to be reported and dropped, so a ledger entry could be missing
 * from statements and exports for good. They are now kept in `parked_changes` (migration 0014),
 * written again at every sweep round until they go in, and listed for the operator
 * (GET /operator/parked-changes). Product rule: nothing is ever lost.
 *
 * Writing a parked change again is safe in any order: both projections' writes are idempotent and
 * never move a row backwards (snapshots by version, events by seq, entries by kind and reference).
 */
import { type Kysely, sql } from "kysely";
import { sha256Hex } from "../domain/secrets.ts";
import type { Database, ParkedChangeTable } from "./schema.ts";
import { isTransient } from "./sync.ts";

type ProjectionName = ParkedChangeTable["projection"];

/**
 * What a parked change keeps readers from counting as written: the actor whose changes it is
 * one of, and the lowest seq it hands out (see ledger_watermarks.ts).
 */
export interface ParkedHold {
  readonly tenant: string;
  readonly actor_id: string;
  readonly seq: number;
}

/** Parked changes one retry round writes again at most, oldest first. */
const PARKED_RETRY_MAX = 100;

/** The error as stored: Postgres text takes no NUL and no unpaired surrogate. */
const ERROR_TEXT_MAX = 2_000;

/**
 * Keeps a change its projection could not write. The same change parked again (written again
 * after a restart, or by another instance) is one row with one more attempt.
 */
async function parkChange(
  db: Kysely<Database>,
  projection: ProjectionName,
  subject: string,
  change: unknown,
  error: unknown,
  hold: ParkedHold | null,
): Promise<void> {
  // JSON text escapes every control character and unpaired surrogate: text always takes it.
  const payload = JSON.stringify(change);
  const text = errorText(error);
  await db.insertInto("parked_changes")
    .values({
      projection,
      digest: sha256Hex(payload),
      subject,
      payload,
      error: text,
      tenant: hold?.tenant ?? null,
      actor_id: hold?.actor_id ?? null,
      holds_seq: hold?.seq ?? null,
    })
    .onConflict((oc) =>
      oc.columns(["projection", "digest"]).doUpdateSet({
        attempts: sql`parked_changes.attempts + 1`,
        error: text,
        failed_at: sql`now()`,
      })
    )
    .execute();
}

/** Where a retry round stopped: the last parked change it took, by its exact parked_at. */
interface RoundCursor {
  /** `parked_at` as Postgres writes it: a Date would drop its microseconds. */
  readonly parked_at: string;
  readonly digest: string;
}

/**
 * Writes the projection's parked changes again through `write`, oldest first, at most `limit`,
 * starting after `after` (where the round before stopped). One written is let go; one failing
 * again stays, with its new error and one more attempt. A transient failure is thrown (the next
 * round tries again). Answers how many went in, and where the next round starts: null (the
 * oldest again) once this one reached the newest.
 */
async function retryParked(
  db: Kysely<Database>,
  projection: ProjectionName,
  write: (change: unknown) => Promise<void>,
  after: RoundCursor | null,
  limit = PARKED_RETRY_MAX,
): Promise<{ written: number; next: RoundCursor | null }> {
  const page = (from: RoundCursor | null) => {
    let query = db.selectFrom("parked_changes")
      .select(["digest", "payload", sql<string>`parked_at::text`.as("at")])
      .where("projection", "=", projection);
    if (from !== null) {
      query = query.where(
        sql<boolean>`(parked_at, digest) > (${from.parked_at}::timestamptz, ${from.digest})`,
      );
    }
    return query.orderBy("parked_at").orderBy("digest").limit(limit).execute();
  };
  let rows = await page(after);
  // Those after the cursor were all written meanwhile: this round starts from the oldest.
  if (rows.length === 0 && after !== null) rows = await page(null);
  let written = 0;
  for (const row of rows) {
    const parked = db.updateTable("parked_changes")
      .where("projection", "=", projection).where("digest", "=", row.digest);
    try {
      await write(JSON.parse(row.payload));
    } catch (error) {
      if (isTransient(error)) throw error;
      await parked.set({
        attempts: sql`attempts + 1`,
        error: errorText(error),
        failed_at: sql`now()`,
      }).execute();
      continue;
    }
    // A crash before this delete only writes the change once more, which changes nothing.
    await db.deleteFrom("parked_changes")
      .where("projection", "=", projection).where("digest", "=", row.digest).execute();
    written++;
  }
  const last = rows.at(-1);
  const next = rows.length < limit || last === undefined
    ? null
    : { parked_at: last.at, digest: last.digest };
  return { written, next };
}

/** One projection's parked changes: parks what it cannot write, and writes them again. */
export class Parking {
  readonly #db: Kysely<Database>;
  readonly #projection: ProjectionName;
  readonly #write: (change: unknown) => Promise<void>;
  readonly #report: (error: unknown, subject: string) => void;
  readonly #holdOf: (change: unknown) => ParkedHold | null;
  #retrying: Promise<number> | null = null;
  /**
   * Where the next round starts. A round takes at most PARKED_RETRY_MAX changes: were each to
   * start from the oldest, that many refused for good would keep every later one from ever being
   * written again (product rule: nothing is ever lost). Each round goes on from the last, back
   * to the oldest once it has reached the newest, so every parked change is tried within a few
   * rounds; within a pass they are still tried oldest first, so a change parked behind an older
   * one it needs goes in after it.
   */
  #cursor: RoundCursor | null = null;

  constructor(options: {
    readonly db: Kysely<Database>;
    readonly projection: ProjectionName;
    /** Writes one parked change as it was kept. */
    readonly write: (change: unknown) => Promise<void>;
    readonly report: (error: unknown, subject: string) => void;
    /** What a parked change holds back until it goes in (none when absent). */
    readonly holdOf?: (change: unknown) => ParkedHold | null;
  }) {
    this.#db = options.db;
    this.#projection = options.projection;
    this.#write = options.write;
    this.#report = options.report;
    this.#holdOf = options.holdOf ?? (() => null);
  }

  /** Reports the change that cannot be written and keeps it, to be written again. */
  async park(error: unknown, subject: string, change: unknown): Promise<void> {
    this.#report(error, subject);
    try {
      await parkChange(
        this.#db,
        this.#projection,
        subject,
        change,
        error,
        this.#holdOf(change),
      );
    } catch (failure) {
      // Thrown, the batch is written again after a wait; lasting, it can only be reported.
      if (isTransient(failure)) throw failure;
      this.#report(failure, subject);
    }
  }

  /** `retryParked` one round at a time: a call while one is under way answers that one. */
  retry(): Promise<number> {
    this.#retrying ??= retryParked(this.#db, this.#projection, this.#write, this.#cursor)
      .then(({ written, next }) => {
        this.#cursor = next;
        return written;
      })
      .finally(() => this.#retrying = null);
    return this.#retrying;
  }
}

function errorText(error: unknown): string {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return message.replaceAll("\u0000", "\\u0000").slice(0, ERROR_TEXT_MAX).toWellFormed();
}
