/**
 * A shipment's own claim id naming its claim filed under another id before a shipment had one
 * claim (actors/courier/claim: ClaimFiledAs; issue 42 item 9, old data): filing there is sent to
 * that claim, naming is done once, and it is no claim itself.
 */
import assert from "node:assert/strict";
import {
  claimActor,
  type ClaimCommand,
  type ClaimState,
  isFiledAs,
} from "../../../actors/courier/claim/mod.ts";
import { ActorHarness, kinds } from "../../helpers/actor.ts";

const T0 = Date.parse("2026-11-02T08:00:00Z");
const NAME: ClaimCommand = { kind: "name_filed_claim", claim_id: "clm_old", waybill: "WB1" };
const FILE: ClaimCommand = {
  kind: "file",
  claim: {
    id: "clm_own",
    courier_id: "biz_1",
    client_id: "cli_1",
    waybill: "WB1",
    kind: "damage",
    amount_minor: 5_000,
    currency: "BWP",
    description: "Crushed box",
    evidence: null,
    window_closes_at: T0 + 86_400_000,
  },
  bounds: { limit_minor: 100_000, limit_basis: "charged", cancelled: false },
  by: "api_key",
};

Deno.test("claim: naming the claim filed under another id answers filing with that id, once", () => {
  const h = new ActorHarness(claimActor, { now: T0 });
  assert.deepEqual(kinds(h.must(NAME).events), ["filed_claim_named"]);
  assert.ok(isFiledAs(h.state));
  // Named again (a second run of the pass), or another claim named: nothing changes.
  assert.deepEqual(h.must(NAME).events, []);
  assert.deepEqual(h.must({ ...NAME, claim_id: "clm_other" }).events, []);
  const filing = h.must(FILE);
  assert.deepEqual(filing.events, []);
  assert.deepEqual(filing.reply, { filed_as: "clm_old", waybill: "WB1" });
});

Deno.test("claim: a name is no claim: not listed, not found, not decided", () => {
  const h = new ActorHarness(claimActor, { now: T0 });
  h.must(NAME);
  assert.equal(claimActor.project!(h.state), undefined);
  h.refused({ kind: "get" }, "not_found");
  h.refused({
    kind: "decide",
    outcome: "rejected",
    approved_amount_minor: null,
    reason: "no",
    by: "staff:usr_1",
  }, "not_found");
});

Deno.test("claim: a claim filed at the shipment's own id stays when a claim under another id is named", () => {
  const h = new ActorHarness(claimActor, { now: T0 });
  h.must(FILE);
  const before: ClaimState = h.state;
  assert.deepEqual(h.must(NAME).events, []);
  assert.equal(h.state, before);
  assert.ok(!isFiledAs(h.state));
});
