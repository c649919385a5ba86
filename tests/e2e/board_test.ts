/**
 * The live operations board in a real browser (ARCHITECTURE "Boards", courier 4.4): Chromium
 * (the system's, or the one an npm package ships: helpers/browser.ts) driven by playwright-core
 * against the app on a real HTTP server. The page shows the courier's rows and open alerts,
 * follows scans and alert actions live without a reload, and a second courier's socket receives
 * nothing of the first courier's shipments.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { launchChromium } from "../helpers/browser.ts";
import { type TestEnv, withTestEnv } from "../helpers/test_env.ts";
import {
  type Client,
  clientKey,
  type Courier,
  DOMESTIC,
  newClient,
  newCourier,
  topUp,
} from "../helpers/courier.ts";
import { advance, until } from "../helpers/receiver.ts";
import { serveLive } from "../helpers/live_server.ts";

const HOUR = 3600;
/** Playwright's wait for anything the page should show. */
const SHOW_MS = 15_000;
/** How long the other courier's socket is watched for messages that must not come. */
const QUIET_MS = 500;

async function book(t: TestEnv, client: Client, reference: string): Promise<string> {
  const p = await t.call("POST", "/client/prices", {
    headers: clientKey(client),
    body: { ...DOMESTIC, client_order_reference: reference },
  });
  assert.equal(p.status, 200, JSON.stringify(p.body));
  const b = await t.call("POST", "/client/book", {
    headers: clientKey(client),
    body: {
      prices_reference: p.body.data.prices_reference,
      service_level: "express",
      dangerous_goods_confirmed: true,
    },
  });
  assert.equal(b.status, 201, JSON.stringify(b.body));
  return b.body.data.waybill;
}

async function alertsOf(t: TestEnv, courier: Courier, status: string) {
  await t.settle();
  const r = await t.call("GET", `/business/courier/alerts?status=${status}`, {
    key: courier.business.api_key,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data as { id: string; kind: string; waybill: string | null; status: string }[];
}

/** A socket of another courier, recording what it receives. */
async function otherBoard(origin: string, key: string) {
  const ws = new WebSocket(`${origin.replace("http", "ws")}/api/business/courier/operations/live`);
  const messages: { type: string; row?: { waybill: string } }[] = [];
  const closed = new Promise<void>((resolve) => ws.onclose = () => resolve());
  const ready = new Promise<void>((resolve, reject) => {
    ws.onopen = () => ws.send(JSON.stringify({ type: "auth", key }));
    ws.onerror = () => reject(new Error("the other courier's socket failed"));
    ws.onmessage = (e) => {
      const m = JSON.parse(e.data);
      messages.push(m);
      if (m.type === "ready") resolve();
    };
  });
  await ready;
  return {
    messages,
    async close() {
      ws.close();
      await closed;
    },
  };
}

/** What the page's pixel count needs of the browser's DOM (Deno's type check has no DOM lib). */
interface BrowserGlobals {
  Image: new () => { src: string; width: number; height: number; decode(): Promise<void> };
  document: {
    createElement(tag: "canvas"): {
      width: number;
      height: number;
      getContext(kind: "2d"): {
        drawImage(image: unknown, x: number, y: number): void;
        getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
      };
    };
  };
}

/** Distinct colours and the share of non-white pixels of a PNG, decoded by the browser. */
async function pixelStats(browser: Browser, png: Uint8Array) {
  const page = await browser.newPage();
  try {
    const base64 = btoa(Array.from(png, (b) => String.fromCharCode(b)).join(""));
    return await page.evaluate(async (data) => {
      const w = globalThis as unknown as BrowserGlobals;
      const img = new w.Image();
      img.src = `data:image/png;base64,${data}`;
      await img.decode();
      const canvas = w.document.createElement("canvas");
      canvas.width = img.width;
      canvas.height = img.height;
      const g = canvas.getContext("2d");
      g.drawImage(img, 0, 0);
      const px = g.getImageData(0, 0, img.width, img.height).data;
      const colours = new Set<number>();
      let ink = 0;
      for (let i = 0; i < px.length; i += 4) {
        const [r, gr, b] = [px[i]!, px[i + 1]!, px[i + 2]!];
        colours.add((r << 16) | (gr << 8) | b);
        if (r < 235 || gr < 235 || b < 235) ink++;
      }
      return { colours: colours.size, ink: ink / (px.length / 4) };
    }, base64);
  } finally {
    await page.close();
  }
}

function row(page: Page, waybill: string, extra = "") {
  return page.locator(`tr[data-waybill="${waybill}"]${extra}`);
}

Deno.test({
  name: "board page: rows, counts, overdue and alerts; scans and alert actions arrive live",
  // Playwright keeps its pipe to Chromium open between steps; everything is closed in finally.
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withTestEnv(async (t) => {
      const courier = await newCourier(t);
      const client = await newClient(t, courier);
      await topUp(t, courier, client, "1000");
      const other = await newCourier(t);

      // One shipment left uncollected past its 8 working hours (late, overdue, two alerts),
      // one booked afterwards (on schedule).
      const late = await book(t, client, "ORD-LATE");
      await advance(t, 8 * HOUR);
      const lateAlerts = async () =>
        (await alertsOf(t, courier, "open")).filter((a) => a.waybill === late);
      await until(t, async () => (await lateAlerts()).length === 2, "the late shipment's alerts");
      const fresh = await book(t, client, "ORD-FRESH");
      await t.settle();

      const server = serveLive(t.app.fetch);
      const origin = `http://127.0.0.1:${server.port}`;
      let browser: Browser | null = null;
      let theirs: Awaited<ReturnType<typeof otherBoard>> | null = null;
      try {
        theirs = await otherBoard(origin, other.business.api_key);
        browser = await launchChromium();
        const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
        const problems: string[] = [];
        page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
        page.on("console", (m) => {
          if (m.type() === "error") problems.push(`console: ${m.text()}`);
        });

        const key = encodeURIComponent(courier.business.api_key);
        await page.goto(`${origin}/api/business/courier/board#key=${key}`);
        await page.locator('#connection[data-state="live"]').waitFor({ timeout: SHOW_MS });
        await row(page, late).waitFor({ timeout: SHOW_MS });
        await row(page, fresh).waitFor({ timeout: SHOW_MS });
        assert.equal(new URL(page.url()).hash, "", "the key leaves the address bar");
        assert.equal(await page.locator("#sign-in").isVisible(), false);

        // The late row is highlighted and first; the counts say one late, one on schedule.
        assert.equal(await row(page, late).getAttribute("data-health"), "late");
        assert.equal(await row(page, late).getAttribute("data-overdue"), "true");
        assert.match((await row(page, late).getAttribute("class")) ?? "", /\boverdue\b/);
        assert.equal(await row(page, fresh).getAttribute("data-health"), "on_schedule");
        assert.equal(await row(page, fresh).getAttribute("data-status"), "booked");
        assert.equal(
          await page.locator("tbody tr[data-waybill]").first().getAttribute("data-waybill"),
          late,
        );
        const count = (health: string) =>
          page.locator(`[data-health-count="${health}"] .count-n`).textContent();
        assert.equal(await count("late"), "1");
        assert.equal(await count("on_schedule"), "1");
        assert.equal(await page.locator(`li.alert[data-waybill="${late}"]`).count(), 2);

        // Filters by health and next owner, and grouping.
        await page.selectOption("#filter-health", "late");
        await row(page, fresh).waitFor({ state: "detached", timeout: SHOW_MS });
        assert.equal(await row(page, late).count(), 1);
        await page.selectOption("#filter-health", "");
        await page.selectOption("#filter-owner", "customs");
        await row(page, late).waitFor({ state: "detached", timeout: SHOW_MS });
        await page.selectOption("#filter-owner", "courier");
        await row(page, fresh).waitFor({ timeout: SHOW_MS });
        await page.selectOption("#group-by", "health");
        await page.locator('tbody[data-group="Late"]').waitFor({ timeout: SHOW_MS });

        // A scan through the API reaches the open page without a reload.
        await page.evaluate(() => {
          (globalThis as Record<string, unknown>).boardMarker = "not reloaded";
        });
        const scan = await t.call("POST", `/business/courier/shipments/${fresh}/scans`, {
          key: courier.business.api_key,
          body: { event: "collected", holder: "Driver Thabo" },
        });
        assert.equal(scan.status, 201, JSON.stringify(scan.body));
        await row(page, fresh, '[data-status="collected"]').waitFor({ timeout: SHOW_MS });
        assert.match(await row(page, fresh).innerText(), /Driver Thabo/);
        assert.equal(
          await page.evaluate(() => (globalThis as Record<string, unknown>).boardMarker),
          "not reloaded",
        );

        // Alert buttons: acknowledge, assign (a prompt), resolve (two prompts).
        const alerts = await lateAlerts();
        const overdue = alerts.find((a) => a.kind === "milestone_overdue")!;
        const atRisk = alerts.find((a) => a.kind === "milestone_at_risk")!;
        const card = (id: string, extra = "") =>
          page.locator(`li.alert[data-alert-id="${id}"]${extra}`);
        await card(overdue.id).locator('[data-action="acknowledge"]').click();
        await card(overdue.id, '[data-status="acknowledged"]').waitFor({ timeout: SHOW_MS });
        const answers = ["Mpho Dlamini", "Collected late after a vehicle fault", "Trip log T-118"];
        page.on("dialog", (d) => void d.accept(answers.shift() ?? ""));
        await card(overdue.id).locator('[data-action="assign"]').click();
        await card(overdue.id).filter({ hasText: "Assigned to: Mpho Dlamini" })
          .waitFor({ timeout: SHOW_MS });
        await card(overdue.id).locator('[data-action="resolve"]').click();
        await card(overdue.id).waitFor({ state: "detached", timeout: SHOW_MS });

        // An alert acted on elsewhere (here, the API) changes on the page through the socket.
        const ack = await t.call("POST", `/business/courier/alerts/${atRisk.id}/acknowledge`, {
          key: courier.business.api_key,
        });
        assert.equal(ack.status, 200, JSON.stringify(ack.body));
        await card(atRisk.id, '[data-status="acknowledged"]').waitFor({ timeout: SHOW_MS });
        assert.equal(await page.locator(`li.alert[data-waybill="${late}"]`).count(), 1);
        const stillOpen = [
          ...await alertsOf(t, courier, "open"),
          ...await alertsOf(t, courier, "acknowledged"),
        ];
        assert.equal(await page.locator("#alert-count").textContent(), String(stillOpen.length));

        // The other courier's board heard nothing of this courier.
        await t.settle();
        await new Promise((r) => setTimeout(r, QUIET_MS));
        assert.deepEqual(theirs.messages.map((m) => m.type), ["ready"]);

        // The page as a person sees it: far from blank.
        const shot = await page.screenshot({ fullPage: true });
        const screenshotPath = Deno.env.get("BOARD_SCREENSHOT");
        if (screenshotPath) await Deno.writeFile(screenshotPath, shot);
        const blankPage = await browser.newPage({ viewport: { width: 1400, height: 900 } });
        const blankShot = await blankPage.screenshot();
        await blankPage.close();
        assert.ok(shot.length > blankShot.length * 5, `${shot.length} vs ${blankShot.length}`);
        const stats = await pixelStats(browser, shot);
        assert.ok(stats.colours > 50, `only ${stats.colours} colours`);
        assert.ok(stats.ink > 0.02, `only ${(stats.ink * 100).toFixed(2)} % of pixels drawn`);
        assert.deepEqual(problems, []);
      } finally {
        await browser?.close();
        await theirs?.close();
        await server.close();
      }
    }),
});
