/**
 * A business's packing slip settings (Business API 2.6): what its slips print with, read and set
 * apart from the documents that draw them (which load the PDF library on first use).
 */
import {
  packingSlipSettingsActor,
  type PackingSlipSettingsState,
} from "../../../actors/business/packing_slip_settings.ts";
import type { Deps } from "../../environment.ts";
import { orRefuse } from "../../runtime/actor.ts";

/** spec: business 2.6: the settings slips print with (defaults until the business sets them). */
export async function packingSlipSettingsOf(
  deps: Pick<Deps, "runtime">,
  business: string,
): Promise<PackingSlipSettingsState> {
  return orRefuse(
    await deps.runtime.read(packingSlipSettingsActor, business, business, { kind: "get" }),
  );
}

/** spec: business 2.6: PUT /business/packing-slip-settings; a field left out keeps its value. */
export async function setPackingSlipSettings(
  deps: Pick<Deps, "runtime" | "requestId">,
  business: string,
  input: { readonly show_prices?: boolean; readonly returns_note?: string | null },
): Promise<PackingSlipSettingsState> {
  return orRefuse(
    await deps.runtime.ask(packingSlipSettingsActor, business, business, {
      kind: "set",
      ...input,
    }, { requestId: deps.requestId }),
  );
}
