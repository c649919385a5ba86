/**
 * The signed links of a business's shopping events (shopping 6 "Receipt URL"; Business API 6
 * `packing_slip_url`): made with the business's link key (random, sealed in its shopping
 * settings, made with the first link), and opened by GET /shopping/links/{token}: an expired or
 * altered link answers 403, a valid one the stored bytes.
 */
import { shoppingCapabilityActor } from "../../../actors/shopping/capability.ts";
import { readEvidence } from "../../courier/flows/evidence.ts";
import type { Deps } from "../../environment.ts";
import { newSecret, seal, sealOwner, unseal } from "../../domain/secrets.ts";
import { SHOPPING_LINK_CHARS_MAX } from "../../limits.ts";
import { foundOrNull, orRefuse, refuse } from "../../runtime/actor.ts";
import {
  type LinkClaims,
  linkClaimsOf,
  linkKeyOf,
  type LinkSubject,
  renewLink,
  signLink,
  verifyLink,
} from "../rules/links.ts";

type LinkDeps = Pick<Deps, "runtime" | "dataKey" | "requestId">;

/** The link key of `business`; made (the first one made stands) when `make` and none is held. */
async function linkKey(
  deps: LinkDeps,
  business: string,
  make: boolean,
): Promise<CryptoKey | null> {
  const owner = sealOwner("shopping_link", business, business);
  const got = await deps.runtime.read(shoppingCapabilityActor, business, business, {
    kind: "get",
  });
  // spec: shopping 6: only an expired or altered link answers 403; a read refused for a moment
  // (a busy actor) is no verdict on the link, and making a key then would race the one held.
  let sealed = foundOrNull(got)?.link_key ?? null;
  if (!sealed && make) {
    const held = orRefuse(
      await deps.runtime.ask(shoppingCapabilityActor, business, business, {
        kind: "make_link_key",
        key: await seal(deps.dataKey, newSecret("slk_"), owner),
      }, { requestId: deps.requestId }),
    );
    sealed = held.link_key ?? null;
  }
  return sealed ? await linkKeyOf(await unseal(deps.dataKey, sealed, owner)) : null;
}

/** The public address of a signed link to `subject`, valid until `expires_at`. */
export async function signedLink(
  deps: LinkDeps & Pick<Deps, "publicUrl">,
  business: string,
  subject: LinkSubject,
  expiresAt: number,
): Promise<string> {
  const key = (await linkKey(deps, business, true))!;
  const token = await signLink(key, { business, subject, expires_at: expiresAt });
  return `${deps.publicUrl ?? "http://localhost"}/api/shopping/links/${token}`;
}

/**
 * The link `token` of `business` valid until at least `expiresAt` (never shortened); null when it
 * is no link of the business's (its key does not verify it).
 */
export async function renewedLink(
  deps: LinkDeps,
  business: string,
  token: string,
  expiresAt: number,
): Promise<string | null> {
  const claims = linkClaimsOf(token);
  if (!claims || claims.business !== business) return null;
  if (claims.expires_at >= expiresAt) return token;
  const key = await linkKey(deps, business, false);
  return key ? await renewLink(key, token, expiresAt) : null;
}

/** What a link opened answers: the bytes and their content type. */
export interface LinkedFile {
  readonly content_type: string;
  readonly bytes: Uint8Array<ArrayBuffer>;
  readonly name: string;
}

/**
 * spec: shopping 6: the file a valid link names; refused 403 `link_expired` past its time and
 * `link_invalid` when altered (or naming no business of ours); 404 when the file is gone.
 */
export async function openLink(
  deps: LinkDeps & Pick<Deps, "clock">,
  token: string,
): Promise<LinkedFile> {
  // Longer than any link made: altered, and refused before anything of it is read.
  const claimed = token.length <= SHOPPING_LINK_CHARS_MAX ? linkClaimsOf(token) : null;
  const key = claimed ? await linkKey(deps, claimed.business, false) : null;
  const verdict = await verifyLink(key, token, deps.clock.now());
  if (!verdict.ok) {
    refuse(
      verdict.reason,
      verdict.reason === "link_expired"
        ? "link expired: ask the merchant for a new one"
        : "link invalid: it was altered or is not a link of this service",
    );
  }
  return await linkedFile(deps, verdict.claims);
}

async function linkedFile(deps: LinkDeps, claims: LinkClaims): Promise<LinkedFile> {
  const s = claims.subject;
  if (s.kind === "receipt") {
    const held = await readEvidence(deps.runtime, claims.business, s.sha256);
    if (!held) refuse("not_found", "receipt photo not found");
    return {
      content_type: held.file.content_type,
      bytes: new Uint8Array(held.bytes),
      name: held.file.name,
    };
  }
  // Loaded on first use: pdf-lib's import costs every start about 450 ms.
  const { tripDocument } = await import("../../business/flows/trip_documents.ts");
  const slip = await tripDocument(deps, claims.business, s.reference, {
    document: "packing-slip",
    cancelledToo: true,
  });
  return {
    content_type: "application/pdf",
    bytes: slip.pdf,
    name: `${s.reference}-packing-slip.pdf`,
  };
}
