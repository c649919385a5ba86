/**
 * The README's walkthrough, run as written against a started server: every ```sh block's steps
 * in order, each answering the status its `#=>` line says, with the values it keeps passed on.
 */
import assert from "node:assert/strict";
import { LEFT_TO_EMBEDDED_RUN, OPERATOR_TOKEN, startServer } from "../helpers/server_process.ts";
import { runSteps, shBlocks, type Step, stepsOf } from "../helpers/readme_steps.ts";

const README = new URL("../../README.md", import.meta.url);

Deno.test({
  name: "README: the walkthrough works step by step on a fresh start",
  ignore: LEFT_TO_EMBEDDED_RUN,
  fn: async () => {
    const steps: Step[] = shBlocks(await Deno.readTextFile(README)).flatMap(stepsOf);
    assert.ok(steps.filter((s) => s.kind === "curl").length >= 20, "the walkthrough was not found");
    const dataDir = await Deno.makeTempDir();
    // The embedded defaults, as `deno task start` gives a new user, whatever this test's environment names.
    const server = await startServer(dataDir, { embedded: true });
    try {
      const vars = new Map([["OPERATOR_TOKEN", OPERATOR_TOKEN]]);
      const ran = await runSteps(steps, server.live, vars, new Map());
      const failed = ran.find((r) => r.status !== r.expected);
      assert.equal(
        failed,
        undefined,
        failed && `${failed.line}\nanswered ${failed.status}: ${failed.body.slice(0, 600)}`,
      );
      assert.equal(ran.length, steps.filter((s) => s.kind === "curl").length);
      // The booking by prices reference delivers to the recipient its prices named.
      const read = await fetch(`${server.live}/api/client/shipments/${vars.get("WAYBILL")}`, {
        headers: { "X-Client-API-Key": vars.get("CLIENT_KEY")! },
      });
      const shipment = await read.json();
      assert.equal(shipment.data?.recipient?.name, "Neo Kgosi", JSON.stringify(shipment));
    } finally {
      await server.stop();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
