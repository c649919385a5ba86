/**
 * The browser tests' Chromium (tests/helpers/browser.ts): the one shipped in the npm package, the
 * choice where the system has none, launches and renders a page here too, so that path is proven
 * on every run and not only on a machine without /usr/bin/chromium.
 */
import assert from "node:assert/strict";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromiumLaunchOptions, launchChromium, SYSTEM_CHROMIUM } from "../helpers/browser.ts";

Deno.test("CHROMIUM_PATH chooses the browser: a path as given, empty for the packaged one", async () => {
  const before = Deno.env.get("CHROMIUM_PATH");
  try {
    Deno.env.set("CHROMIUM_PATH", "/opt/elsewhere/chromium");
    assert.equal((await chromiumLaunchOptions()).executablePath, "/opt/elsewhere/chromium");
    Deno.env.set("CHROMIUM_PATH", "");
    assert.equal((await chromiumLaunchOptions()).executablePath, join(tmpdir(), "chromium"));
  } finally {
    if (before === undefined) Deno.env.delete("CHROMIUM_PATH");
    else Deno.env.set("CHROMIUM_PATH", before);
  }
});

Deno.test({
  name: "the packaged Chromium opens a page from loopback and draws its text",
  // Playwright keeps its pipe to Chromium open between steps; everything is closed in finally.
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const options = await chromiumLaunchOptions(null);
    assert.notEqual(options.executablePath, SYSTEM_CHROMIUM);
    const server = Deno.serve(
      { port: 0, hostname: "127.0.0.1", onListen() {} },
      () =>
        new Response(
          "<!doctype html><title>t</title><h1 style='color:#c00'>Packaged Chromium</h1>",
          {
            headers: { "Content-Type": "text/html; charset=utf-8" },
          },
        ),
    );
    const browser = await launchChromium(null);
    try {
      const page = await browser.newPage();
      await page.goto(`http://127.0.0.1:${server.addr.port}/`);
      const heading = page.locator("h1");
      assert.equal(await heading.innerText(), "Packaged Chromium");
      // Laid out with a font: the heading has a size, and the colour the page asked for.
      const box = await heading.boundingBox();
      assert.ok(box !== null && box.width > 100 && box.height > 10, JSON.stringify(box));
      assert.equal(
        await heading.evaluate((h) =>
          (globalThis as unknown as { getComputedStyle(e: unknown): { color: string } })
            .getComputedStyle(h).color
        ),
        "rgb(204, 0, 0)",
      );
    } finally {
      await browser.close();
      await server.shutdown();
    }
  },
});
