/**
 * The spatial index of the pool's online drivers (Business API 1.2, 3.1): per zone, a k-d tree
 * (`kdbush`) of the drivers on shift with a known position, searched nearest-first (`geokdbush`),
 * so finding a driver reads the few nearby ones, never every driver. A ping only records the
 * position (O(1)); the zone's tree is rebuilt from its drivers at the next search when drivers
 * joined or left it, or when it is older than INDEX_REBUILD_MS and drivers moved: the search then
 * checks each candidate's current position and its freshness.
 */
import KDBush from "kdbush";
import { around } from "geokdbush";
import type { Position } from "./live_positions.ts";

/** A tree built from moved drivers serves searches this long (ms) before it is built again. */
export const INDEX_REBUILD_MS = 500;

/** What the index knows of a driver besides their position. */
export interface IndexedDriver {
  readonly id: string;
  readonly zone_id: string;
  readonly vehicle_type_id: number;
  readonly online: boolean;
  /** Holds a trip under way and one queued: offered nothing (spec: business 3.1). */
  readonly full: boolean;
}

interface Entry {
  driver: IndexedDriver;
  position: Position | null;
}

interface ZoneTree {
  readonly ids: Set<string>;
  tree: KDBush | null;
  order: string[];
  builtAt: number;
  joined: boolean;
  moved: boolean;
}

export interface NearestQuery {
  readonly zone_id: string;
  readonly lat: number;
  readonly lng: number;
  /** Farthest a driver may be, in km. */
  readonly max_km: number;
  /** Positions observed before this are stale: the driver is unavailable. */
  readonly fresh_after: number;
  /** The search's clock, for the tree's age. */
  readonly now: number;
  readonly accept: (d: IndexedDriver) => boolean;
}

export class DriverIndex {
  readonly #entries = new Map<string, Entry>();
  readonly #zones = new Map<string, ZoneTree>();

  /** A driver's details changed (registered, shift, holding). */
  setDriver(d: IndexedDriver): void {
    const e = this.#entries.get(d.id);
    if (e && e.driver.zone_id !== d.zone_id) this.#leave(d.id, e.driver.zone_id);
    const entry = e ?? { driver: d, position: null };
    entry.driver = d;
    this.#entries.set(d.id, entry);
    this.#place(entry);
  }

  /** A driver's newest position (LivePositions' report). */
  moved(id: string, p: Position): void {
    const e = this.#entries.get(id);
    if (!e) {
      this.#entries.set(id, { driver: unknownDriver(id), position: p });
      return;
    }
    e.position = p;
    const z = this.#zones.get(e.driver.zone_id);
    if (z?.ids.has(id)) z.moved = true;
    else this.#place(e);
  }

  driver(id: string): IndexedDriver | null {
    const e = this.#entries.get(id);
    return e && e.driver.zone_id !== "" ? e.driver : null;
  }

  position(id: string): Position | null {
    return this.#entries.get(id)?.position ?? null;
  }

  /** Whether the driver is on shift in the index with a position newer than `fresh_after`. */
  available(id: string, freshAfter: number): boolean {
    const e = this.#entries.get(id);
    return !!e && e.driver.online && e.position !== null && e.position.at >= freshAfter;
  }

  /** The nearest driver of the zone the query accepts, or null. */
  nearest(q: NearestQuery): string | null {
    const z = this.#zones.get(q.zone_id);
    if (!z || z.ids.size === 0) return null;
    this.#build(z, q.now);
    const found = around(z.tree!, q.lng, q.lat, 1, q.max_km, (i: number) => {
      const e = this.#entries.get(z.order[i]!);
      return !!e && z.ids.has(e.driver.id) && e.position !== null &&
        e.position.at >= q.fresh_after && q.accept(e.driver);
    });
    return found.length === 0 ? null : z.order[found[0] as number]!;
  }

  #build(z: ZoneTree, now: number): void {
    if (z.tree && !z.joined && !(z.moved && now - z.builtAt >= INDEX_REBUILD_MS)) return;
    const tree = new KDBush(Math.max(z.ids.size, 1));
    const order: string[] = [];
    for (const id of z.ids) {
      const p = this.#entries.get(id)!.position!;
      tree.add(p.lng, p.lat);
      order.push(id);
    }
    if (order.length === 0) tree.add(0, 0);
    tree.finish();
    Object.assign(z, { tree, order, builtAt: now, joined: false, moved: false });
  }

  /** On the zone's tree while on shift with a position. */
  #place(e: Entry): void {
    const { id, zone_id, online } = e.driver;
    if (zone_id === "") return;
    if (!online || e.position === null) return this.#leave(id, zone_id);
    let z = this.#zones.get(zone_id);
    if (!z) {
      z = { ids: new Set(), tree: null, order: [], builtAt: 0, joined: false, moved: false };
      this.#zones.set(zone_id, z);
    }
    if (!z.ids.has(id)) {
      z.ids.add(id);
      z.joined = true;
    }
  }

  #leave(id: string, zoneId: string): void {
    const z = this.#zones.get(zoneId);
    // A driver who left stays in the built tree until the next build; the search skips them.
    if (z?.ids.delete(id)) z.joined = true;
  }
}

/** A driver whose details are not known yet (a ping before their record was read). */
function unknownDriver(id: string): IndexedDriver {
  return { id, zone_id: "", vehicle_type_id: 0, online: false, full: false };
}
