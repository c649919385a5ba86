/**
 * Issue 35.2: the Postman collection an integrator can run: a folder per document and section,
 * each request with its operation's credential, and example bodies its schema accepts.
 */
import assert from "node:assert/strict";
import { CREDENTIAL_VARIABLES } from "../../src/http/postman.ts";
import { operationsOf, schemaChecker } from "../helpers/openapi_schemas.ts";
import { withTestEnv } from "../helpers/test_env.ts";

interface PostmanRequest {
  method: string;
  auth: {
    type: string;
    bearer?: { key: string; value: string }[];
    apikey?: { key: string; value: string }[];
  };
  header: { key: string; value: string }[];
  url: { path: string[]; variable: { key: string; value: string }[] };
  body?: { mode: string; raw?: string; formdata?: { key: string; type: string }[] };
}
interface Folder {
  name: string;
  item: (Folder | { name: string; request: PostmanRequest })[];
}

/** The header and value each scheme's request must send. */
function expectedAuth(
  doc: { components: { securitySchemes: Record<string, { type: string; name?: string }> } },
  scheme: string | undefined,
) {
  if (scheme === undefined) return null;
  const declared = doc.components.securitySchemes[scheme]!;
  const value = `{{${CREDENTIAL_VARIABLES[scheme as keyof typeof CREDENTIAL_VARIABLES]}}}`;
  return declared.type === "apiKey"
    ? { header: declared.name!, value }
    : { header: "Authorization", value: `Bearer ${value}` };
}

/** The header the request sends for its auth, as Postman sends it. */
function sentAuth(request: PostmanRequest) {
  const field = (list: { key: string; value: string }[] | undefined, key: string) =>
    list?.find((e) => e.key === key)?.value;
  switch (request.auth.type) {
    case "noauth":
      return null;
    case "bearer":
      return { header: "Authorization", value: `Bearer ${field(request.auth.bearer, "token")}` };
    case "apikey":
      assert.equal(field(request.auth.apikey, "in"), "header");
      return {
        header: field(request.auth.apikey, "key"),
        value: field(request.auth.apikey, "value"),
      };
    default:
      throw new Error(`unknown auth ${request.auth.type}`);
  }
}

Deno.test("postman: folders per document and section, each request's credential from its operation's security", () =>
  withTestEnv(async (t) => {
    const { body: doc } = await t.call("GET", "/api-docs/openapi.json");
    const { body: collection } = await t.call("GET", "/api-docs/postman.json");
    assert.deepEqual(
      collection.variable.map((v: { key: string }) => v.key).sort(),
      ["apiKey", "baseUrl", "channelToken", "clientApiKey", "driverToken", "operatorToken"],
    );
    const folders = collection.item as Folder[];
    assert.deepEqual(
      folders.map((f) => f.name).sort(),
      ["Business API", "Courier platform", "Platform (operator)", "Shopping fulfilment"],
    );
    const requests = new Map<string, PostmanRequest>();
    for (const document of folders) {
      for (const section of document.item as Folder[]) {
        assert.ok(section.item.length > 0, `${document.name}/${section.name}`);
        for (const entry of section.item) {
          assert.ok("request" in entry, `${document.name}/${section.name}: two levels`);
          const r = entry.request;
          const path = "/" + r.url.path.map((s) => s.replace(/^:(.+)$/, "{$1}")).join("/");
          requests.set(`${r.method.toLowerCase()} ${path}`, r);
        }
      }
    }
    const ops = operationsOf(doc);
    assert.equal(requests.size, ops.length);
    // spec: business 4.1: checkouts and geocoding are in the Business folder, beside bookings.
    const business = JSON.stringify(folders.find((f) => f.name === "Business API"));
    for (const path of ['"checkouts",":reference","cancel"', '"geocode"']) {
      assert.ok(business.includes(path), `the Business folder has ${path}`);
    }
    // Folders by document: each document's sections, whichever credential their routes take.
    const sections = (name: string) =>
      (folders.find((f) => f.name === name)!.item as Folder[]).map((f) => f.name);
    for (const section of ["Webhooks", "Sandbox", "Recurring deliveries", "Driver app"]) {
      assert.ok(sections("Business API").includes(section), `Business API: ${section}`);
    }
    for (const section of ["Client API", "Network runs", "Rate cards"]) {
      assert.ok(sections("Courier platform").includes(section), `Courier platform: ${section}`);
    }
    const checker = schemaChecker(doc);
    let bodies = 0;
    for (const { method, path, op } of ops) {
      const r = requests.get(`${method} ${path}`);
      assert.ok(r, `${method} ${path} is in the collection`);
      const scheme = Object.keys(op.security?.[0] ?? {})[0];
      assert.deepEqual(sentAuth(r), expectedAuth(doc, scheme), `${method} ${path}`);
      // No request names a credential in a header of its own: its auth sends its scheme's.
      assert.ok(!r.header.some((h) => /api-key|authorization/i.test(h.key)), `${method} ${path}`);
      // Each path parameter has an example value.
      for (const v of r.url.variable) assert.notEqual(v.value, "", `${method} ${path}: ${v.key}`);
      const content = op.requestBody?.content ?? {};
      const json = content["application/json"]?.schema;
      if (json) {
        assert.equal(r.body?.mode, "raw", `${method} ${path}`);
        const example = JSON.parse(r.body!.raw!);
        const valid = checker.compile(json);
        assert.ok(valid(example), `${method} ${path}: ${checker.errorsText(valid.errors)}`);
        const required = (json as { required?: string[] }).required ?? [];
        if (required.length > 0) assert.notDeepEqual(example, {}, `${method} ${path}`);
        bodies++;
      } else if (content["multipart/form-data"]) {
        assert.equal(r.body?.mode, "formdata", `${method} ${path}`);
      } else {
        assert.equal(r.body, undefined, `${method} ${path}`);
      }
    }
    assert.ok(bodies > 50);
    // spec: business 9.1: "(variable apiKey)": the Business requests send the key from it.
    assert.deepEqual(sentAuth(requests.get("post /business/book")!), {
      header: "X-Business-API-Key",
      value: "{{apiKey}}",
    });
    // The expense form names its receipt as a file.
    const expense = requests.get("post /driver/network-runs/{run}/expenses")!;
    assert.deepEqual(
      expense.body?.formdata?.find((f) => f.key === "receipt")?.type,
      "file",
    );
  }));

interface SavedAnswer {
  name: string;
  code: number;
  body?: string;
}

Deno.test("postman: each request keeps its operation's answers, refusals too, as examples their schemas accept", () =>
  withTestEnv(async (t) => {
    const { body: doc } = await t.call("GET", "/api-docs/openapi.json");
    const { body: collection } = await t.call("GET", "/api-docs/postman.json");
    const answers = new Map<string, SavedAnswer[]>();
    for (const document of collection.item as Folder[]) {
      for (const section of document.item as Folder[]) {
        for (const e of section.item as { request: PostmanRequest; response?: SavedAnswer[] }[]) {
          const path = "/" + e.request.url.path.map((s) => s.replace(/^:(.+)$/, "{$1}")).join("/");
          answers.set(`${e.request.method.toLowerCase()} ${path}`, e.response ?? []);
        }
      }
    }
    const checker = schemaChecker(doc);
    for (const { method, path, op } of operationsOf(doc)) {
      const documented = Object.entries(
        (op as { responses?: Record<string, { content?: Record<string, { schema?: object }> }> })
          .responses ?? {},
      ).filter(([status]) => /^\d{3}$/.test(status));
      const saved = answers.get(`${method} ${path}`)!;
      assert.deepEqual(
        saved.map((a) => a.code),
        documented.map(([status]) => Number(status)),
        `${method} ${path}`,
      );
      for (const [i, [status, answer]] of documented.entries()) {
        const schema = answer.content?.["application/json"]?.schema;
        if (!schema) continue;
        const valid = checker.compile(schema);
        const example = JSON.parse(saved[i]!.body!);
        assert.ok(
          valid(example),
          `${method} ${path} ${status}: ${checker.errorsText(valid.errors)}`,
        );
      }
    }
    const book = answers.get("post /business/book")!.map((a) => a.code);
    for (const code of [201, 409, 422]) assert.ok(book.includes(code), `book answers ${code}`);
  }));
