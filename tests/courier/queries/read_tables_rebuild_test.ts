/** Migrations 0016 onwards build the read tables from the snapshots already projected. */
import assert from "node:assert/strict";
import fc from "fast-check";
import { sql } from "kysely";
import { migrateSchemaTo, migrateToLatest } from "../../../src/db/migrate.ts";
import { upsertSnapshots } from "../../../src/db/projection.ts";
import { shipmentsTable } from "../../../src/courier/queries/operations_board.ts";
import { alertsTable } from "../../../src/courier/queries/alerts.ts";
import { claimsTable } from "../../../src/courier/queries/claims.ts";
import { runsTable } from "../../../src/courier/queries/runs.ts";
import { outboundEventsTable } from "../../../src/courier/queries/billing_events.ts";
import { quotesTable } from "../../../src/courier/queries/quotes.ts";
import { crossingsTable } from "../../../src/courier/queries/customs.ts";
import { addressesTable } from "../../../src/courier/queries/client_addresses.ts";
import { packetsTable, storesTable } from "../../../src/courier/queries/client_stores.ts";
import { checklistsTable } from "../../../src/courier/queries/checklists.ts";
import { courierClientsTable } from "../../../src/courier/queries/courier_clients.ts";
import { deferredWorkTable } from "../../../src/platform/queries/deferred_work.ts";
import { after, openTestDatabase, type TestDatabase } from "../../db/helpers.ts";
import { businessTripsTable } from "../../../src/business/queries/trips.ts";
import { poolDriversTable } from "../../../src/business/queries/pool_drivers.ts";
import { businessCheckoutsTable } from "../../../src/business/queries/checkouts.ts";
import { DAY, shipment } from "./read_tables_fixtures.ts";

const OTHERS = [
  {
    type: "alert",
    id: "alr_1",
    table: alertsTable,
    data: {
      id: "alr_1",
      kind: "delivery_overdue",
      owner: "courier",
      waybill: "WB1",
      status: "resolved",
      raised_at: DAY,
      resolved_at: DAY + 9,
    },
  },
  {
    type: "claim",
    id: "clm_1",
    table: claimsTable,
    data: { client_id: "cli_1", waybill: "WB1", status: "filed", filed_at: DAY },
  },
  {
    type: "network_run",
    id: "run_1",
    table: runsTable,
    data: { id: "run_1", driver_id: "drv_1", status: "open", created_at: DAY },
  },
  {
    type: "outbound_event",
    id: "evt_1",
    table: outboundEventsTable,
    data: {
      event_id: "evt_1",
      stream: "billing",
      event_type: "charge.created",
      status: "pending",
      created_at: DAY,
      recipient: { kind: "client", client_id: "cli_1" },
      entry: { client_id: "cli_1", reference: "WB1" },
      client_id: null,
      endpoint_missing_at: DAY + 1,
      acknowledgement: { reported_state: "invoiced", external_references: { invoiced: "INV-1" } },
    },
  },
  {
    type: "outbound_event",
    id: "evt_2",
    table: outboundEventsTable,
    data: {
      stream: "webhook",
      event_type: "shipment.delivered",
      status: "delivered",
      created_at: DAY,
      recipient: { kind: "courier" },
      entry: null,
      client_id: null,
      endpoint_missing_at: null,
      acknowledgement: null,
    },
  },
  {
    type: "price_offer",
    id: "PR-1",
    table: quotesTable,
    data: { kind: "quote", reference: "PR-1", client_id: "cli_1", created_at: DAY },
  },
  {
    type: "customs_crossing",
    id: "xing_1",
    table: crossingsTable,
    data: { id: "xing_1", waybill: "WB1", status: "open", opened_at: DAY },
  },
  {
    type: "client_address",
    id: "adr_1",
    table: addressesTable,
    data: { id: "adr_1", client_id: "cli_1", label: "Head Office", name: "Neo" },
  },
  {
    type: "client_store",
    id: "sto_1",
    table: storesTable,
    data: { id: "sto_1", client_id: "cli_1", code: "GAB-1", name: "Gaborone" },
  },
  {
    type: "retail_packet",
    id: "PKT-1",
    table: packetsTable,
    data: { code: "PKT-1", client_id: "cli_1", store_id: "sto_1", state: "in_stock" },
  },
  {
    type: "compliance_checklist",
    id: "chk_1",
    table: checklistsTable,
    data: { code: "COLD", supplier: "lab", version: 2 },
  },
  {
    type: "deferred_work",
    id: "dfw_1",
    table: deferredWorkTable,
    data: { worker: "webhooks", status: "waiting", attempts: 2, deferred_at: DAY, payload: {} },
  },
  {
    type: "courier_client",
    id: "cli_1",
    table: courierClientsTable,
    data: { id: "cli_1", code: "ACME", name: "Acme" },
  },
  {
    type: "business_trip",
    id: "BK-1",
    table: businessTripsTable,
    data: {
      id: 4,
      reference: "BK-1",
      type: "ride",
      created_at: DAY,
      status: "cancelled",
      is_test: false,
      external_reference: "ORD-1",
      passenger_name: "Neo Kgosi",
      pickup: { address: "Main Mall", lat: 0, lng: 0 },
      dest: { address: "Block 8", lat: 0, lng: 0 },
    },
  },
  {
    type: "pool_driver",
    id: "pdr_1",
    table: poolDriversTable,
    data: {
      id: "pdr_1",
      name: "Neo Kgosi",
      phone: "+26771234567",
      vehicle_type_id: 2,
      zone_id: "gaborone",
      online: true,
      shift_changed_at: DAY,
    },
  },
  {
    type: "business_checkout",
    id: "CO-000000000001",
    table: businessCheckoutsTable,
    data: {
      reference: "CO-000000000001",
      status: "cancelled",
      cart_reference: "cart-1",
      created_at: DAY,
    },
  },
] as const;

/** The rows of `table` by id, as a projection would compare them: facilities in order. */
async function rowsOf(t: TestDatabase, table: string): Promise<Map<string, unknown>> {
  const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`
    .execute(t.db);
  return new Map(rows.map((r) => {
    const row = { ...r };
    if (Array.isArray(row.facility_ids)) row.facility_ids = [...row.facility_ids].sort();
    return [row.id as string, row];
  }));
}

Deno.test("migrations 0016 to 0031: the read tables are rebuilt from the snapshots as the projection maps them", async () => {
  await using t = await openTestDatabase();
  const down = await migrateSchemaTo(t.db, t.schema, "0015_parked_ledger_holds");
  assert.equal(down.error, undefined);
  const makers = fc.sample(shipment, { numRuns: 40, seed: 34 });
  const shipments = makers.map((make, i) => make(`WB${i + 1}`));
  await upsertSnapshots(t.db, [
    ...shipments.map((data, i) => ({
      type: "shipment",
      id: data.waybill,
      tenant: "ten",
      version: i + 1,
      data,
    })),
    { type: "shipment", id: "WB-NULL", tenant: "ten", version: 1, data: null },
    { type: "price_offer", id: "PR-2", tenant: "ten", version: 1, data: { kind: "held" } },
    ...OTHERS.map((o) => ({ type: o.type, id: o.id, tenant: "ten", version: 3, data: o.data })),
  ]);
  await sql`insert into parked_changes (projection, digest, subject, payload, error)
    values ('snapshots', 'd1', 'live.ten.shipment.WB9', '{}', 'e'),
      ('ledger', 'd2', 'live.ten.courier_client.c1', '{}', 'e')`.execute(t.db);

  assert.deepEqual(await migrateToLatest(t.db, t.schema), after("0015_parked_ledger_holds"));

  const stored = await rowsOf(t, "shipments");
  assert.equal(stored.size, shipments.length, "a projected null is no row");
  for (const [i, data] of shipments.entries()) {
    const values = shipmentsTable.rowOf(data as unknown as Record<string, unknown>)!;
    assert.deepEqual(stored.get(data.waybill), {
      id: data.waybill,
      tenant: "ten",
      version: i + 1,
      ...values,
      facility_ids: [...values.facility_ids].sort(),
    }, data.waybill);
  }
  for (const o of OTHERS) {
    const rows = await rowsOf(t, o.table.table);
    const values = o.table.rowOf(o.data as unknown as Record<string, unknown>);
    // The projection's columns (outbound_events' delivery-log ones, migration 0020, are not).
    const row = rows.get(o.id) as Record<string, unknown>;
    const projected = ["id", "tenant", "version", ...Object.keys(o.table.columns)];
    const kept = Object.fromEntries(projected.map((k) => [k, row?.[k]]));
    assert.deepEqual(kept, { id: o.id, tenant: "ten", version: 3, ...values }, o.id);
  }
  assert.deepEqual([...(await rowsOf(t, "quotes")).keys()], ["PR-1"], "only quotations");
  const parked = await t.db.selectFrom("parked_changes").select(["projection", "digest"])
    .orderBy("projection").orderBy("digest").execute();
  assert.deepEqual(parked, [
    { projection: "business_read_tables", digest: "d1" },
    { projection: "ledger", digest: "d2" },
    { projection: "platform_read_tables", digest: "d1" },
    { projection: "read_tables", digest: "d1" },
    { projection: "snapshots", digest: "d1" },
  ], "a change parked for the snapshots is parked for the read tables too");
});
