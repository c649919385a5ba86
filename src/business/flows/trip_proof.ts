/**
 * A delivered trip's proof files (Business API 3.1 "delivery done": proof photo and signature;
 * 5.5 deliveries scope "proof of delivery"): what the driver uploaded at the door, read back by
 * the business that booked the trip. The files are kept under the trip's tenant (driver_trips.ts),
 * so another business's key finds neither the trip nor the file.
 */
import type { Deps } from "../../environment.ts";
import { refuse } from "../../runtime/actor.ts";
import { readEvidence } from "../../courier/flows/evidence.ts";
import { askTrip } from "./trips.ts";

/** The proof files a delivery records (CONTRACT "Driver app" deliver). */
export const PROOF_FILES = ["proof_photo", "signature"] as const;
export type ProofFile = typeof PROOF_FILES[number];

export interface ProofDownload {
  readonly reference: string;
  readonly content_type: string;
  readonly sha256: string;
  readonly bytes: Uint8Array;
}

export async function tripProofFile(
  deps: Pick<Deps, "runtime">,
  business: string,
  idOrReference: string,
  file: ProofFile,
): Promise<ProofDownload> {
  const { trip: t } = await askTrip(deps, business, idOrReference, { kind: "get" });
  const ref = t.delivery_proof?.[file] ?? null;
  if (ref === null) refuse("not_found", `no ${file} was recorded for the trip: ${t.reference}`);
  const found = await readEvidence(deps.runtime, t.business_id, ref.sha256);
  if (found === null) refuse("not_found", `the ${file} of the trip is not stored: ${t.reference}`);
  return {
    reference: t.reference,
    // The type found in the bytes when the driver's upload was stored (an image).
    content_type: ref.content_type,
    sha256: ref.sha256,
    bytes: found.bytes,
  };
}
