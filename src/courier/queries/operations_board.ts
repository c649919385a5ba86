/**
 * The operations board's list (courier 4.4) over the `shipments` read table (migration 0016): one
 * page of a courier's shipments, first due first, with every filter, the counts by health over
 * every page, and each row's open alerts. The table's indexes follow these queries.
 */
import { type ExpressionBuilder, type Kysely, sql, type SqlBool } from "kysely";
import type { ReadTable } from "../../db/read_tables.ts";
import type { Database, ShipmentRow } from "../../db/schema.ts";
import { waybillSpellings } from "../rules/waybill.ts";
import { searchMatches, type ShipmentSearch, shipmentSearch } from "./search.ts";
import {
  boardRow,
  type OperationsRow,
  type ShipmentSnapshot,
  type ShipmentValues,
  shipmentValues,
} from "./operations_row.ts";

/** The `shipments` read table: one row per shipment, from its snapshot. */
export const shipmentsTable: ReadTable<ShipmentValues> = {
  table: "shipments",
  actorType: "shipment",
  columns: {
    client_id: "text",
    status: "text",
    health: "text",
    health_reason: "text",
    external_customer_code: "text",
    external_billing_reference: "text",
    client_order_reference: "text",
    recipient_name: "text",
    custody_holder: "text",
    custody_facility_id: "text",
    facility_ids: "text[]",
    pieces_count: "integer",
    places_count: "integer",
    last_scan_event: "text",
    last_scan_at: "bigint",
    last_scan_facility_id: "text",
    last_scan_note: "text",
    next_milestone: "text",
    next_due_at: "bigint",
    next_owner: "text",
    first_due_at: "bigint",
    estimated_delivery_on: "text",
    earliest_delivery: "text",
    latest_delivery: "text",
    collection_on: "text",
    tax_minor: "bigint",
    booked_at: "bigint",
    closed_at: "bigint",
    delivered_at: "bigint",
  },
  rowOf: (snapshot) => shipmentValues(snapshot as unknown as ShipmentSnapshot),
};

/** The board's filters (GET /business/courier/operations), a saved view's merged in. */
export interface BoardFilters {
  readonly health?: string | undefined;
  readonly next_owner?: string | undefined;
  readonly client_id?: string | undefined;
  readonly facility_id?: string | undefined;
  readonly q?: string | undefined;
  readonly overdue?: "0" | "1" | undefined;
  readonly open_alerts?: "0" | "1" | undefined;
  readonly include_closed?: "0" | "1" | undefined;
}

export interface BoardPage {
  readonly rows: OperationsRow[];
  /** Every health the filters (but `health` itself) leave, counted over every page. */
  readonly by_health: Record<string, number>;
}

/** One page of the board, first due first (then by waybill), and the counts by health. */
export async function operationsBoard(
  db: Kysely<Database>,
  tenant: string,
  filters: BoardFilters,
  page: { readonly now: number; readonly limit: number; readonly offset: number },
  healths: readonly string[],
): Promise<BoardPage> {
  const { now } = page;
  const search = filters.q ? await shipmentSearch(db, tenant, filters.q) : null;
  const [rows, counts] = await Promise.all([
    boardRows(db, tenant, filters, search, page),
    countsByHealth(db, tenant, filters, search, now),
  ]);
  const byHealth: Record<string, number> = Object.fromEntries(healths.map((h) => [h, 0]));
  for (const r of counts) byHealth[String(r.health)] = r.n;
  return {
    rows: rows.map(({ open_alerts, ...r }) =>
      boardRow(r.id, valuesOf(r), now, Number(open_alerts))
    ),
    by_health: byHealth,
  };
}

/**
 * One page of the board's rows, first due first (then by waybill), each with its open alerts.
 * They come back as one JSON array, not a value per column: the embedded PGlite hands each value
 * over on its own, and a page of 100 rows of 30 columns cost more than the query itself.
 */
async function boardRows(
  db: Kysely<Database>,
  tenant: string,
  filters: BoardFilters,
  search: ShipmentSearch | null,
  page: { readonly now: number; readonly limit: number; readonly offset: number },
): Promise<(ShipmentRow & { open_alerts: number })[]> {
  const rows = db.selectFrom("shipments").selectAll()
    // Each row's open alerts, from the alerts' index: no round trip of its own.
    .select((eb) => openAlerts(eb).as("open_alerts"))
    .where((eb) => boardWhere(eb, tenant, { filters, search }, page.now, true))
    .orderBy(sql`first_due_at asc nulls last`)
    .orderBy("id")
    .limit(page.limit)
    .offset(page.offset);
  const { json } = await db.selectFrom(rows.as("p"))
    .select(
      sql<string | unknown[]>`coalesce(json_agg(p order by p.first_due_at asc nulls last, p.id),
        '[]')`.as("json"),
    )
    .executeTakeFirstOrThrow();
  // postgres.js and PGlite both parse json; a driver that did not would hand over its text.
  return (typeof json === "string" ? JSON.parse(json) : json) as (ShipmentRow & {
    open_alerts: number;
  })[];
}

/** The filters `board_counts` holds its counts by: none, or the next owner. */
function countedAhead(f: BoardFilters): boolean {
  return f.include_closed !== "1" && !f.client_id && !f.facility_id && !f.q &&
    f.overdue !== "1" && f.open_alerts !== "1";
}

/**
 * The open shipments the filters (but `health`) leave, by health: from the counts the database
 * keeps (migration 0016) when they hold these filters, else counted.
 */
async function countsByHealth(
  db: Kysely<Database>,
  tenant: string,
  filters: BoardFilters,
  search: ShipmentSearch | null,
  now: number,
): Promise<{ health: string | null; n: number }[]> {
  if (!countedAhead(filters)) {
    const rows = await db.selectFrom("shipments")
      .select((eb) => ["health", eb.fn.countAll<number>().as("n")])
      .where((eb) => boardWhere(eb, tenant, { filters, search }, now, false))
      .groupBy("health")
      .execute();
    return rows.map((r) => ({ health: r.health, n: Number(r.n) }));
  }
  let q = db.selectFrom("board_counts")
    .select((eb) => ["health", eb.fn.sum<number>("n").as("n")])
    .where("tenant", "=", tenant)
    .where("n", ">", 0);
  if (filters.next_owner) q = q.where("next_owner", "=", filters.next_owner);
  const rows = await q.groupBy("health").execute();
  return rows.map((r) => ({ health: r.health === "" ? null : r.health, n: Number(r.n) }));
}

/** A read-table row back as the values it was written from. */
export function valuesOf(r: ShipmentRow): ShipmentValues {
  const { id: _id, tenant: _tenant, version: _version, ...values } = r;
  return values;
}

/** The board's filters as one condition (`health` left out for the counts by health). */
function boardWhere(
  eb: ExpressionBuilder<Database, "shipments">,
  tenant: string,
  { filters: f, search }: { filters: BoardFilters; search: ShipmentSearch | null },
  now: number,
  withHealth: boolean,
) {
  const conditions = [eb("tenant", "=", tenant)];
  if (f.include_closed !== "1") conditions.push(eb("closed_at", "is", null));
  if (withHealth && f.health) conditions.push(eb("health", "=", f.health));
  if (f.next_owner) conditions.push(eb("next_owner", "=", f.next_owner));
  if (f.client_id) conditions.push(eb("client_id", "=", f.client_id));
  if (f.facility_id) {
    conditions.push(eb(sql<SqlBool>`facility_ids @> array[${f.facility_id}]::text[]`, "=", true));
  }
  // spec: courier 4.4 q: by prefix of a reference or a name, in any case (search.ts).
  if (search) conditions.push(searchMatches(eb, search));
  if (f.overdue === "1") conditions.push(eb("first_due_at", "<=", now));
  if (f.open_alerts === "1") conditions.push(eb.exists(openAlertsOf(eb).select(sql`1`.as("one"))));
  return eb.and(conditions);
}

/** The alerts of a board row's shipment not yet resolved (alerts_open_idx). */
function openAlertsOf(eb: ExpressionBuilder<Database, "shipments">) {
  return eb.selectFrom("alerts")
    .whereRef("alerts.tenant", "=", "shipments.tenant")
    .whereRef("alerts.waybill", "=", "shipments.id")
    .where("alerts.status", "<>", "resolved");
}

function openAlerts(eb: ExpressionBuilder<Database, "shipments">) {
  return openAlertsOf(eb).select((a) => a.fn.countAll<number>().as("n"));
}

/**
 * A shipment by its waybill, typed in any case (courier 2.3), or by an external reference, exact
 * (courier 4.1).
 */
export function referenceIs(eb: ExpressionBuilder<Database, "shipments">, q: string) {
  return eb.or([
    eb("shipments.id", "in", waybillSpellings(q)),
    eb("shipments.external_customer_code", "=", q),
    eb("shipments.external_billing_reference", "=", q),
    eb("shipments.client_order_reference", "=", q),
  ]);
}
