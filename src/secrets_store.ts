/**
 * The service's own secrets under DATA_DIR: the operator token (generated at first start, printed
 * once, stored as a hash) and the data key sealing webhook secrets.
 *
 * A process killed at any point of a first start leaves each file whole or absent: each is written
 * to a temporary file beside it, synced, then renamed over it. A file left empty by a crash of an
 * earlier version (created, killed before it was written) is taken as absent and made again.
 */
import { dirname } from "node:path";
import { fromBase64url, hashSecret, importDataKey, newSecret } from "./domain/secrets.ts";

/** Bytes of the data key (AES-256-GCM). */
const DATA_KEY_BYTES = 32;
/** The operator token's stored hash: SHA-256 in hex (hashSecret). */
const TOKEN_HASH = /^[0-9a-f]{64}$/;

export async function loadOperatorTokenHash(
  dataDir: string,
  token: string | undefined,
  options: { readonly show?: (line: string) => void } = {},
): Promise<string> {
  if (token) return await hashSecret(token);
  const file = `${dataDir}/operator_token.sha256`;
  const stored = await readIfWhole(file);
  if (stored !== null) {
    const hash = new TextDecoder().decode(stored).trim();
    // Not a whole hash: written in part by an earlier version, killed before the token was shown.
    if (TOKEN_HASH.test(hash)) return hash;
  }
  const fresh = newSecret("op_");
  const hash = await hashSecret(fresh);
  // Shown before it is stored: a kill between the two stores none, and the next start makes one
  // (stored first, a kill would keep a token nobody was shown, locking the operator out).
  // On standard error: standard output is the log stream, which never holds a token (issue 35).
  (options.show ?? console.error)(`Operator token (shown once, store it now): ${fresh}`);
  await writeWhole(file, new TextEncoder().encode(hash));
  return hash;
}

export async function loadDataKey(
  dataDir: string,
  configured: string | undefined,
): Promise<CryptoKey> {
  if (configured) return await importDataKey(fromBase64url(configured));
  const file = `${dataDir}/data.key`;
  const stored = await readIfWhole(file);
  if (stored === null) {
    const raw = crypto.getRandomValues(new Uint8Array(DATA_KEY_BYTES));
    await writeWhole(file, raw);
    return await importDataKey(raw);
  }
  // Secrets may be sealed with a key of any other length, so none is replaced: a person decides.
  if (stored.length !== DATA_KEY_BYTES) {
    throw new Error(
      `data key file ${file} is not a data key: ${stored.length} bytes, not ${DATA_KEY_BYTES}; ` +
        "restore it from a backup, or remove it if nothing was sealed with it",
    );
  }
  return await importDataKey(stored);
}

/** The file's bytes; null when it is absent or empty (created by a crash, never written). */
async function readIfWhole(file: string): Promise<Uint8Array | null> {
  try {
    const bytes = await Deno.readFile(file);
    return bytes.length === 0 ? null : bytes;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
}

/**
 * Writes `data` to `file` whole or not at all: to `<file>.tmp` (owner-only), synced, then renamed
 * over `file` (atomic within a directory), and the directory synced so the rename lasts.
 */
async function writeWhole(file: string, data: Uint8Array): Promise<void> {
  const tmp = `${file}.tmp`;
  // A temporary file a crash left is the half-written one of then: never read, started afresh.
  await Deno.remove(tmp).catch((e) => {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  });
  const f = await Deno.open(tmp, { write: true, createNew: true, mode: 0o600 });
  try {
    for (let at = 0; at < data.length;) at += await f.write(data.subarray(at));
    await f.syncData();
  } finally {
    f.close();
  }
  await Deno.rename(tmp, file);
  await syncDirectory(dirname(file));
}

/** Makes a rename in `dir` durable; not every system can open a directory (Windows), so tried. */
async function syncDirectory(dir: string): Promise<void> {
  let d: Deno.FsFile;
  try {
    d = await Deno.open(dir, { read: true });
  } catch {
    return;
  }
  try {
    await d.sync();
  } catch {
    // A system that cannot sync a directory keeps the rename as its file system does.
  } finally {
    d.close();
  }
}
