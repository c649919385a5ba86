/** What a route declares (define() in route.ts): its request parts, answers and refusals. */
import type { z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import type { FieldError } from "../runtime/actor.ts";
import type { AppEnv } from "./context.ts";
import type { Refusals } from "./refusals.ts";

export type Schema = z.ZodType | undefined;
export type Infer<S> = S extends z.ZodType ? z.infer<S> : undefined;

/** Which credential the OpenAPI document says the route takes. */
export type Security = "operator" | "business" | "client" | "driver" | "channel" | "public";

/** How a list pages (its `meta`): by cursor, by offset, or by offset with more (the board). */
export type Paging = "cursor" | "offset" | z.ZodObject;

/** The media types a file answer may have (RouteSpec.produces). */
export type FileType =
  | "application/pdf"
  | "text/csv"
  | "text/plain"
  | "application/octet-stream"
  | "image/jpeg"
  | "image/png"
  | "image/webp"
  | "*/*";

export interface RouteSpec<P extends Schema, Q extends Schema, B extends Schema> {
  readonly method: "get" | "post" | "put" | "patch" | "delete";
  /** OpenAPI form: `/operator/businesses/{id}`. */
  readonly path: string;
  readonly summary: string;
  /** Longer OpenAPI text: what the answer's fields mean where their names do not say it all. */
  readonly description?: string;
  /**
   * A route that exists only to refuse (editing a published rate card): the OpenAPI document
   * shows this refusal beside its guards' and parameters', and no success.
   */
  readonly alwaysRefused?: { readonly status: 409; readonly code: string };
  readonly tag: string;
  readonly security: Security;
  readonly middleware?: readonly MiddlewareHandler<AppEnv>[];
  readonly params?: P;
  readonly query?: Q;
  readonly body?: B;
  /**
   * What else the route finds wrong in a body its schema refused (the clock's or the stored
   * reference data's judgement of fields of the right kind): named in the same 422, so a caller
   * fixes every field at once rather than meeting a second refusal.
   */
  /**
   * The route's own JSON body cap, when its body may lawfully be larger than
   * REQUEST_BODY_BYTES_MAX (a shopping order of 20 stores of 200 lines).
   */
  readonly bodyBytesMax?: number;
  readonly alsoCheck?: (c: Context<AppEnv>, sent: unknown) => Promise<readonly FieldError[]>;
  readonly status?: 200 | 201 | 202;
  /**
   * A file answer instead of the JSON envelope (a PDF, a CSV), as the OpenAPI document says: the
   * one type it has, or each it may have (a stored image answered with its own type), or every
   * type for a file kept with the type it was uploaded with.
   */
  readonly produces?: FileType | readonly FileType[];
  /** Headers of the file answer of its own (a proof's hash), by name: what each says. */
  readonly fileHeaders?: Readonly<Record<string, string>>;
  /** A file the request carries instead of a JSON body: multipart field `file`, or the raw text. */
  readonly upload?: "text/csv" | "file";
  /**
   * What the `Idempotency-Key` header does on this route, when it honours one: shown in the
   * OpenAPI document as the header parameter (the handler reads it with idempotencyHeader).
   */
  readonly idempotencyKey?: string;
  /**
   * The JSON body may come as multipart/form-data instead: its text fields are the body (checked
   * by the same schema) and these file fields reach the handler as `files`, within `maxBytes`.
   */
  readonly form?: { readonly files: readonly string[]; readonly maxBytes: number };
  /**
   * A multipart form the handler reads itself (an expense with its receipt): its fields as the
   * OpenAPI document shows the request body. Not checked by define: the handler checks them.
   */
  readonly multipart?: z.ZodObject;
  /** When the same request again answers 200 with the first answer: what makes it the same. */
  readonly replay?: string;
  /**
   * Another success status the route answers besides `status`, not as a replay (a packet move
   * answers 201 only when stock adds the packet): when. Shown with the same envelope.
   */
  readonly alsoAnswers?: { readonly status: 200 | 201; readonly when: string };
  /**
   * What `data` holds on success (and on a replay), for the OpenAPI document only: answers are
   * not checked against it. Without it the document shows `data` as any value.
   */
  readonly response?: z.ZodType;
  /** A list answered a page at a time: the envelope carries `meta` (PageMeta, OffsetPageMeta). */
  readonly paged?: Paging;
  /**
   * Fields answered at the top level beside `data` as well, where the spec writes the answer so
   * (Business API 4.4's step answer): the handler answers them with okBeside (app.ts).
   */
  readonly beside?: z.ZodObject;
  /**
   * The route's own refusals (courier 7): each code its handler, and what it asks, can answer,
   * with when. define adds its guards' refusals, `validation_failed` for a request with parts,
   * `payload_too_large` for one with a body and `not_found` for one with path parameters.
   */
  readonly refusals?: Refusals;
  /** False where no path parameter can name something missing (no `not_found`). */
  readonly notFound?: false;
  /**
   * `error`: every refusal of the route, its guards' and its request's too, names its code in
   * `error`, not `code` (CONTRACT "Errors": tracking endpoints).
   */
  readonly errorField?: "error";
}
