/**
 * The service's own secrets under DATA_DIR (CONTRACT "Running": OPERATOR_TOKEN generated at first
 * start, printed once, stored): a kill at any point of a first start leaves each file whole or
 * absent, a file left empty by an earlier crash is made again, and the operator token is shown
 * before its hash is stored, so none is kept that nobody was shown.
 */
import assert from "node:assert/strict";
import { hashSecret, seal, unseal } from "../src/domain/secrets.ts";
import { loadDataKey, loadOperatorTokenHash } from "../src/secrets_store.ts";

async function withDataDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir();
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}

Deno.test("data key: an empty data.key (a crash before it was written) is made again and kept from then on", () =>
  withDataDir(async (dir) => {
    await Deno.writeFile(`${dir}/data.key`, new Uint8Array());
    const key = await loadDataKey(dir, undefined);
    assert.equal((await Deno.readFile(`${dir}/data.key`)).length, 32);
    assert.equal((await Deno.stat(`${dir}/data.key`)).mode! & 0o777, 0o600);
    assert.equal(await exists(`${dir}/data.key.tmp`), false);
    const sealed = await seal(key, "whsec_1", "owner");
    assert.equal(await unseal(await loadDataKey(dir, undefined), sealed, "owner"), "whsec_1");
  }));

Deno.test("data key: a temporary file a crash left is neither read nor left behind", () =>
  withDataDir(async (dir) => {
    await Deno.writeFile(`${dir}/data.key.tmp`, new Uint8Array([1, 2, 3]));
    const key = await loadDataKey(dir, undefined);
    assert.equal((await Deno.readFile(`${dir}/data.key`)).length, 32);
    assert.equal(await exists(`${dir}/data.key.tmp`), false);
    const sealed = await seal(key, "whsec_2", "owner");
    assert.equal(await unseal(await loadDataKey(dir, undefined), sealed, "owner"), "whsec_2");
  }));

Deno.test("data key: a data.key of another length is refused naming the file, and left as it is", () =>
  withDataDir(async (dir) => {
    const partial = new Uint8Array([9, 8, 7, 6, 5, 4, 3]);
    await Deno.writeFile(`${dir}/data.key`, partial);
    await assert.rejects(
      () => loadDataKey(dir, undefined),
      (e: Error) => e.message.includes(`${dir}/data.key`) && e.message.includes("7 bytes, not 32"),
    );
    assert.deepEqual(await Deno.readFile(`${dir}/data.key`), partial);
  }));

Deno.test("operator token: shown before its hash is stored, the hash stored is the shown token's, shown once", () =>
  withDataDir(async (dir) => {
    const file = `${dir}/operator_token.sha256`;
    const shown: string[] = [];
    const show = (line: string) => {
      // A kill here must leave no hash of a token nobody saw.
      assert.throws(() => Deno.statSync(file), Deno.errors.NotFound);
      shown.push(line);
    };
    const hash = await loadOperatorTokenHash(dir, undefined, { show });
    assert.equal(shown.length, 1);
    const token = /(op_\S+)$/.exec(shown[0]!)?.[1];
    assert.ok(token, shown[0]);
    assert.equal(hash, await hashSecret(token));
    assert.equal((await Deno.readTextFile(file)).trim(), hash);
    assert.equal(await exists(`${file}.tmp`), false);
    assert.equal(await loadOperatorTokenHash(dir, undefined, { show }), hash);
    assert.equal(shown.length, 1);
  }));

Deno.test("operator token: an empty or partly written hash file is made again, with a token shown", () =>
  withDataDir(async (dir) => {
    const file = `${dir}/operator_token.sha256`;
    for (const left of ["", "3f2a9c"]) {
      await Deno.writeTextFile(file, left);
      const shown: string[] = [];
      const hash = await loadOperatorTokenHash(dir, undefined, { show: (l) => shown.push(l) });
      assert.equal(shown.length, 1, JSON.stringify(left));
      assert.equal(hash, await hashSecret(/(op_\S+)$/.exec(shown[0]!)![1]!));
      assert.equal((await Deno.readTextFile(file)).trim(), hash);
    }
  }));

Deno.test("operator token: shown on standard error, never on standard output (the log stream)", () =>
  withDataDir(async (dir) => {
    const out: unknown[] = [];
    const err: unknown[] = [];
    const { log, error } = console;
    console.log = (...a: unknown[]) => out.push(...a);
    console.error = (...a: unknown[]) => err.push(...a);
    try {
      await loadOperatorTokenHash(dir, undefined);
    } finally {
      console.log = log;
      console.error = error;
    }
    assert.deepEqual(out, []);
    assert.equal(err.length, 1);
    assert.match(String(err[0]), /shown once, store it now\): op_\S+$/);
  }));
