/**
 * One saved address of a courier client (actors/courier/client_address.ts; courier 4.6 `GET,
 * POST /client/addresses`, fields in the words of 2.1): saved under a label, saved again under
 * the same label to update it.
 */
import assert from "node:assert/strict";
import {
  ADDRESS_LABEL_CHARS_MAX,
  ADDRESS_NAME_CHARS_MAX,
  ADDRESS_TEXT_CHARS_MAX,
  type AddressFields,
  addressIdOf,
  addressProblem,
  clientAddressActor,
  type ClientAddressCommand,
} from "../../../actors/courier/client_address.ts";
import { ActorHarness } from "../../helpers/actor.ts";

const T0 = Date.parse("2026-11-02T08:00:00Z");
const FIELDS: AddressFields = {
  label: "Head office",
  name: "Molapo Pharmacy",
  address: "Plot 123, Main Mall, Gaborone",
  phone: "+26771234567",
  country: "BW",
  lat: -24.6545,
  lng: 25.9086,
};
const ID = addressIdOf("biz_1", "cli_1", FIELDS.label);

function save(fields: AddressFields = FIELDS, by = "usr_1"): ClientAddressCommand {
  return { kind: "save", id: ID, courier_id: "biz_1", client_id: "cli_1", fields, by };
}

Deno.test("client address: the first save creates the address with its times", () => {
  const h = new ActorHarness(clientAddressActor, { now: T0 });
  const step = h.must(save());
  const address = {
    ...FIELDS,
    id: ID,
    courier_id: "biz_1",
    client_id: "cli_1",
    created_at: T0,
    updated_at: T0,
    saved_by: "usr_1",
  };
  assert.deepEqual(step.events, [{ kind: "address_saved", address }]);
  assert.deepEqual(step.reply, { address, created: true });
  assert.deepEqual(h.must({ kind: "get" }).reply, address);
  assert.deepEqual(clientAddressActor.project!(h.state), address);
  assert.equal(clientAddressActor.project!(null), undefined);
  assert.deepEqual(h.replayed(), h.state);
});

Deno.test("client address: saving under the label again updates it, keeping when it was created", () => {
  const h = new ActorHarness(clientAddressActor, { now: T0 });
  h.must(save());
  h.now = T0 + 60_000;
  const step = h.must(save({ ...FIELDS, phone: null, lat: null, lng: null }, "usr_2"));
  assert.equal(step.reply && "created" in step.reply && step.reply.created, false);
  assert.equal(h.state?.created_at, T0);
  assert.equal(h.state?.updated_at, T0 + 60_000);
  assert.equal(h.state?.saved_by, "usr_2");
  assert.deepEqual([h.state?.phone, h.state?.lat, h.state?.lng], [null, null, null]);
});

Deno.test("client address: the label names one entry, whatever its case or spaces", () => {
  assert.equal(addressIdOf("biz_1", "cli_1", "  HEAD office "), ID);
  assert.notEqual(addressIdOf("biz_1", "cli_2", FIELDS.label), ID);
  assert.match(ID, /^adr_[0-9a-f]{24}$/);
});

Deno.test("client address: each field out of bounds is refused, naming the first problem", () => {
  const cases: [Partial<AddressFields>, string][] = [
    [{ label: " " }, "label"],
    [{ label: "l".repeat(ADDRESS_LABEL_CHARS_MAX + 1) }, "label"],
    [{ name: "" }, "name"],
    [{ name: "n".repeat(ADDRESS_NAME_CHARS_MAX + 1) }, "name"],
    [{ address: "  " }, "address"],
    [{ address: "a".repeat(ADDRESS_TEXT_CHARS_MAX + 1) }, "address"],
    [{ country: "XX" }, "country"],
    [{ country: "bw" }, "country"],
    [{ lat: null }, "lat and lng go together"],
    [{ lng: null }, "lat and lng go together"],
    [{ lat: 90.5 }, "lat"],
    [{ lat: -91 }, "lat"],
    [{ lng: 180.1 }, "lng"],
    [{ label: "", name: "" }, "label"],
  ];
  for (const [change, problem] of cases) {
    assert.equal(addressProblem({ ...FIELDS, ...change }), problem);
    new ActorHarness(clientAddressActor, { now: T0 }).refused(
      save({ ...FIELDS, ...change }),
      "validation_failed",
      `invalid address: ${problem}`,
    );
  }
  const edges: Partial<AddressFields>[] = [
    { label: "l".repeat(ADDRESS_LABEL_CHARS_MAX) },
    { lat: 90, lng: -180 },
    { lat: null, lng: null },
  ];
  for (const change of edges) assert.equal(addressProblem({ ...FIELDS, ...change }), null);
});

Deno.test("client address: a refused update leaves the saved address as it was", () => {
  const h = new ActorHarness(clientAddressActor, { now: T0 });
  h.must(save());
  h.refused(save({ ...FIELDS, country: "ZZ" }), "validation_failed");
  assert.equal(h.state?.country, "BW");
});

Deno.test("client address: get before a save is not_found", () => {
  new ActorHarness(clientAddressActor).refused({ kind: "get" }, "not_found", "address not found");
});
