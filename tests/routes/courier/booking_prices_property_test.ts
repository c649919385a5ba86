/** Prices for random rate cards and parcels match the pricing rules exactly (property). */
import assert from "node:assert/strict";
import fc from "fast-check";
import { withTestEnv } from "../../helpers/test_env.ts";
import { DOMESTIC } from "../../helpers/courier.ts";
import { formatMinor, toMinor } from "../../../src/domain/money.ts";
import { priceOption } from "../../../src/courier/rules/pricing.ts";
import type { RateCardTerms } from "../../../src/courier/rules/rate_card.ts";
import { prices, ready } from "./booking_fixtures.ts";

/** A version's terms as the route takes them: minor units, basis points and grams as decimals. */
const cardTermsArb = fc.record({
  base_charge: fc.integer({ min: 0, max: 100_000 }),
  per_kg: fc.integer({ min: 0, max: 10_000 }),
  included_grams: fc.integer({ min: 0, max: 5_000 }),
  volumetric_divisor: fc.integer({ min: 1_000, max: 6_000 }),
  minimum_charge: fc.integer({ min: 0, max: 200_000 }),
  collection_fee: fc.integer({ min: 0, max: 2_000 }),
  delivery_fee: fc.integer({ min: 0, max: 2_000 }),
  discount_bp: fc.integer({ min: 0, max: 10_000 }),
  surcharge_bp: fc.integer({ min: 0, max: 100_000 }),
  tax_bp: fc.integer({ min: 0, max: 10_000 }),
  tax_inclusive: fc.boolean(),
  liability_cover_bp: fc.integer({ min: 0, max: 10_000 }),
  corridor: fc.option(
    fc.record({
      base_charge: fc.integer({ min: 0, max: 100_000 }),
      per_kg: fc.integer({ min: 0, max: 10_000 }),
    }),
    { nil: null },
  ),
});

const requestArb = fc.record({
  parcels: fc.array(
    fc.record({
      weight_kg: fc.integer({ min: 1, max: 200_000 }).map((g) => g / 1000),
      length_cm: fc.integer({ min: 1, max: 2_000 }).map((mm) => mm / 10),
      width_cm: fc.integer({ min: 1, max: 2_000 }).map((mm) => mm / 10),
      height_cm: fc.integer({ min: 1, max: 2_000 }).map((mm) => mm / 10),
    }),
    { minLength: 1, maxLength: 5 },
  ),
  to_country: fc.constantFrom("BW", "ZA"),
  declared_minor: fc.option(fc.integer({ min: 0, max: 100_000_000 }), { nil: null }),
  liability_cover: fc.boolean(),
});

const pct = (bp: number) => formatMinor(bp, "BWP");

Deno.test("prices: for random cards published through the API and random parcels, every option shows the domain's exact lines, in spec order, adding up to the total (property)", () =>
  withTestEnv(async (t) => {
    const [courier, client] = await ready(t);
    const key = courier.business.api_key;
    const adjustments: Record<string, number> = { express: 2_000, economy: 0 };
    await fc.assert(
      fc.asyncProperty(cardTermsArb, requestArb, async (card, req) => {
        t.clock.advanceBy(1);
        const corridors = card.corridor === null ? [] : [{
          from: "BW",
          to: "ZA",
          base_charge: formatMinor(card.corridor.base_charge, "BWP"),
          per_kg: formatMinor(card.corridor.per_kg, "BWP"),
          label: "Gaborone-Johannesburg",
        }];
        // A card of its own each run (and for each shrinking step): one card's versions are
        // bounded (rate_card_full), and a shrink runs the property many more times.
        const published = await t.call(
          "POST",
          "/business/courier/rate-cards",
          {
            key,
            body: {
              currency: "BWP",
              tax_label: "VAT",
              customs_admin_fee: 75,
              base_charge: formatMinor(card.base_charge, "BWP"),
              per_kg: formatMinor(card.per_kg, "BWP"),
              included_kg: card.included_grams / 1000,
              volumetric_divisor: card.volumetric_divisor,
              minimum_charge: formatMinor(card.minimum_charge, "BWP"),
              collection_fee: formatMinor(card.collection_fee, "BWP"),
              delivery_fee: formatMinor(card.delivery_fee, "BWP"),
              discount_pct: pct(card.discount_bp),
              surcharge_pct: pct(card.surcharge_bp),
              tax_pct: pct(card.tax_bp),
              tax_inclusive: card.tax_inclusive,
              corridors,
              liability_cover_pct: pct(card.liability_cover_bp),
              name: `Card ${t.clock.now()}`,
            },
          },
        );
        assert.equal(published.status, 201, JSON.stringify(published.body));
        const assigned = await t.call("PATCH", `/business/courier/clients/${client.id}`, {
          key,
          body: { rate_card_id: published.body.data.id },
        });
        assert.equal(assigned.status, 200, JSON.stringify(assigned.body));
        const body = {
          ...DOMESTIC,
          parcels: req.parcels,
          to_country: req.to_country,
          liability_cover: req.liability_cover && req.declared_minor !== null,
          ...(req.declared_minor === null
            ? {}
            : { declared_value: formatMinor(req.declared_minor, "BWP") }),
        };
        const data = await prices(t, client, body);
        const terms: RateCardTerms = {
          currency: "BWP",
          base_charge: card.base_charge,
          per_kg: card.per_kg,
          included_grams: card.included_grams,
          volumetric_divisor: card.volumetric_divisor,
          minimum_charge: card.minimum_charge,
          collection_fee: card.collection_fee,
          delivery_fee: card.delivery_fee,
          discount_bp: card.discount_bp,
          surcharge_bp: card.surcharge_bp,
          tax_bp: card.tax_bp,
          tax_inclusive: card.tax_inclusive,
          tax_label: "VAT",
          corridors: corridors.length === 0 ? [] : [{
            from: "BW",
            to: "ZA",
            base_charge: card.corridor!.base_charge,
            per_kg: card.corridor!.per_kg,
            label: "Gaborone-Johannesburg",
          }],
          liability_cover_bp: card.liability_cover_bp,
          redelivery_fee: 0,
          return_fee: 0,
          claim_window_days: 30,
          customs_admin_fee: 7_500,
          errand_fee: 0,
          failed_collection_fee: 0,
          cold_chain_fee: 0,
          waiting_fee: 0,
        };
        const minor = (n: number) => {
          const m = toMinor(n, "BWP");
          assert.ok(m.ok, `not a 2-decimal amount: ${n}`);
          return m.minor;
        };
        for (const o of data.options) {
          const want = priceOption(terms, {
            code: o.code,
            name: o.name,
            adjustment_bp: adjustments[o.code]!,
          }, {
            parcels: req.parcels,
            from_country: "BW",
            to_country: req.to_country,
            declared_value_minor: req.declared_minor,
            liability_cover: body.liability_cover,
          });
          const shown: [string, number][] = o.lines.map((
            l: { code: string; amount: number },
          ) => [l.code, minor(l.amount)]);
          assert.deepEqual(shown, want.lines.map((l) => [l.code, l.amount_minor]));
          assert.equal(minor(o.total), want.total_minor);
          assert.equal(minor(o.tax), want.tax_minor);
          assert.equal(shown.reduce((s, [, a]) => s + a, 0), want.total_minor);
          const tax = o.lines.at(-1);
          assert.equal(tax.code, "tax");
          assert.equal(tax.included, card.tax_inclusive);
          assert.equal(minor(tax.tax), want.tax_minor);
          // The view states grams as kilograms (a decimal): compared as the same decimal.
          assert.equal(o.chargeable_kg, want.chargeable_grams / 1000);
          assert.ok(
            o.lines.every((l: { code: string; amount: number }) =>
              l.amount >= 0 || l.code === "discount" || l.code === "service_level"
            ),
          );
        }
      }),
      { numRuns: 25 },
    );
  }));
