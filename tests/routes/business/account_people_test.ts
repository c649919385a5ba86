/** The business's people (Business API 5): roles, removal, the owner kept, tenants apart. */
import assert from "node:assert/strict";
import { businessActor } from "../../../actors/platform/business/mod.ts";
import { partitionOf } from "../../../src/runtime/placement.ts";
import { ForwardCluster } from "../../helpers/forward_placement.ts";
import { openTestEnv, withTestEnv } from "../../helpers/test_env.ts";
import { invited, login } from "./account_fixtures.ts";

Deno.test("account: an admin changes a person's name and role; the new role holds for their open session", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const owner = await login(t, b.owner.email, b.owner.password);
    const person = await invited(t, owner, "coordinator");
    const session = await login(t, person.email, person.password);
    const before = await t.call("POST", "/business/webhook-secret/regenerate", { key: session });
    assert.equal(before.body.code, "portal_admin_only");
    const r = await t.call("PATCH", `/business/people/${person.id}`, {
      key: owner,
      body: { name: "  Ada Lovelace ", portal_role: "admin", role: "owner" },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.data.name, "Ada Lovelace");
    assert.equal(r.body.data.portal_role, "admin");
    const profile = await t.call("GET", "/business/profile", { key: session });
    assert.equal(profile.body.data.portal_role, "admin");
    const list = await t.call("GET", "/business/people", { key: owner });
    const listed = list.body.data.find((p: { id: string }) => p.id === person.id);
    assert.equal(listed.portal_role, "admin");
    assert.equal(listed.name, "Ada Lovelace");
    // The same request again changes nothing more: one audit entry.
    await t.call("PATCH", `/business/people/${person.id}`, {
      key: owner,
      body: { name: "Ada Lovelace", portal_role: "admin" },
    });
    const audit = await t.call("GET", "/business/audit-log", { key: owner });
    const changed = audit.body.data.entries.filter((e: { action: string }) =>
      e.action === "staff_changed"
    );
    assert.equal(changed.length, 1);
    assert.deepEqual(changed[0].detail, {
      staff_id: person.id,
      changes: { name: "Ada Lovelace", role: "admin" },
    });
    const bad = await t.call("PATCH", `/business/people/${person.id}`, {
      key: owner,
      body: { portal_role: "owner" },
    });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.code, "validation_failed");
  }));

Deno.test("account: removing a person signs them out at once and frees their e-mail", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const owner = await login(t, b.owner.email, b.owner.password);
    const person = await invited(t, owner, "admin");
    const session = await login(t, person.email, person.password);
    assert.equal((await t.call("GET", "/business/profile", { key: session })).status, 200);
    const r = await t.call("DELETE", `/business/people/${person.id}`, { key: owner });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.data, { id: person.id, removed: true });
    const after = await t.call("GET", "/business/profile", { key: session });
    assert.equal(after.status, 401);
    assert.equal(after.body.code, "unauthenticated");
    const again = await t.call("POST", "/business/login", {
      body: { email: person.email, password: person.password },
    });
    assert.equal(again.status, 401);
    const list = await t.call("GET", "/business/people", { key: owner });
    assert.deepEqual(list.body.data.map((p: { portal_role: string }) => p.portal_role), ["owner"]);
    assert.equal(
      (await t.call("DELETE", `/business/people/${person.id}`, { key: owner })).status,
      404,
    );
    const reinvite = await t.call("POST", "/business/people", {
      key: owner,
      body: { name: "Back", email: person.email, portal_role: "coordinator" },
    });
    assert.equal(reinvite.status, 201, JSON.stringify(reinvite.body));
    const audit = await t.call("GET", "/business/audit-log", { key: owner });
    const removed = audit.body.data.entries.find((e: { action: string }) =>
      e.action === "staff_removed"
    );
    assert.deepEqual(removed.detail, { staff_id: person.id, email: person.email });
    assert.match(removed.by, /^staff:usr_/);
  }));

Deno.test("account: the business keeps its owner: not removed, not demoted, not changed by an admin", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const owner = await login(t, b.owner.email, b.owner.password);
    const invitedAdmin = await invited(t, owner, "admin");
    const admin = await login(t, invitedAdmin.email, invitedAdmin.password);
    const people = await t.call("GET", "/business/people", { key: owner });
    const ownerId = people.body.data.find((p: { portal_role: string }) =>
      p.portal_role === "owner"
    ).id;
    const refusals = [
      await t.call("DELETE", `/business/people/${ownerId}`, { key: owner }),
      await t.call("DELETE", `/business/people/${ownerId}`, { key: admin }),
      await t.call("PATCH", `/business/people/${ownerId}`, {
        key: owner,
        body: { portal_role: "admin" },
      }),
      await t.call("PATCH", `/business/people/${ownerId}`, { key: admin, body: { name: "Me" } }),
    ];
    for (const r of refusals) {
      assert.equal(r.status, 422, JSON.stringify(r.body));
      assert.equal(r.body.code, "owner_protected");
    }
    const renamed = await t.call("PATCH", `/business/people/${ownerId}`, {
      key: owner,
      body: { name: "The Owner" },
    });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    assert.equal(renamed.body.data.portal_role, "owner");
    assert.equal((await t.call("GET", "/business/profile", { key: owner })).status, 200);
  }));

Deno.test("account: people of another business are not found; the key and a coordinator are refused", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const other = await t.createBusiness();
    const owner = await login(t, b.owner.email, b.owner.password);
    const otherOwner = await login(t, other.owner.email, other.owner.password);
    const theirs = await invited(t, otherOwner, "admin");
    const invitedCoordinator = await invited(t, owner, "coordinator");
    const coordinator = await login(t, invitedCoordinator.email, invitedCoordinator.password);
    const mine = await invited(t, owner, "coordinator");
    for (
      const [method, body] of [["PATCH", { name: "Mine now" }], ["DELETE", undefined]] as const
    ) {
      const foreign = await t.call(method, `/business/people/${theirs.id}`, { key: owner, body });
      assert.equal(foreign.status, 404, JSON.stringify(foreign.body));
      assert.equal(foreign.body.code, "not_found");
      const byKey = await t.call(method, `/business/people/${mine.id}`, { key: b.api_key, body });
      assert.equal(byKey.status, 403);
      assert.equal(byKey.body.code, "signed_in_admin_only");
      const byCoordinator = await t.call(method, `/business/people/${mine.id}`, {
        key: coordinator,
        body,
      });
      assert.equal(byCoordinator.status, 403);
      assert.equal(byCoordinator.body.code, "portal_admin_only");
    }
    const list = await t.call("GET", "/business/people", { key: otherOwner });
    const still = list.body.data.find((p: { id: string }) => p.id === theirs.id);
    assert.equal(still.name, "admin");
    const doc = await t.call("GET", "/api-docs/openapi.json");
    assert.ok(doc.body.paths["/business/people/{id}"].patch);
    assert.ok(doc.body.paths["/business/people/{id}"].delete);
  }));

Deno.test("account: an Enterprise business invites people through an instance that does not hold it (unlimited crosses as JSON)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "enterprise_people_" });
  const cluster = new ForwardCluster();
  const a = await openTestEnv({ kvPath: `${dir}/kv.sqlite3`, placement: cluster.placement("a") });
  try {
    const b = await openTestEnv({ alongside: a, placement: cluster.placement("b") });
    try {
      const biz = await a.createBusiness({ plan: "enterprise" });
      const holder = cluster.ownerOf(partitionOf({ type: businessActor.type, id: biz.id }));
      const other = holder === "a" ? b : a;
      const owner = await login(other, biz.owner.email, biz.owner.password);
      // spec: business 8: Enterprise has unlimited employee accounts, on every instance.
      const r = await other.call("POST", "/business/people", {
        key: owner,
        body: { name: "Ops", email: `ops.${biz.id}@example.com`, portal_role: "coordinator" },
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      const people = await other.call("GET", "/business/people", { key: owner });
      assert.equal(people.body.data.length, 2);
    } finally {
      cluster.handOver("b", "a");
      await b.close();
    }
  } finally {
    await a.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("account: an admin removed while their requests are under way changes nothing after the removal; those requests are refused 401", () =>
  withTestEnv(async (t) => {
    const b = await t.createBusiness();
    const owner = await login(t, b.owner.email, b.owner.password);
    const admin = await invited(t, owner, "admin");
    const session = await login(t, admin.email, admin.password);
    const answers = await Promise.all([
      t.call("DELETE", `/business/people/${admin.id}`, { key: owner }),
      t.call("POST", "/business/people", {
        key: session,
        body: { name: "Kept", email: `kept.${b.id}@example.com`, portal_role: "admin" },
      }),
      t.call("POST", "/business/api-key/regenerate", { key: session }),
      t.call("PATCH", "/business/profile", {
        key: session,
        body: { webhook_url: "https://hooks.example.com/after" },
      }),
    ]);
    assert.equal(answers[0]!.status, 200, JSON.stringify(answers[0]!.body));
    for (const r of answers.slice(1)) {
      assert.ok([200, 201, 401].includes(r.status), JSON.stringify(r.body));
      if (r.status === 401) assert.equal(r.body.code, "unauthenticated");
    }
    // spec: business 5.6: a removed person's sessions end at once: nothing is recorded as made
    // by them after their removal.
    const audit = await t.call("GET", "/business/audit-log", { key: owner });
    const entries: { action: string; by: string; detail: { staff_id?: string } }[] =
      audit.body.data.entries;
    const removedAt = entries.findIndex((e) =>
      e.action === "staff_removed" && e.detail.staff_id === admin.id
    );
    assert.notEqual(removedAt, -1);
    const after = entries.slice(removedAt + 1).filter((e) => e.by === `staff:${admin.id}`);
    assert.deepEqual(after, []);
  }));
