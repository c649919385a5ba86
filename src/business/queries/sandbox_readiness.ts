/**
 * Going-live readiness (Business API appendix 3): the `sandbox_receiver_steps` read table
 * (migration 0025), one row per webhook a business's own receiver answered 2xx that a flow needs,
 * written by the readiness reactor keyed by the event id (a change heard twice writes nothing),
 * and the earliest evidence of each flow read from it.
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { Evidence, EvidenceByFlow, ReadinessStep } from "../rules/sandbox_readiness.ts";

/** A step shown by a delivered webhook, or an age-restricted booking (no webhook needed). */
export type StepRow = {
  readonly tenant: string;
  readonly event_id: string;
  readonly step: ReadinessStep | "age_restricted_booking";
  readonly trip_reference: string;
  readonly delivered_at: number;
};

/** Records a step once: the first delivery of an event is its evidence. */
export async function recordStep(db: Kysely<Database>, row: StepRow): Promise<void> {
  await db.insertInto("sandbox_receiver_steps").values(row)
    .onConflict((oc) => oc.columns(["tenant", "event_id"]).doNothing()).execute();
}

/** The earliest evidence of each flow, and whether the business books age-restricted trips. */
export async function readinessEvidence(
  db: Kysely<Database>,
  tenant: string,
): Promise<{ readonly evidence: EvidenceByFlow; readonly ageRestricted: boolean }> {
  const [delivery, idRefusal, driver, own, ageBooked, returned] = await Promise.all([
    earliest(db, tenant, "delivered"),
    earliest(db, tenant, "id_refused"),
    earliest(db, tenant, "driver_cancelled"),
    earliest(db, tenant, "own_cancelled"),
    earliest(db, tenant, "age_restricted_booking"),
    returnAfterFailure(db, tenant),
  ]);
  const evidence: Record<string, Evidence> = {};
  if (delivery) evidence.delivery = delivery;
  if (returned) evidence.failed_delivery_and_return = returned;
  if (idRefusal) evidence.id_refusal = idRefusal;
  if (driver) evidence.driver_cancellation = driver;
  if (own) evidence.own_cancellation = own;
  // A refusal seen means the business sells such goods, even when its booking predates the table.
  return { evidence, ageRestricted: ageBooked !== null || idRefusal !== null };
}

async function earliest(
  db: Kysely<Database>,
  tenant: string,
  step: StepRow["step"],
): Promise<Evidence | null> {
  const row = await db.selectFrom("sandbox_receiver_steps")
    .select(["event_id", "trip_reference", "delivered_at"])
    .where("tenant", "=", tenant).where("step", "=", step)
    .orderBy("delivered_at").orderBy("event_id").limit(1)
    .executeTakeFirst();
  return row ? evidenceOf(row) : null;
}

/** spec: business appendix 3: a failed delivery and its return: both handled, for one trip. */
async function returnAfterFailure(db: Kysely<Database>, tenant: string): Promise<Evidence | null> {
  const { rows } = await sql<{ event_id: string; trip_reference: string; delivered_at: string }>`
    select r.event_id, r.trip_reference, r.delivered_at from sandbox_receiver_steps r
    where r.tenant = ${tenant} and r.step = 'returned' and exists (
      select 1 from sandbox_receiver_steps f where f.tenant = r.tenant
        and f.trip_reference = r.trip_reference and f.step = 'delivery_failed')
    order by r.delivered_at, r.event_id limit 1`.execute(db);
  return rows[0] ? evidenceOf(rows[0]) : null;
}

function evidenceOf(
  row: { event_id: string; trip_reference: string; delivered_at: string | number },
): Evidence {
  return {
    event_id: row.event_id,
    trip_reference: row.trip_reference,
    delivered_at: Number(row.delivered_at),
  };
}
