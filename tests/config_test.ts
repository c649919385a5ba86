/** Settings from the environment (CONTRACT "Running", README "Settings"). */
import assert from "node:assert/strict";
import { actorStoreUrl, leasedSettingsOf, readConfig } from "../src/config.ts";
import { FORWARD_WAIT_MS } from "../src/limits.ts";

Deno.test("config: PUBLIC_URL is kept as a bare base address, a trailing slash dropped", () => {
  assert.equal(readConfig({}).PUBLIC_URL, undefined);
  assert.equal(
    readConfig({ PUBLIC_URL: "https://track.example.com/" }).PUBLIC_URL,
    "https://track.example.com",
  );
  assert.equal(
    readConfig({ SANDBOX_PUBLIC_URL: "https://sandbox.example.com/couriers//" }).SANDBOX_PUBLIC_URL,
    "https://sandbox.example.com/couriers",
  );
});

Deno.test("config: a PUBLIC_URL that is no bare http(s) address stops the start, naming it", () => {
  for (
    const bad of [
      "track.example.com",
      "ftp://example.com",
      "https://example.com/?a=1",
      "https://u:p@example.com",
    ]
  ) {
    assert.throws(() => readConfig({ PUBLIC_URL: bad }), (e: Error) => {
      assert.match(e.message, /^invalid configuration: PUBLIC_URL: /);
      return true;
    }, bad);
  }
});

Deno.test("config: ACTOR_STORE chooses Deno KV by default, Postgres at ACTOR_STORE_URL or DATABASE_URL; a bad one stops the start", () => {
  assert.equal(readConfig({}).ACTOR_STORE, "kv");
  assert.equal(actorStoreUrl(readConfig({ DATABASE_URL: "postgres://db/q" })), undefined);
  const pg = { ACTOR_STORE: "postgres", DATABASE_URL: "postgres://db/q" };
  assert.equal(actorStoreUrl(readConfig(pg)), "postgres://db/q");
  assert.equal(
    actorStoreUrl(readConfig({ ...pg, ACTOR_STORE_URL: "postgres://crdb/actors" })),
    "postgres://crdb/actors",
  );
  for (
    const [bad, problem] of [
      [{ ACTOR_STORE: "postgres" }, /^invalid configuration: ACTOR_STORE: postgres needs/],
      [{ ACTOR_STORE: "mysql" }, /^invalid configuration: ACTOR_STORE: /],
    ] as const
  ) {
    assert.throws(() => readConfig(bad), (e: Error) => {
      assert.match(e.message, problem);
      return true;
    });
  }
});

Deno.test("config: PLACEMENT is one instance alone by default; leased takes LEASE_SECONDS and a name", () => {
  assert.equal(leasedSettingsOf(readConfig({}), "host"), undefined);
  const leased = leasedSettingsOf(readConfig({ PLACEMENT: "leased" }), "host");
  assert.equal(leased?.leaseMs, 10_000);
  assert.match(leased?.instance ?? "", /^host-[0-9a-f]{8}$/);
  // Each start is a new holder: its name differs from the last one's.
  assert.notEqual(
    leasedSettingsOf(readConfig({ PLACEMENT: "leased" }), "host")?.instance,
    leased?.instance,
  );
  assert.deepEqual(
    leasedSettingsOf(
      readConfig({ PLACEMENT: "leased", LEASE_SECONDS: "30", INSTANCE_NAME: "b1" }),
      "h",
    ),
    { instance: "b1", leaseMs: 30_000 },
  );
  for (const bad of [{ PLACEMENT: "sharded" }, { LEASE_SECONDS: "0" }, { LEASE_SECONDS: "ten" }]) {
    assert.throws(
      () => readConfig(bad),
      /^Error: invalid configuration: (PLACEMENT|LEASE_SECONDS): /,
    );
  }
});

Deno.test("config: FORWARD_WAIT_MS bounds how long a forward looks for a holder; a bad one stops the start", () => {
  assert.equal(readConfig({}).FORWARD_WAIT_MS, FORWARD_WAIT_MS);
  assert.equal(readConfig({ FORWARD_WAIT_MS: "250" }).FORWARD_WAIT_MS, 250);
  for (const bad of ["-1", "1.5", "soon", "600001"]) {
    assert.throws(() => readConfig({ FORWARD_WAIT_MS: bad }), /FORWARD_WAIT_MS/, bad);
  }
});
