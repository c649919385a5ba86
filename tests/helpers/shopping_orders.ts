/**
 * Shopping orders of 2.2 as tests and benches send them: one route (Gaborone: Game City to Block
 * 8), one recipient, stores of lines at 10.00 a unit unless the caller gives its own.
 */

/** A store of `lines` lines, ids prefixed by `tag`, each 2 units at 10.00. */
export function store(tag: string, lines = 2, extra: Record<string, unknown> = {}) {
  return {
    external_fulfilment_id: `F-${tag}`,
    external_store_id: `S-${tag}`,
    store_name: `Store ${tag}`,
    estimated_amount: 20 * lines,
    items: Array.from({ length: lines }, (_, i) => ({
      external_item_id: `${tag}-${i}`,
      name: `Item ${tag} ${i}`,
      qty: 2,
      unit_price: 10,
    })),
    ...extra,
  };
}

/** An order of 2.2 (Gaborone: Game City to Block 8) with `stores` stores of `lines` lines. */
export function orderBody(
  id: string | number,
  o: { stores?: number; lines?: number; shopping?: Record<string, unknown> } = {},
  extra: Record<string, unknown> = {},
) {
  return {
    pickup_address: "Game City, Gaborone",
    pickup_lat: -24.6545,
    pickup_lng: 25.9086,
    dest_address: "Plot 9, Block 8",
    dest_lat: -24.6019,
    dest_lng: 25.935,
    recipient_first_names: "Neo",
    recipient_surname: "Kgosi",
    recipient_phone: "+26771234567",
    shopping: {
      external_order_id: id,
      // The caller's own stores when it gives them, else `stores` made ones.
      stores: (o.shopping?.stores as ReturnType<typeof store>[] | undefined) ??
        Array.from({ length: o.stores ?? 2 }, (_, i) => store(String(i), o.lines ?? 2)),
      ...o.shopping,
    },
    ...extra,
  };
}
