/**
 * What the courier's paper is made from (courier 2.3, 4.5, 4.6): the facts of a booked shipment,
 * copied out of its state. Labels and packing slips take `ShipmentFacts`, which has no money field,
 * so none can be printed; the waybill takes `WaybillFacts`, which adds the frozen pricing.
 */
import { code39Unencodable } from "../../../domain/documents/barcode.ts";

/** A party as documents show it: any field may be missing (courier 2.1 leaves them optional). */
export interface DocumentParty {
  readonly name: string | null;
  readonly address: string | null;
  readonly phone: string | null;
}

export interface DocumentPiece {
  /** spec: courier 2.3 per-piece custody: `{waybill}-{n}`, the text of the piece's barcode. */
  readonly id: string;
  readonly weight_kg: number;
  readonly length_cm: number;
  readonly width_cm: number;
  readonly height_cm: number;
  /** What this parcel holds, when the booking says so per parcel; else the shipment's contents. */
  readonly contents: string | null;
}

export interface ShipmentFacts {
  readonly courier_name: string;
  readonly waybill: string;
  /** Also the documents' creation date: the same shipment gives the same bytes. */
  readonly booked_at: number;
  readonly service: { readonly code: string; readonly name: string };
  readonly from_country: string;
  readonly to_country: string;
  readonly sender: DocumentParty;
  readonly recipient: DocumentParty;
  readonly pieces: readonly DocumentPiece[];
  readonly contents: string | null;
  readonly references: {
    readonly client_order_reference: string | null;
    readonly external_customer_code: string | null;
    readonly external_billing_reference: string | null;
  };
  readonly dangerous_goods_confirmed: boolean;
  readonly tracking_url: string;
}

export interface WaybillCharge {
  readonly code: string;
  readonly label: string;
  readonly amount_minor: number;
  /** Tax line only: true when the tax is already within the price. */
  readonly included?: boolean;
  /** Tax line only. */
  readonly tax_minor?: number;
}

/** The consignment note adds what the client may see of its own money (courier 2.3, 4.6). */
export interface WaybillFacts extends ShipmentFacts {
  readonly promise: {
    readonly collection_on: string;
    readonly earliest_delivery: string;
    readonly latest_delivery: string;
  };
  readonly declared_value_minor: number | null;
  readonly liability_cover: boolean;
  readonly pricing: {
    readonly prices_reference: string;
    readonly rate_card_version: number;
    readonly chargeable_kg: number;
    readonly lines: readonly WaybillCharge[];
    readonly total_minor: number;
    readonly currency: string;
    readonly payer: string;
    readonly settlement_mode: string;
  };
}

/** A document that cannot be made: a returned refusal with a stable code (STYLE 3). */
export interface DocumentRefusal {
  readonly code: "barcode_unencodable";
  readonly message: string;
}

export type DocumentResult =
  | { readonly ok: true; readonly pdf: Uint8Array<ArrayBuffer>; readonly pages: number }
  | ({ readonly ok: false } & DocumentRefusal);

/**
 * The refusal when the waybill or a piece id has a character Code 39 cannot carry (a scanner
 * would read something else), or null: the documents print only barcodes that read back.
 */
export function unencodableBarcode(facts: ShipmentFacts): DocumentRefusal | null {
  for (const text of [facts.waybill, ...facts.pieces.map((p) => p.id)]) {
    const ch = code39Unencodable(text);
    if (ch !== null) {
      return {
        code: "barcode_unencodable",
        message: `a Code 39 barcode cannot carry ${JSON.stringify(ch)}: ${text}`,
      };
    }
  }
  return null;
}
