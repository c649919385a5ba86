/**
 * The API reference page (`/api/docs`): Swagger UI over the environment's own OpenAPI document,
 * its script and stylesheet served by the service from the npm package. In a real browser the
 * page lists the document's operations (method, path, summary), and nothing it loads leaves
 * loopback.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { getAbsoluteFSPath } from "swagger-ui-dist";
import { launchChromium } from "../helpers/browser.ts";
import { withTestEnv } from "../helpers/test_env.ts";

/**
 * Playwright's wait for what the page should show: the first draw of 100 and more operations by a
 * software-rendered browser takes seconds, and many more on a machine busy with other test files.
 */
const SHOW_MS = 60_000;
const METHODS = ["get", "post", "put", "patch", "delete"];

interface Operation {
  readonly path: string;
  readonly method: string;
  readonly summary: string;
  readonly tag: string;
}

/** An operation's row in the list: its method, path and summary. */
function shown(page: Page, op: Operation) {
  return page.locator(`.opblock-${op.method}`)
    .filter({ has: page.locator(`.opblock-summary-path[data-path="${op.path}"]`) })
    .filter({ hasText: op.summary })
    .first();
}

async function raw(app: { fetch(r: Request): Response | Promise<Response> }, path: string) {
  return await app.fetch(new Request(`http://127.0.0.1${path}`));
}

for (const name of ["live", "sandbox"] as const) {
  Deno.test(`${name}: /api/docs is a page whose files the service serves itself`, () =>
    withTestEnv(async (t) => {
      const res = await raw(t.app, "/api/docs");
      assert.equal(res.status, 200);
      assert.match(res.headers.get("Content-Type") ?? "", /^text\/html/);
      const csp = res.headers.get("Content-Security-Policy") ?? "";
      assert.match(csp, /connect-src 'self'/);
      assert.match(csp, /default-src 'none'/);
      const html = await res.text();
      // Every address the page names is relative to it: no CDN, no other host.
      const links = [...html.matchAll(/(?:src|href|url)\s*[:=]\s*["']([^"']+)["']/g)].map((m) =>
        m[1]!
      );
      assert.deepEqual(links.sort(), [
        "api-docs/openapi.json",
        "docs/assets/favicon-32x32.png",
        "docs/assets/swagger-ui-bundle.js",
        "docs/assets/swagger-ui.css",
      ]);
      assert.doesNotMatch(html, /\/\/[a-z0-9.-]+\.[a-z]{2,}/i);

      for (const file of ["swagger-ui-bundle.js", "swagger-ui.css", "favicon-32x32.png"]) {
        const asset = await raw(t.app, `/api/docs/assets/${file}`);
        assert.equal(asset.status, 200, file);
        const bytes = new Uint8Array(await asset.arrayBuffer());
        assert.deepEqual(bytes, await Deno.readFile(join(getAbsoluteFSPath(), file)), file);
      }
      // A trailing slash is sent to the page itself, whose links are relative to it.
      const slash = await raw(t.app, "/api/docs/");
      assert.equal(slash.status, 301);
      assert.equal(
        new URL(slash.headers.get("Location")!, "http://127.0.0.1/api/docs/").pathname,
        "/api/docs",
      );
      // Only the page's own files: nothing else of the package (or beside it) is served.
      for (const other of ["package.json", "index.html", "..%2Fpackage.json"]) {
        const res = await raw(t.app, `/api/docs/assets/${other}`);
        assert.equal(res.status, 404, other);
        assert.equal((await res.json()).code, "not_found");
      }
    }, { name }));
}

Deno.test({
  name: "the reference page lists the document's operations in a browser, nothing leaving loopback",
  // Playwright keeps its pipe to Chromium open between steps; everything is closed in finally.
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    withTestEnv(async (t) => {
      const doc = (await t.call("GET", "/api-docs/openapi.json")).body as {
        paths: Record<string, Record<string, { summary?: string; tags?: string[] }>>;
      };
      const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
        METHODS.filter((m) => ops[m]).map((m) => ({
          path,
          method: m,
          summary: ops[m]!.summary ?? "",
          tag: ops[m]!.tags?.[0] ?? "default",
        }))
      );
      assert.ok(operations.length > 50, `${operations.length} operations`);

      const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, t.app.fetch);
      const origin = `http://127.0.0.1:${server.addr.port}`;
      const browser = await launchChromium();
      try {
        // Swagger UI draws only the operations near the window: one tall enough for a section.
        const page = await browser.newPage({ viewport: { width: 1400, height: 3000 } });
        const outside: string[] = [];
        await page.route("**/*", (route) => {
          const url = new URL(route.request().url());
          if (url.protocol === "data:" || url.hostname === "127.0.0.1") return route.continue();
          outside.push(url.href);
          return route.abort("blockedbyclient");
        });
        const problems: string[] = [];
        page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
        page.on("console", (m) => {
          if (m.type() === "error") problems.push(`console: ${m.text()}`);
        });

        await page.goto(`${origin}/api/docs`);
        // The first section, every operation of it by method, path and summary, as a person sees
        // them (a wait that times out fails the test).
        for (const op of operations.filter((o) => o.tag === operations[0]!.tag)) {
          await shown(page, op).waitFor({ timeout: SHOW_MS });
        }
        // Another section, brought up by the filter box (its tag).
        const booking = operations.filter((o) => o.tag === "Prices and booking");
        assert.ok(booking.some((o) => o.path === "/client/book"));
        await page.locator(".operation-filter-input").fill("Prices and booking");
        for (const op of booking) await shown(page, op).waitFor({ timeout: SHOW_MS });
        assert.match(await page.locator(".info .title").innerText(), /Courier operations engine/);
        assert.deepEqual(outside, []);
        assert.deepEqual(problems, []);
      } finally {
        await browser.close();
        await server.shutdown();
      }
    }),
});
