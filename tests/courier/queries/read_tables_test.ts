import assert from "node:assert/strict";
import fc from "fast-check";
import { sql } from "kysely";
import { type ActorChange, subjectOf } from "../../../src/bus/bus.ts";
import { MemoryBus } from "../../../src/bus/memory_bus.ts";
import { migrateSchemaTo, migrateToLatest } from "../../../src/db/migrate.ts";
import { upsertSnapshots } from "../../../src/db/projection.ts";
import { startReadTables } from "../../../src/courier/queries/read_tables.ts";
import { shipmentsTable } from "../../../src/courier/queries/operations_board.ts";
import type { ShipmentSnapshot } from "../../../src/courier/queries/operations_row.ts";
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
import { openTestDatabase, type TestDatabase } from "../../db/helpers.ts";
import { businessTripsTable } from "../../../src/business/queries/trips.ts";
import { poolDriversTable } from "../../../src/business/queries/pool_drivers.ts";
import { businessCheckoutsTable } from "../../../src/business/queries/checkouts.ts";

const DAY = Date.UTC(2026, 2, 2);

const piece = fc.record({
  holder: fc.option(fc.constantFrom("driver 1", "depot", "a|b"), { nil: null }),
  facility_id: fc.option(fc.constantFrom("GBE", "FRW", "-", "MUB"), { nil: null }),
  last_scan_at: fc.option(fc.integer({ min: DAY, max: DAY + 5 }), { nil: null }),
});

/** A shipment snapshot with what the read table takes from it, pieces and scans at random. */
const shipment = fc.record({
  pieces: fc.array(piece, { minLength: 1, maxLength: 5 }),
  last_scan: fc.option(
    fc.record({
      event: fc.constantFrom("scan", "collected"),
      at: fc.integer({ min: DAY, max: DAY + 9 }),
      facility_id: fc.option(fc.constant("GBE"), { nil: null }),
      note: fc.option(fc.string({ maxLength: 8 }), { nil: null }),
    }),
    { nil: null },
  ),
  first_due_at: fc.option(fc.integer({ min: DAY, max: DAY + 10 }), { nil: null }),
  closed_at: fc.option(fc.integer({ min: DAY, max: DAY + 10 }), { nil: null }),
  reference: fc.option(fc.constantFrom("PO-1", "PO-2"), { nil: null }),
}).map((r) => (waybill: string) =>
  ({
    waybill,
    client_id: "cli_1",
    status: r.closed_at === null ? "in_transit" : "delivered",
    health: "on_schedule",
    health_reason: "on its way",
    references: {
      external_customer_code: "CUST-7",
      external_billing_reference: null,
      client_order_reference: r.reference,
    },
    external_customer_code: "CUST-7",
    external_billing_reference: null,
    client_order_reference: r.reference,
    pieces: r.pieces.map((p, i) => ({ id: `${waybill}-${i + 1}`, ...p })),
    last_scan: r.last_scan,
    next_milestone: r.first_due_at === null ? null : "delivery",
    next_due_at: r.first_due_at,
    next_owner: r.first_due_at === null ? null : "courier",
    first_due_at: r.first_due_at,
    estimated_delivery_on: "2026-03-04",
    pricing: {
      tax_minor: r.reference === null ? 1092 : 0,
      promise: {
        collection_on: "2026-03-02",
        earliest_delivery: "2026-03-03",
        latest_delivery: "2026-03-05",
      },
    },
    booked_at: DAY,
    closed_at: r.closed_at,
    delivered_at: r.closed_at,
  }) as unknown as ShipmentSnapshot
);

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

Deno.test("migrations 0016 to 0028: the read tables are rebuilt from the snapshots as the projection maps them", async () => {
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

  assert.deepEqual(await migrateToLatest(t.db, t.schema), [
    "0016_read_tables",
    "0017_more_read_tables",
    "0018_rate_counters",
    "0019_business_trips",
    "0020_outbound_log",
    "0021_business_trips_type",
    "0022_search_prefixes",
    "0023_trip_drivers",
    "0024_pool_drivers",
    "0025_sandbox_inbox_readiness",
    "0026_business_subscriptions",
    "0027_business_batches",
    "0028_business_checkouts",
  ]);

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

function shipmentChange(id: string, version: number, data: ShipmentSnapshot): ActorChange {
  return { env: "live", tenant: "ten", type: "shipment", id, version, events: [], snapshot: data };
}

async function publish(bus: MemoryBus, ...changes: ActorChange[]): Promise<void> {
  for (const c of changes) await bus.publish(subjectOf(c.env, c.tenant, c.type, c.id), c);
  await bus.flush();
}

async function statusOf(t: TestDatabase, id: string) {
  return await t.db.selectFrom("shipments").select(["version", "status", "first_due_at"])
    .where("id", "=", id).executeTakeFirst();
}

Deno.test("read tables: a replayed or reordered older change never overwrites a newer row", async () => {
  await using t = await openTestDatabase();
  const bus = new MemoryBus();
  const errors: unknown[] = [];
  const projection = startReadTables({
    bus,
    db: t.db,
    env: "live",
    onError: (e) => errors.push(e),
  });
  const make = fc.sample(shipment, { numRuns: 1, seed: 7 })[0]!;
  const at = (version: number, status: string) =>
    shipmentChange("WB1", version, { ...make("WB1"), status, first_due_at: version } as never);
  try {
    await publish(bus, at(2, "in_transit"));
    assert.deepEqual(await statusOf(t, "WB1"), {
      version: 2,
      status: "in_transit",
      first_due_at: 2,
    });
    // After a restart the runtime republishes what its recovery markers hold: older versions.
    await publish(bus, at(1, "booked"), at(2, "booked"));
    assert.deepEqual(await statusOf(t, "WB1"), {
      version: 2,
      status: "in_transit",
      first_due_at: 2,
    });
    // One batch with both versions of one shipment, newest first: the newest stays.
    await publish(bus, at(4, "delivered"), at(3, "out_for_delivery"));
    assert.deepEqual(await statusOf(t, "WB1"), {
      version: 4,
      status: "delivered",
      first_due_at: 4,
    });
    // A change of another environment is not this projection's.
    await bus.publish(subjectOf("sandbox", "ten", "shipment", "WB2"), {
      ...at(1, "booked"),
      env: "sandbox",
      id: "WB2",
    });
    await bus.flush();
    assert.equal(await statusOf(t, "WB2"), undefined);
    assert.deepEqual(errors, []);
  } finally {
    await projection.stop();
    await bus.drain();
  }
});

Deno.test("read tables: any order of versions, duplicates included, ends at the newest", async () => {
  await using t = await openTestDatabase();
  const bus = new MemoryBus();
  const projection = startReadTables({ bus, db: t.db, env: "live" });
  const make = fc.sample(shipment, { numRuns: 1, seed: 8 })[0]!;
  try {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 20 }), { minLength: 1, maxLength: 12 }),
        fc.uuid(),
        async (versions, id) => {
          await publish(
            bus,
            ...versions.map((v) =>
              shipmentChange(id, v, { ...make(id), first_due_at: v } as ShipmentSnapshot)
            ),
          );
          const row = await statusOf(t, id);
          assert.equal(row?.version, Math.max(...versions));
          assert.equal(row?.first_due_at, Math.max(...versions));
        },
      ),
      { numRuns: 25 },
    );
  } finally {
    await projection.stop();
    await bus.drain();
  }
});

Deno.test("read tables: a change a table refuses is parked, not dropped, and goes in once the cause is gone", async () => {
  await using t = await openTestDatabase();
  const bus = new MemoryBus();
  const errors: string[] = [];
  const projection = startReadTables({
    bus,
    db: t.db,
    env: "live",
    onError: (_e, subject) => errors.push(subject),
  });
  const make = fc.sample(shipment, { numRuns: 1, seed: 9 })[0]!;
  try {
    await sql`alter table shipments add constraint poison check (id <> 'WB-P')`.execute(t.db);
    await publish(
      bus,
      shipmentChange("WB-P", 1, make("WB-P")),
      shipmentChange("WB1", 1, make("WB1")),
    );
    assert.deepEqual(errors, ["live.ten.shipment.WB-P"]);
    assert.equal(await statusOf(t, "WB-P"), undefined);
    assert.equal((await statusOf(t, "WB1"))?.version, 1, "one bad change keeps no other out");
    const parked = await t.db.selectFrom("parked_changes").select(["projection", "subject"])
      .execute();
    assert.deepEqual(parked, [{ projection: "read_tables", subject: "live.ten.shipment.WB-P" }]);

    assert.equal(await projection.retryParked(), 0, "still refused: kept");
    await sql`alter table shipments drop constraint poison`.execute(t.db);
    assert.equal(await projection.retryParked(), 1);
    assert.equal((await statusOf(t, "WB-P"))?.version, 1);
    assert.deepEqual(await t.db.selectFrom("parked_changes").selectAll().execute(), []);
  } finally {
    await projection.stop();
    await bus.drain();
  }
});

Deno.test("board counts: after any writes, replays and closings they are the open shipments by health and owner", async () => {
  await using t = await openTestDatabase();
  const bus = new MemoryBus();
  const projection = startReadTables({ bus, db: t.db, env: "live" });
  const make = fc.sample(shipment, { numRuns: 1, seed: 10 })[0]!;
  const versions = new Map<string, number>();
  const write = fc.record({
    id: fc.constantFrom("WB1", "WB2", "WB3", "WB4"),
    tenant: fc.constantFrom("ten", "other"),
    health: fc.constantFrom("on_schedule", "late", "at_risk"),
    owner: fc.option(fc.constantFrom("courier", "customs"), { nil: null }),
    closed: fc.boolean(),
    replay: fc.boolean(),
  });
  try {
    await fc.assert(
      fc.asyncProperty(fc.array(write, { minLength: 1, maxLength: 15 }), async (writes) => {
        for (const w of writes) {
          const id = `${w.tenant}-${w.id}`;
          // A replay is an older version again: it must change nothing, counts included.
          const version = w.replay ? (versions.get(id) ?? 1) : (versions.get(id) ?? 0) + 1;
          versions.set(id, Math.max(version, versions.get(id) ?? 0));
          const data = {
            ...make(id),
            health: w.health,
            next_owner: w.owner,
            closed_at: w.closed ? DAY : null,
          } as unknown as ShipmentSnapshot;
          await publish(bus, { ...shipmentChange(id, version, data), tenant: w.tenant });
        }
        const counted = await t.db.selectFrom("shipments")
          .select((eb) => ["tenant", "health", "next_owner", eb.fn.countAll<number>().as("n")])
          .where("closed_at", "is", null)
          .groupBy(["tenant", "health", "next_owner"])
          .execute();
        const kept = await t.db.selectFrom("board_counts")
          .select(["tenant", "health", "next_owner", "n"])
          .where("n", "<>", 0)
          .execute();
        const key = (r: { tenant: string; health: string | null; next_owner: string | null }) =>
          `${r.tenant}|${r.health}|${r.next_owner}`;
        const byKey = (a: Parameters<typeof key>[0], b: Parameters<typeof key>[0]) =>
          key(a) < key(b) ? -1 : 1;
        assert.deepEqual(
          kept.map((k) => ({ ...k, n: Number(k.n), next_owner: k.next_owner || null }))
            .sort(byKey),
          counted.map((c) => ({ ...c, n: Number(c.n) })).sort(byKey),
        );
      }),
      { numRuns: 20 },
    );
  } finally {
    await projection.stop();
    await bus.drain();
  }
});
