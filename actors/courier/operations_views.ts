/**
 * A courier's saved operations-board filters (courier 4.4 "saved filters"). Tenant = id = the
 * courier's business id; at most VIEWS_MAX views, each a small set of query filters.
 */
import { accept, type ActorDefinition, reject, unreachable } from "../../src/runtime/actor.ts";

export const VIEWS_MAX = 50;

export interface SavedView {
  readonly name: string;
  readonly filters: Readonly<Record<string, string>>;
  readonly by: string;
  readonly saved_at: number;
}

export type OperationsViewsState = { readonly views: readonly SavedView[] };

export type OperationsViewsCommand =
  | { kind: "save"; view: Omit<SavedView, "saved_at"> }
  | { kind: "delete"; name: string }
  | { kind: "get" };

export type OperationsViewsEvent =
  | { kind: "view_saved"; view: SavedView }
  | { kind: "view_deleted"; name: string };

export const operationsViewsActor: ActorDefinition<
  OperationsViewsState,
  OperationsViewsCommand,
  OperationsViewsEvent,
  OperationsViewsState
> = {
  type: "operations_views",
  version: 1,
  initial: { views: [] },
  decide(state, command, ctx) {
    switch (command.kind) {
      case "save": {
        const replacing = state.views.some((v) => v.name === command.view.name);
        if (!replacing && state.views.length >= VIEWS_MAX) {
          return reject("views_full", `a courier keeps at most ${VIEWS_MAX} saved views`);
        }
        return accept(
          [{ kind: "view_saved", view: { ...command.view, saved_at: ctx.now } }],
          (s) => s,
        );
      }
      case "delete":
        if (!state.views.some((v) => v.name === command.name)) {
          return reject("not_found", `no saved view named ${command.name}`);
        }
        return accept([{ kind: "view_deleted", name: command.name }], (s) => s);
      case "get":
      case "timer":
        return accept([], (s) => s);
      default:
        return unreachable(command);
    }
  },
  evolve(state, event) {
    switch (event.kind) {
      case "view_saved":
        return {
          views: [...state.views.filter((v) => v.name !== event.view.name), event.view]
            .sort((a, b) => a.name.localeCompare(b.name)),
        };
      case "view_deleted":
        return { views: state.views.filter((v) => v.name !== event.name) };
      default:
        return unreachable(event);
    }
  },
};
