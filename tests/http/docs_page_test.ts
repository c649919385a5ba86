/**
 * The API reference page's files (`/api/docs/assets/*`), read from the swagger-ui-dist package on
 * first request and kept: only a read that succeeded is kept, so one failed read (a file briefly
 * missing, a disk error) does not break the page until a restart.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../src/http/context.ts";
import { mountDocsPage } from "../../src/http/docs_page.ts";
import { withTestEnv } from "../helpers/test_env.ts";

Deno.test("docs page: a failed read of a page file is not kept; the next request reads it again", () =>
  withTestEnv(async (t) => {
    const root = await Deno.makeTempDir({ prefix: "docs_assets_" });
    try {
      const api = new OpenAPIHono<AppEnv>();
      api.use(async (c, next) => {
        c.set("env", t.env);
        await next();
      });
      mountDocsPage(api, { assetRoot: root });
      const css = () => api.request("/docs/assets/swagger-ui.css");
      const missing = await css();
      assert.notEqual(missing.status, 200, "no file yet");
      await missing.body?.cancel();
      await Deno.writeTextFile(join(root, "swagger-ui.css"), "body {}");
      const found = await css();
      assert.equal(found.status, 200);
      assert.equal(await found.text(), "body {}");
      // Kept once read: the file gone, the page still has it.
      await Deno.remove(join(root, "swagger-ui.css"));
      assert.equal(await (await css()).text(), "body {}");
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  }));
