/**
 * POST /client/prices (courier 2.1, 2.2, 2.4): how corridors and `sort` price and order the
 * options, as an integrator sees them, and as the OpenAPI document states it.
 */
import assert from "node:assert/strict";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import {
  type Client,
  clientKey,
  type Courier,
  DOMESTIC,
  HOURS,
  newClient,
  newCourier,
} from "../../helpers/courier.ts";

interface Line {
  code: string;
  label: string;
  amount: number;
}

interface Option {
  code: string;
  total: number;
  lines: Line[];
  possible_later_charges?: string;
}

async function prices(t: TestEnv, client: Client, body: Record<string, unknown>) {
  const r = await t.call("POST", "/client/prices", {
    headers: clientKey(client),
    body: { ...DOMESTIC, ...body },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data.options as Option[];
}

function economy(options: Option[]): Option {
  const o = options.find((x) => x.code === "economy");
  assert.ok(o, JSON.stringify(options));
  return o;
}

/** Service levels created after newCourier's express (+20 %) and economy (0 %). */
async function addServiceLevels(
  t: TestEnv,
  courier: Courier,
  levels: { code: string; price_adjustment_pct: number }[],
): Promise<void> {
  const key = courier.business.api_key;
  const cal = await t.call("POST", "/business/courier/calendars", {
    key,
    body: {
      code: "BW2",
      name: "Every weekday",
      timezone: "Africa/Gaborone",
      working_days: [1, 2, 3, 4, 5],
      holidays: [],
    },
  });
  assert.equal(cal.status, 201, JSON.stringify(cal.body));
  for (const l of levels) {
    const r = await t.call("POST", "/business/courier/service-levels", {
      key,
      body: {
        ...l,
        name: l.code,
        transit_days: 2,
        cut_off: "14:00",
        calendar_id: cal.body.data.id,
        ...HOURS,
      },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
  }
}

Deno.test("prices: a corridor prices its own direction only, the reverse is priced on the card, and a domestic corridor prices its domestic route", () =>
  withTestEnv(async (t) => {
    // newCourier's card: base 50 + 10/kg past 1 kg, VAT 14 % on top; corridor BW to ZA 120 + 15.
    const courier = await newCourier(t);
    const client = await newClient(t, courier);
    // 2.5 kg: 1.5 kg past the included kg.
    const out = economy(await prices(t, client, { to_country: "ZA" }));
    assert.deepEqual(out.lines[0], {
      code: "transport",
      label: "Gaborone-Johannesburg",
      amount: 142.5,
    });
    const back = economy(await prices(t, client, { from_country: "ZA", to_country: "BW" }));
    assert.deepEqual(back.lines[0], { code: "transport", label: "Transport", amount: 65 });
    assert.ok(back.possible_later_charges?.includes("ZA to BW"), "still a cross-border route");
    // A corridor whose from is its to prices the domestic route, which stays domestic.
    const v2 = await t.call("POST", `/business/courier/rate-cards/${courier.rateCardId}/versions`, {
      key: courier.business.api_key,
      body: { corridors: [{ from: "BW", to: "BW", base_charge: 30, per_kg: 4, label: "Local" }] },
    });
    assert.equal(v2.status, 201, JSON.stringify(v2.body));
    const local = economy(await prices(t, client, {}));
    assert.deepEqual(local.lines[0], { code: "transport", label: "Local", amount: 36 });
    // 36.00 is under the card's minimum charge (40.00): topped up, then taxed.
    assert.deepEqual(local.lines.map((l) => [l.code, l.amount]), [
      ["transport", 36],
      ["minimum_top_up", 4],
      ["tax", 5.6],
    ]);
    assert.equal(local.possible_later_charges, undefined);
    // The list sent replaced the whole list: BW to ZA has no corridor any more.
    const gone = economy(await prices(t, client, { to_country: "ZA" }));
    assert.deepEqual(gone.lines[0], { code: "transport", label: "Transport", amount: 65 });
  }));

Deno.test("prices: sort=cheapest orders options by total, and options of equal total keep the catalogue's order", () =>
  withTestEnv(async (t) => {
    const courier = await newCourier(t);
    await addServiceLevels(t, courier, [
      { code: "sameday", price_adjustment_pct: 20 },
      { code: "standard", price_adjustment_pct: 0 },
    ]);
    const client = await newClient(t, courier);
    const asOffered = await prices(t, client, {});
    assert.deepEqual(asOffered.map((o) => o.code), ["express", "economy", "sameday", "standard"]);
    const cheapest = await prices(t, client, { sort: "cheapest" });
    assert.deepEqual(
      cheapest.map((o) => [o.code, o.total]),
      [["economy", 74.1], ["standard", 74.1], ["express", 88.92], ["sameday", 88.92]],
    );
  }));

Deno.test("prices: the OpenAPI document says a corridor prices one direction, and how sort=cheapest orders equal totals", () =>
  withTestEnv(async (t) => {
    const { body: doc } = await t.call("GET", "/api-docs/openapi.json");
    for (const schema of ["PublishRateCard", "PublishRateCardVersion"]) {
      const corridors = doc.components.schemas[schema].properties.corridors;
      const text = String(corridors?.description ?? "");
      assert.match(text, /from `from` to `to` only/, `${schema}: ${JSON.stringify(corridors)}`);
      assert.match(text, /reverse direction needs a corridor of its own/);
      assert.match(text, /included_kg/);
    }
    const sort = doc.components.schemas.PriceRequest.properties.sort;
    assert.match(String(sort?.description ?? ""), /equal total keep the catalogue's order/);
  }));
