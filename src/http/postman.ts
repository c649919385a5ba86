/**
 * The Postman collection (Business API 9.1) made from the OpenAPI document: a folder per
 * document and, within it, per section (tag); each request with its operation's credential as a
 * collection variable, and an example body sampled from its schema (its `example`s first);
 * each request keeps its operation's documented answers, refusals too, as saved examples.
 */
import OpenAPISampler from "openapi-sampler";
import { METHODS, type OpenApiDocument, type SECURITY_SCHEMES } from "./openapi_shape.ts";

/**
 * The collection variable holding each security scheme's credential. The business key's is
 * `apiKey` (business 9.1: "a ready-made request collection ... (variable apiKey)"); each request
 * still sends only its own scheme's credential.
 */
export const CREDENTIAL_VARIABLES: Record<keyof typeof SECURITY_SCHEMES, string> = {
  operatorToken: "operatorToken",
  businessKey: "apiKey",
  clientKey: "clientApiKey",
  driverToken: "driverToken",
  channelToken: "channelToken",
};

/**
 * The sections (OpenAPI tags) of the Business API: its business key's (4.1, 4.3), its sandbox
 * (4.4), its pool drivers' app and the trip's chat and tracking (3, 2.4).
 */
const BUSINESS_API_TAGS: ReadonlySet<string> = new Set([
  "Account",
  "Reference data",
  "Bookings and trips",
  "Batches and subscriptions",
  "Recurring deliveries",
  "Webhooks",
  "Sandbox",
  "Dispatch board",
  "Live tracking",
  "Driver app",
  "Order chat",
]);

/** The sections of the in-store shopping fulfilment document (its section 4). */
const SHOPPING_TAGS: ReadonlySet<string> = new Set(["Shopping fulfilment"]);

/**
 * The folder of an operation: its document (issue 35 item 2), by its section; the operator's
 * API (CONTRACT) is a document of its own, whatever its section.
 */
function documentOf(security: string | undefined, tag: string): string {
  if (security === "operatorToken") return "Platform (operator)";
  return BUSINESS_API_TAGS.has(tag)
    ? "Business API"
    : SHOPPING_TAGS.has(tag)
    ? "Shopping fulfilment"
    : "Courier platform";
}

type JsonSchema = Record<string, unknown>;

interface Operation {
  summary?: string;
  operationId?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { in: string; name: string; required?: boolean; schema?: JsonSchema }[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
  responses?: Record<
    string,
    { description?: string; content?: Record<string, { schema?: JsonSchema }> }
  >;
}

type Auth =
  | { type: "noauth" }
  | { type: "bearer"; bearer: { key: "token"; value: string; type: "string" }[] }
  | { type: "apikey"; apikey: { key: string; value: string; type: "string" }[] };

/** The request's auth from its operation's security scheme. */
function authOf(doc: OpenApiDocument, scheme: string | undefined): Auth {
  if (scheme === undefined) return { type: "noauth" };
  const declared = doc.components?.securitySchemes?.[scheme] as
    | { type: string; name?: string }
    | undefined;
  const variable = `{{${CREDENTIAL_VARIABLES[scheme as keyof typeof CREDENTIAL_VARIABLES]}}}`;
  if (declared?.type === "apiKey") {
    return {
      type: "apikey",
      apikey: [
        { key: "key", value: declared.name ?? "", type: "string" },
        { key: "value", value: variable, type: "string" },
        { key: "in", value: "header", type: "string" },
      ],
    };
  }
  return { type: "bearer", bearer: [{ key: "token", value: variable, type: "string" }] };
}

/** An example of the schema: its own `example`s where it has them, else one made from it. */
export function exampleOf(schema: JsonSchema, doc: OpenApiDocument): unknown {
  return OpenAPISampler.sample(
    schema as Parameters<typeof OpenAPISampler.sample>[0],
    { skipReadOnly: true, quiet: true },
    doc as unknown as Record<string, unknown>,
  );
}

/** The body: JSON sampled from its schema, or a form with a file field for each binary one. */
function bodyOf(op: Operation, doc: OpenApiDocument) {
  const content = op.requestBody?.content ?? {};
  const json = content["application/json"]?.schema;
  if (json) {
    return {
      mode: "raw" as const,
      raw: JSON.stringify(exampleOf(json, doc), null, 2),
      options: { raw: { language: "json" as const } },
    };
  }
  const form = content["multipart/form-data"]?.schema;
  if (!form) return undefined;
  const properties = (form.properties ?? {}) as Record<string, JsonSchema>;
  const sample = exampleOf(form, doc) as Record<string, unknown>;
  return {
    mode: "formdata" as const,
    formdata: Object.entries(properties).map(([key, field]) =>
      field.format === "binary"
        ? { key, type: "file" as const, src: "" }
        : { key, type: "text" as const, value: String(sample[key] ?? "") }
    ),
  };
}

/** An HTTP status's standard words, for the saved answer's status line. */
const STATUS_WORDS: Record<number, string> = {
  200: "OK",
  201: "Created",
  202: "Accepted",
  204: "No Content",
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

/**
 * The operation's documented answers as Postman saved examples, in the document's order: each
 * status with a body sampled from its schema (issue 37 item 12: answers and refusals too).
 */
function answersOf(op: Operation, doc: OpenApiDocument) {
  return Object.entries(op.responses ?? {}).filter(([status]) => /^\d{3}$/.test(status))
    .map(([status, answer]) => {
      const json = answer.content?.["application/json"]?.schema;
      const code = Number(status);
      return {
        name: answer.description ?? status,
        code,
        status: STATUS_WORDS[code] ?? "",
        header: json ? [{ key: "Content-Type", value: "application/json" }] : [],
        ...(json ? { body: JSON.stringify(exampleOf(json, doc), null, 2) } : {}),
        _postman_previewlanguage: json ? "json" : "text",
      };
    });
}

/** One request of the collection. */
function requestOf(doc: OpenApiDocument, method: string, path: string, op: Operation) {
  const scheme = Object.keys(op.security?.[0] ?? {})[0];
  const params = op.parameters ?? [];
  const segments = path.replace(/^\//, "").split("/").map((s) => s.replace(/^\{(.+)\}$/, ":$1"));
  const sampled = (p: { schema?: JsonSchema }) => String(exampleOf(p.schema ?? {}, doc) ?? "");
  const body = bodyOf(op, doc);
  return {
    name: op.summary ?? `${method.toUpperCase()} ${path}`,
    request: {
      method: method.toUpperCase(),
      auth: authOf(doc, scheme),
      header: [
        ...(body?.mode === "raw" ? [{ key: "Content-Type", value: "application/json" }] : []),
        ...params.filter((p) => p.in === "header").map((p) => ({
          key: p.name,
          value: "",
          disabled: true,
        })),
      ],
      url: {
        raw: `{{baseUrl}}/${segments.join("/")}`,
        host: ["{{baseUrl}}"],
        path: segments,
        query: params.filter((p) => p.in === "query").map((p) => ({
          key: p.name,
          value: sampled(p),
          ...(p.required ? {} : { disabled: true }),
        })),
        variable: params.filter((p) => p.in === "path").map((p) => ({
          key: p.name,
          value: sampled(p),
        })),
      },
      ...(body ? { body } : {}),
    },
    response: answersOf(op, doc),
  };
}

type Request = ReturnType<typeof requestOf>;

/** A Postman v2.1 collection: folders per document and section, a variable per credential. */
export function postmanCollection(doc: OpenApiDocument) {
  const folders = new Map<string, Map<string, Request[]>>();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = (item as Record<string, Operation | undefined>)[method];
      if (!op) continue;
      const scheme = Object.keys(op.security?.[0] ?? {})[0];
      const section = op.tags?.[0] ?? "Other";
      const document = documentOf(scheme, section);
      const sections = folders.get(document) ?? new Map<string, Request[]>();
      folders.set(document, sections);
      sections.set(section, [...(sections.get(section) ?? []), requestOf(doc, method, path, op)]);
    }
  }
  return {
    info: {
      name: doc.info.title,
      description: "Set the credential variables you hold; each request sends its own.",
      schema: "https://schema.getpostman.com/json/collection/v2.1.0/collection.json",
    },
    variable: [
      { key: "baseUrl", value: doc.servers?.[0]?.url ?? "" },
      ...Object.values(CREDENTIAL_VARIABLES).map((key) => ({ key, value: "" })),
    ],
    item: [...folders].map(([name, sections]) => ({
      name,
      item: [...sections].map(([section, item]) => ({ name: section, item })),
    })),
  };
}
