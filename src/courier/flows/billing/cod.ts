/**
 * Cash on delivery (courier 2.6 rule 6, 4.2 `cod-remitted`): COD collected at delivery awaits
 * remittance, recorded once per waybill by operations or the run's driver; it reduces what the
 * client owes only once the courier confirms it was remitted, with evidence.
 */
import { entryAsk } from "../../../../actors/courier/client_ledger.ts";
import {
  type CourierClient,
  courierClientActor,
  type CourierClientCommand,
} from "../../../../actors/courier/courier_client.ts";
import { newId } from "../../../runtime/ids.ts";
import { sha256Hex } from "../../../domain/secrets.ts";
import type { CodAwaiting } from "../../rules/ledger.ts";
import { formatMinor } from "../../../domain/money.ts";
import { refuse, Refused } from "../../../runtime/actor.ts";
import type { Deps } from "../../../environment.ts";
import { clientShipmentIn, shipmentIn } from "../shipments.ts";
import { type EvidenceUpload, namedEvidence, storeEvidence } from "../evidence.ts";
import {
  type Answered,
  askAccount,
  type BillingCaller,
  minorOf,
  readAccount,
  refuseField,
} from "./account.ts";

/** COD as recorded: the shipment's client and the COD kept for the waybill. */
export interface CodRecorded {
  readonly waybill: string;
  readonly client_id: string;
  readonly cod: Pick<CodAwaiting, "amount_minor" | "currency">;
  readonly replayed: boolean;
}

/**
 * Records the COD collected for a shipment of the courier; the same waybill again answers the
 * first record (a lost signal), never a second COD, and other figures are refused (2.6 rule 2).
 */
export async function recordCodCollected(
  deps: Pick<Deps, "runtime">,
  caller: BillingCaller,
  waybill: string,
  input: { readonly amount: number | string; readonly currency: string },
): Promise<CodRecorded> {
  const s = await shipmentIn(deps.runtime, caller.courier, waybill);
  const amount = minorOf(input.amount, input.currency, "amount", "positive");
  const r = await askAccount(deps.runtime, caller.courier, s.client_id, {
    kind: "cod_collected",
    waybill: s.waybill,
    amount_minor: amount,
    currency: input.currency,
    by: caller.by,
  }, { idempotencyKey: `cod.collected:${s.waybill}`, permanent: true });
  // A replay answers the COD kept (a record kept before it was answered: the one sent).
  const kept = r.reply && "cod" in r.reply
    ? r.reply.cod
    : { amount_minor: amount, currency: input.currency };
  if (kept.amount_minor !== amount || kept.currency !== input.currency) {
    const was = `${formatMinor(kept.amount_minor, kept.currency)} ${kept.currency}`;
    refuse(
      "reference_conflict",
      `amount: COD of ${s.waybill} was recorded at ${was}: ${input.amount} ${input.currency}`,
    );
  }
  return { waybill: s.waybill, client_id: s.client_id, cod: kept, replayed: r.replayed };
}

/** A remittance as sent: the waybill, and its evidence as text or as a file (the slip). */
export interface RemittanceInput {
  readonly waybill: string;
  readonly evidence?: string | undefined;
  readonly file?: EvidenceUpload | undefined;
}

/**
 * Confirms the COD of a waybill remitted, once per waybill; a waybill not the client's shipment
 * is Refused `not_found`. A file is kept content-addressed (the entry's evidence is
 * `file:sha256:<hex>`); a remittance the account refuses keeps none, so the account is asked
 * first.
 */
export async function remitCod(
  deps: Pick<Deps, "runtime">,
  caller: BillingCaller,
  client: string,
  input: RemittanceInput,
): Promise<Answered> {
  const { runtime } = deps;
  const remittance = (evidence: string) => ({
    kind: "cod_remitted" as const,
    waybill: input.waybill,
    evidence_path: evidence,
    by: caller.by,
  });
  const key = entryAsk(`cod.remitted:${input.waybill}`);
  const ask = (evidence: string) =>
    askAccount(runtime, caller.courier, client, remittance(evidence), key).catch(notTheClients);
  // No COD of the waybill awaits: a waybill that is not the client's shipment (another client's,
  // another courier's, or none) answers as one nobody holds (courier 5 rule 4: own billing).
  const notTheClients = async (e: unknown): Promise<never> => {
    if (e instanceof Refused && e.rejection.code === "cod_not_collected") {
      await clientShipmentIn(runtime, {
        tenant: caller.courier,
        clientId: client,
        waybill: input.waybill,
      });
    }
    throw e;
  };
  // spec: courier 4.2: cod-remitted takes the waybill and an evidence file.
  let evidence = input.evidence;
  if (input.file) {
    const account = await readAccount(runtime, caller.courier, client);
    // No COD awaits: the remittance made before answers, or the refusal does.
    if (!account.ledger.cod.some((x) => x.waybill === input.waybill)) return await ask("");
    // Bad input changes nothing: what the account would refuse now keeps no file.
    const named = `file:sha256:${sha256Hex(input.file.bytes)}`;
    refuseAsAccountWould(account, remittance(named), runtime.clock.now());
    const stored = await storeEvidence(runtime, caller.courier, input.file, caller.by);
    if (!stored.ok) throw new Refused(stored);
    evidence = `file:sha256:${stored.value.sha256}`;
  }
  if (evidence === undefined) {
    refuseField(
      "evidence",
      "remitted COD needs evidence: an evidence_file upload or an evidence text",
    );
  }
  // spec: courier 2.6 evidence_path: a text naming a file names one the courier holds.
  if (!input.file) await namedEvidence(runtime, caller.courier, evidence, "evidence");
  return await ask(evidence);
}

/**
 * Throws the refusal the account would answer `command` with on its committed state (its own
 * pure decide): asked before a file is kept, so a refused remittance keeps none. Only a change
 * between this and the ask (the same waybill remitted at once) can refuse it after.
 */
function refuseAsAccountWould(
  account: CourierClient,
  command: CourierClientCommand,
  now: number,
): void {
  const d = courierClientActor.decide(account, command, { now, newId });
  if (!d.ok) throw new Refused(d);
}
