import assert from "node:assert/strict";
import fc from "fast-check";
import {
  buildGazetteer,
  forwardGeocode,
  normalize,
  reverseGeocode,
  type Town,
} from "../../../src/business/rules/geocode.ts";
import { gazetteer } from "../../../src/business/gazetteer.ts";

const TOWNS: Town[] = [
  { name: "Gaborone", country: "BW", population: 208_411, lat: -24.6545, lng: 25.9086 },
  { name: "Francistown", country: "BW", population: 100_079, lat: -21.17, lng: 27.5078 },
  { name: "Springfield", country: "US", population: 167_000, lat: 39.8017, lng: -89.6437 },
  { name: "Springfield", country: "US", population: 30_000, lat: 42.1015, lng: -72.5898 },
  { name: "Springfield", country: "AU", population: 10_000, lat: -27.65, lng: 152.91 },
];
const small = buildGazetteer(TOWNS);

Deno.test("geocode rules: a town's name alone is more confident than a street address in it", () => {
  const [alone] = forwardGeocode("Gaborone", { saved: [], gazetteer: small });
  const [inStreet] = forwardGeocode("Plot 50, Khama Crescent, Gaborone", {
    saved: [],
    gazetteer: small,
  });
  assert.equal(alone?.address, "Gaborone, BW");
  assert.equal(inStreet?.address, "Gaborone, BW");
  assert.ok(alone!.confidence > inStreet!.confidence);
  assert.deepEqual(forwardGeocode("Nowhere Street", { saved: [], gazetteer: small }), []);
});

Deno.test("geocode rules: towns of one name are ranked by population and a country keeps its own", () => {
  const all = forwardGeocode("Springfield", { saved: [], gazetteer: small });
  assert.deepEqual(all.map((c) => c.lat), [39.8017, 42.1015, -27.65]);
  const au = forwardGeocode("Springfield", { saved: [], gazetteer: small }, { country: "au" });
  assert.deepEqual(au.map((c) => c.country), ["AU"]);
  const named = forwardGeocode("Springfield, AU", { saved: [], gazetteer: small });
  assert.deepEqual(named.map((c) => c.country), ["AU"]);
  assert.ok(au[0]!.confidence > all[0]!.confidence, "one town of the name is surer");
});

Deno.test("geocode rules: the business's saved address comes before the gazetteer", () => {
  const saved = [{ address: "Plot 9, Block 8, Gaborone", lat: -24.6019, lng: 25.935 }];
  const [first, second] = forwardGeocode("plot 9 block 8 gaborone", { saved, gazetteer: small });
  assert.equal(first?.source, "saved_address");
  assert.equal(first?.lat, -24.6019);
  assert.equal(first?.confidence, 0.99);
  assert.equal(second?.source, "gazetteer");
  const near = reverseGeocode({ lat: -24.602, lng: 25.9351 }, { saved, gazetteer: small });
  assert.equal(near[0]?.source, "saved_address");
  assert.equal(near[1]?.address, "Gaborone, BW");
});

Deno.test("geocode rules: candidates come best first, at most the limit, confidences within 0..1", () => {
  const names = ["Gaborone", "Springfield", "Francistown", "Lobatse", "x", "Springfield, US"];
  fc.assert(fc.property(
    fc.array(fc.constantFrom(...names), { minLength: 1, maxLength: 3 }),
    fc.integer({ min: 1, max: 4 }),
    (parts, limit) => {
      const out = forwardGeocode(parts.join(", "), { saved: [], gazetteer: small }, { limit });
      assert.ok(out.length <= limit);
      for (let i = 1; i < out.length; i++) {
        assert.ok(out[i - 1]!.confidence >= out[i]!.confidence);
      }
      for (const c of out) assert.ok(c.confidence > 0 && c.confidence <= 1);
    },
  ));
  fc.assert(fc.property(
    fc.double({ min: -25, max: -24, noNaN: true }),
    fc.double({ min: 25.5, max: 26.5, noNaN: true }),
    (lat, lng) => {
      const out = reverseGeocode({ lat, lng }, { saved: [], gazetteer: small });
      for (let i = 1; i < out.length; i++) {
        assert.ok(out[i - 1]!.confidence >= out[i]!.confidence);
      }
    },
  ));
});

Deno.test("geocode rules: names compare without case, accents or punctuation", () => {
  assert.equal(normalize("  São Paulo-Centro, "), "sao paulo centro");
});

Deno.test("gazetteer: the package's towns place known cities forward and reverse", async () => {
  const g = await gazetteer();
  assert.ok(g.towns.length > 100_000);
  const sources = { saved: [], gazetteer: g };
  const [gabs] = forwardGeocode("Gaborone", sources);
  assert.equal(gabs?.country, "BW");
  assert.ok(Math.abs(gabs!.lat - -24.654) < 0.05 && Math.abs(gabs!.lng - 25.908) < 0.05);
  const [paris] = forwardGeocode("Paris, FR", sources);
  assert.ok(Math.abs(paris!.lat - 48.85) < 0.1, JSON.stringify(paris));
  const [near] = reverseGeocode({ lat: -21.17, lng: 27.51 }, sources);
  assert.equal(near?.address, "Francistown, BW");
});

Deno.test("geocode rules: a saved address and the text match by whole words, never part of a number or word", () => {
  const plot12 = { address: "Plot 12, Block 8, Gaborone", lat: -24.61, lng: 25.93 };
  const plot1 = { address: "Plot 1", lat: -24.7, lng: 25.8 };
  const source = (saved: { address: string; lat: number; lng: number }[]) => ({
    saved,
    gazetteer: small,
  });
  const savedOf = (text: string, saved: { address: string; lat: number; lng: number }[]) =>
    forwardGeocode(text, source(saved)).filter((c) => c.source === "saved_address");
  assert.deepEqual(savedOf("Plot 1", [plot12]), [], "Plot 1 is not Plot 12");
  assert.deepEqual(savedOf("Plot 12, Mogoditshane", [plot1]), [], "Plot 12 is not Plot 1");
  assert.deepEqual(savedOf("Blo", [plot12]), []);
  const [start] = savedOf("Plot 12", [plot12]);
  assert.equal(start?.confidence, 0.85, "a saved address starting with the text's words");
  const [longer] = savedOf("Plot 1, Gaborone", [plot1]);
  assert.equal(longer?.confidence, 0.85);
});
