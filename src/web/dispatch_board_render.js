// The dispatch board drawn from what it holds: the map, trips by status, offers waiting and
// drivers on shift. Every text from the API goes into the page as text, never HTML.
import { el, serverNow, state, STATUSES } from "./dispatch_board_page.js";
import { h, human } from "./board_text.js";
import { drawMap } from "./dispatch_board_map.js";
import { everyFrame } from "./board_feed.js";

export const scheduleRender = everyFrame(render);

function ageSeconds(iso) {
  return Math.max(0, Math.round((serverNow() - Date.parse(iso)) / 1000));
}

/** spec: business 2.4 rule 3: a stale position is shown as last known, not live. */
function isFresh(position) {
  return ageSeconds(position.at) <= state.freshSeconds;
}

function ageText(position) {
  if (!position) return "No position yet";
  const s = ageSeconds(position.at);
  const age = s < 60 ? `${s} s ago` : `${Math.floor(s / 60)} min ago`;
  return isFresh(position) ? age : `Last known ${age}`;
}

function driverName(id) {
  return state.drivers.get(id)?.name ?? id;
}

function tripItem(t) {
  const driver = t.driver ? `Driver: ${t.driver.name}` : t.offer ? "Offered" : "No driver yet";
  return h(
    "li",
    { class: "trip", "data-reference": t.reference, "data-status": t.status },
    h("strong", {}, t.reference),
    h("span", { class: "meta" }, `${human(t.type)} · ${t.passenger_name ?? "—"}`),
    h("span", { class: "meta" }, `${t.pickup.address} → ${t.dest.address}`),
    h("span", { class: "meta driver" }, driver),
  );
}

function renderStatuses(trips) {
  const columns = STATUSES.map((status) => {
    const mine = trips.filter((t) => t.status === status);
    return h(
      "section",
      { class: "status-column", "data-status-column": status },
      h("h3", {}, human(status), " ", h("span", { class: "pill" }, String(mine.length))),
      h("ul", { class: "trip-list" }, mine.map(tripItem)),
    );
  });
  el.statuses.replaceChildren(...columns);
}

function renderOffers(trips) {
  const offered = trips.filter((t) => t.offer);
  el.offers.replaceChildren(...offered.map((t) => {
    const left = Math.max(0, Math.round((Date.parse(t.offer.expires_at) - serverNow()) / 1000));
    return h(
      "li",
      { class: "offer", "data-offer-id": t.offer.offer_id, "data-reference": t.reference },
      h("strong", {}, t.reference),
      ` offered to ${driverName(t.offer.driver_id)}, `,
      h("span", { class: "meta" }, `expires in ${left} s`),
    );
  }));
  el.offerCount.textContent = String(offered.length);
  el.noOffers.hidden = offered.length > 0;
}

function renderDrivers(drivers) {
  el.drivers.replaceChildren(...drivers.map((d) =>
    h(
      "tr",
      {
        "data-driver-id": d.id,
        "data-lat": d.position?.lat,
        "data-lng": d.position?.lng,
        class: d.position && !isFresh(d.position) ? "stale" : null,
      },
      h("th", { scope: "row" }, d.name),
      h("td", {}, state.vehicleTypes.get(d.vehicle_type_id) ?? `Type ${d.vehicle_type_id}`),
      h("td", {}, human(d.zone_id)),
      h("td", { class: "age" }, ageText(d.position)),
    )
  ));
  el.driverCount.textContent = String(drivers.length);
  el.noDrivers.hidden = drivers.length > 0;
}

export function render() {
  // Newest first within a status.
  const trips = [...state.trips.values()].sort((a, b) => b.created_at.localeCompare(a.created_at));
  const drivers = [...state.drivers.values()].sort((a, b) => a.name.localeCompare(b.name));
  renderStatuses(trips);
  renderOffers(trips);
  renderDrivers(drivers);
  drawMap(trips, drivers, isFresh, el.mapTrips, el.mapDrivers);
}
