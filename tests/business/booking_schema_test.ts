import assert from "node:assert/strict";
import { BookRequest } from "../../src/business/booking_schema.ts";

function pathsOf(body: unknown): string[] {
  const r = BookRequest.safeParse(body);
  assert.equal(r.success, false, JSON.stringify(body));
  return (r.error?.issues ?? []).map((i) => i.path.join(".")).sort();
}

Deno.test("BookRequest: an empty body names the type and both required addresses at once", () => {
  assert.deepEqual(pathsOf({}), ["dest_address", "pickup_address", "type"]);
});

Deno.test("BookRequest: cross-field checks still run beside fields of the wrong type", () => {
  const paths = pathsOf({
    type: "parcel",
    passenger_name: 42,
    pickup_address: "Main Mall",
    pickup_lat: -24.6,
    dest_lat: "south",
    dest_lng: 25.9,
    scheduled_at: "tomorrow at ten",
    stops: [{ address: 7, lat: -24.6 }],
  });
  assert.deepEqual(paths, [
    "dest_address",
    "dest_lat",
    "passenger_name",
    "pickup_lng",
    "scheduled_at",
    "stops.0.address",
    "stops.0.lng",
  ]);
});

Deno.test("BookRequest: scheduled_at's format is the schema's; a well-formed past time passes it", () => {
  const base = {
    type: "parcel",
    pickup_address: "Main Mall",
    dest_address: "Plot 9",
  };
  assert.deepEqual(pathsOf({ ...base, scheduled_at: "2027-02-30T10:00:00Z" }), ["scheduled_at"]);
  assert.equal(BookRequest.safeParse({ ...base, scheduled_at: "2000-01-01T10:00" }).success, true);
  for (const body of ["x", null, [1]]) assert.deepEqual(pathsOf(body), [""]);
});

Deno.test("BookRequest: each term of the bulky-goods block sent is refused, named, not dropped", () => {
  const base = { type: "parcel", pickup_address: "Main Mall", dest_address: "Plot 9" };
  assert.deepEqual(
    pathsOf({
      ...base,
      needs: { body: "closed" },
      service_level: "room_of_choice",
      access: { floor: 3, lift: false },
      delivery_window: { from: "10:00", to: "12:00" },
    }),
    ["access", "delivery_window", "needs", "service_level"],
  );
  assert.equal(BookRequest.safeParse({ ...base, goods: [] }).success, true);
});
