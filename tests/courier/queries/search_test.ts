/**
 * The search's pattern and its plan (issue 42): `q` is a literal prefix in lower case, and the
 * board's and the shipment search's condition is answered from the prefix indexes of migration
 * 0018, never by reading every shipment of the courier.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { prefixPattern, searchMatches } from "../../../src/courier/queries/search.ts";
import { openTestDatabase } from "../../db/helpers.ts";

Deno.test("search: q is a prefix in lower case whose wildcards are literal", () => {
  assert.equal(prefixPattern("WB00A"), "wb00a%");
  assert.equal(prefixPattern("Thabo Mol"), "thabo mol%");
  assert.equal(prefixPattern("50%_off\\"), "50\\%\\_off\\\\%");
});

Deno.test("search: the shipments a q finds are read from the prefix indexes", async () => {
  await using t = await openTestDatabase();
  // One busy courier: its tenant alone narrows nothing.
  await sql`insert into shipments (id, tenant, version, client_id, status, external_customer_code,
      recipient_name, facility_ids, pieces_count, places_count, booked_at)
    select 'WB' || lpad(n::text, 8, '0'), 'ten', 1, 'cl_' || (n % 50), 'booked', 'CUST-' || n,
      'Name ' || n, '{}', 1, 1, n
    from generate_series(1, 3000) n`.execute(t.db);
  await sql`analyze shipments`.execute(t.db);
  const query = t.db.selectFrom("shipments").select("id")
    .where("tenant", "=", "ten")
    .where((eb) => searchMatches(eb, { pattern: prefixPattern("Thab"), client_ids: ["cl_1"] }));
  const compiled = query.compile();
  const plan = await t.db.executeQuery<{ "QUERY PLAN": string }>({
    ...compiled,
    sql: `explain ${compiled.sql}`,
  });
  const text = plan.rows.map((r) => r["QUERY PLAN"]).join("\n");
  for (const column of ["id", "external_customer_code", "recipient_name"]) {
    assert.match(text, new RegExp(`shipments_${column}_prefix_idx`), text);
  }
  assert.match(text, /BitmapOr/, text);
});
