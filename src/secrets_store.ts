/**
 * The service's own secrets under DATA_DIR: the operator token (generated at first start, printed
 * once, stored as a hash) and the data key sealing webhook secrets.
 */
import { fromBase64url, hashSecret, importDataKey, newSecret } from "./domain/secrets.ts";

export async function loadOperatorTokenHash(
  dataDir: string,
  token: string | undefined,
): Promise<string> {
  if (token) return await hashSecret(token);
  const file = `${dataDir}/operator_token.sha256`;
  try {
    return (await Deno.readTextFile(file)).trim();
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  const fresh = newSecret("op_");
  const hash = await hashSecret(fresh);
  await Deno.writeTextFile(file, hash, { mode: 0o600 });
  console.log(`Operator token (shown once, store it now): ${fresh}`);
  return hash;
}

export async function loadDataKey(
  dataDir: string,
  configured: string | undefined,
): Promise<CryptoKey> {
  if (configured) return await importDataKey(fromBase64url(configured));
  const file = `${dataDir}/data.key`;
  let raw: Uint8Array;
  try {
    raw = await Deno.readFile(file);
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
    raw = crypto.getRandomValues(new Uint8Array(32));
    await Deno.writeFile(file, raw, { mode: 0o600 });
  }
  return await importDataKey(raw);
}
