/**
 * The business's dispatch board in a real browser (issue 38 item 7): Chromium (helpers/browser.ts)
 * driven by playwright-core against the app on a real HTTP server. A booking, an acceptance and a
 * driver's position reach the open page without a reload, on the map and in the lists; the trip
 * ended leaves it; another business's driver never appears on it.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { tripActor, type TripDriver } from "../../actors/business/trip/mod.ts";
import { launchChromium } from "../helpers/browser.ts";
import { onlineDriverAt } from "../helpers/pool_drivers.ts";
import { withTestEnv } from "../helpers/test_env.ts";
import { book, fundedBusiness, PARCEL } from "../routes/business/trips_fixtures.ts";
import { serveLive } from "../helpers/live_server.ts";

/** Playwright's wait for anything the page should show. */
const SHOW_MS = 15_000;

Deno.test({
  name:
    "dispatch board page: a booking, an acceptance and a position arrive live; an ended trip leaves; only the business's drivers",
  // Playwright keeps its pipe to Chromium open between steps; everything is closed in finally.
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withTestEnv(async (t) => {
      const b = await fundedBusiness(t);
      const driver = await onlineDriverAt(t, -24.64, 25.91, { name: "Kagiso Driver" });
      // Another business's driver, farther from the pickup: never on this business's board.
      const other = await fundedBusiness(t);
      const stranger = await onlineDriverAt(t, -24.67, 25.93, { name: "Tumelo Stranger" });
      await t.settle();

      const server = serveLive(t.app.fetch);
      const origin = `http://127.0.0.1:${server.port}`;
      let browser: Browser | null = null;
      // The pump runs every TIMER_POLL_MS in a server; here it is turned by hand, as the page waits.
      const pumping = setInterval(() => void t.env.pump().catch(() => {}), 100);
      try {
        browser = await launchChromium();
        const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
        const problems: string[] = [];
        page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
        page.on("console", (m) => {
          if (m.type() === "error") problems.push(`console: ${m.text()}`);
        });
        await page.goto(
          `${origin}/api/business/dispatch-board#key=${encodeURIComponent(b.api_key)}`,
        );
        await page.locator('#connection[data-state="live"]').waitFor({ timeout: SHOW_MS });
        const driverRow = page.locator(`tr[data-driver-id="${driver.id}"]`);
        const strangerShown = page.locator(
          `[data-driver-id="${stranger.id}"], ` +
            `[data-map-driver="${stranger.id}"]`,
        );
        assert.equal(await driverRow.count(), 0, "on none of the business's trips yet");
        assert.equal(new URL(page.url()).hash, "", "the key leaves the address bar");
        await page.evaluate(() => {
          (globalThis as Record<string, unknown>).boardMarker = "not reloaded";
        });

        // A booking appears as pending, on the map too.
        const booked = await book(t, b.api_key, PARCEL);
        assert.equal(booked.status, 201, JSON.stringify(booked.body));
        const reference: string = booked.body.data.reference;
        const trip = (status: string) =>
          page.locator(`[data-status-column="${status}"] li[data-reference="${reference}"]`);
        await trip("pending").waitFor({ timeout: SHOW_MS });
        await page.locator(`[data-map-trip="${reference}"]`).waitFor({ timeout: SHOW_MS });
        // Offered it (the nearest driver), the driver comes onto the board.
        await driverRow.waitFor({ timeout: SHOW_MS });
        assert.match(await driverRow.innerText(), /Kagiso Driver/);
        // The other business's booking goes to the other driver, who moves: not shown here.
        assert.equal((await book(t, other.api_key, PARCEL)).status, 201);
        const far = await t.call("POST", "/driver/positions", {
          bearer: stranger.token,
          body: { positions: [{ lat: -24.66, lng: 25.92, at: new Date(t.clock.now() + 500) }] },
        });
        assert.equal(far.status, 200, JSON.stringify(far.body));

        // Accepted by the driver: it moves to its status with the driver's name.
        const accepted: TripDriver = {
          id: driver.id,
          name: "Kagiso Driver",
          phone: null,
          plate: null,
          color: null,
          vehicle_type_id: 1,
        };
        const ask = await t.env.runtime.ask(tripActor, b.id, reference, {
          kind: "accept",
          driver: accepted,
        });
        assert.ok(ask.ok);
        await trip("accepted").waitFor({ timeout: SHOW_MS });
        assert.match(await trip("accepted").innerText(), /Driver: Kagiso Driver/);
        assert.equal(await trip("pending").count(), 0);

        // The driver moves: the list and the map follow.
        const moved = await t.call("POST", "/driver/positions", {
          bearer: driver.token,
          body: {
            // Observed after the first one: the newest observation is the driver's position.
            positions: [{
              lat: -24.62,
              lng: 25.93,
              at: new Date(t.clock.now() + 1_000).toISOString(),
            }],
          },
        });
        assert.equal(moved.status, 200, JSON.stringify(moved.body));
        await page.locator(`tr[data-driver-id="${driver.id}"][data-lat="-24.62"]`)
          .waitFor({ timeout: SHOW_MS });
        await page.locator(`[data-map-driver="${driver.id}"][data-lat="-24.62"]`)
          .waitFor({ timeout: SHOW_MS });
        // The trip ends: it leaves the board, and so does its driver.
        const cancel = await t.call("POST", `/business/trips/${reference}/cancel`, {
          key: b.api_key,
          body: {},
        });
        assert.equal(cancel.status, 200, JSON.stringify(cancel.body));
        await page.locator(`li[data-reference="${reference}"]`).waitFor({
          state: "detached",
          timeout: SHOW_MS,
        });
        await driverRow.waitFor({ state: "detached", timeout: SHOW_MS });
        assert.equal(await page.locator(`[data-map-trip="${reference}"]`).count(), 0);
        assert.equal(await strangerShown.count(), 0, "another business's driver, never");
        assert.equal(
          await page.evaluate(() => (globalThis as Record<string, unknown>).boardMarker),
          "not reloaded",
        );
        assert.deepEqual(problems, []);
        const shotPath = Deno.env.get("DISPATCH_BOARD_SCREENSHOT");
        if (shotPath) await Deno.writeFile(shotPath, await page.screenshot({ fullPage: true }));
      } finally {
        clearInterval(pumping);
        await browser?.close();
        await server.close();
      }
    }),
});
