/**
 * The import graph of the product's code, read from its text (static imports, re-exports and
 * literal dynamic imports; type imports too), and the layout's rules over it (ARCHITECTURE
 * "Layout"). Paths are relative to the repository; a package is its specifier.
 */

/** Each file to what it imports. */
export type Graph = ReadonlyMap<string, readonly string[]>;

/** Folders of src/ that are a feature (an API document, or the platform under them). */
const FEATURES = new Set(["platform", "courier", "business", "shopping"]);
/** The composition root: it wires the features into an environment, so it names them. */
const COMPOSITION = new Set(["src/main.ts", "src/server.ts", "src/features.ts"]);

const SPECIFIER =
  /(?:^|[\s;}])(?:import|export)\s+(?:type\s+)?(?:[\w*${}\s,]+?\s+from\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

export function importGraph(root: URL, dirs: readonly string[]): Graph {
  const graph = new Map<string, string[]>();
  for (const dir of dirs) {
    for (const file of tsFiles(new URL(`${dir}/`, root), dir)) {
      const text = Deno.readTextFileSync(new URL(file, root));
      graph.set(file, importsOf(file, stripComments(text)));
    }
  }
  return graph;
}

function* tsFiles(url: URL, rel: string): Generator<string> {
  for (const entry of Deno.readDirSync(url)) {
    if (entry.isDirectory) yield* tsFiles(new URL(`${entry.name}/`, url), `${rel}/${entry.name}`);
    else if (/\.(ts|js)$/.test(entry.name)) yield `${rel}/${entry.name}`;
  }
}

/** Comments can quote an import; strings cannot hold one that matters here. */
function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
}

function importsOf(file: string, text: string): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(SPECIFIER)) {
    const spec = m[1] ?? m[2]!;
    found.add(spec.startsWith(".") ? resolve(file, spec) : spec);
  }
  return [...found].sort();
}

function resolve(from: string, spec: string): string {
  const parts = from.split("/").slice(0, -1);
  for (const p of spec.split("/")) {
    if (p === "..") parts.pop();
    else if (p !== ".") parts.push(p);
  }
  return parts.join("/");
}

/** The feature a path belongs to (src/<f>/, actors/<f>/, routes/<f>/), if any. */
function featureOf(path: string): string | null {
  const [top, second] = path.split("/");
  if (top === "src" && second && FEATURES.has(second)) return second;
  if ((top === "actors" || top === "routes") && second && !second.endsWith(".ts")) return second;
  return null;
}

function isGenericSrc(path: string): boolean {
  return path.startsWith("src/") && featureOf(path) === null && !COMPOSITION.has(path);
}

const isHono = (spec: string) =>
  spec === "hono" || spec.startsWith("hono/") || spec.startsWith("@hono/");

/** A package (`pdf-lib`, `node:crypto`), not a file of the project. */
const isPackage = (spec: string) => !/^(src|actors|routes|migrations|tests|bench)\//.test(spec);

/** Shared pure code any actor or rule may use. */
function isShared(to: string): boolean {
  return to.startsWith("src/domain/") || to === "src/limits.ts";
}

/** Rules of `doc`, or the platform's, which every document's rules build on. */
function isRulesOf(doc: string | null, to: string): boolean {
  return to.startsWith(`src/${doc}/rules/`) || to.startsWith("src/platform/rules/");
}

type Rule = (from: string, to: string) => string | null;

const RULES: readonly Rule[] = [
  (from, to) =>
    isGenericSrc(from) &&
      (to.startsWith("actors/") || to.startsWith("routes/") || featureOf(to) !== null)
      ? "generic src/ never imports actors/, routes/ or a feature folder"
      : null,
  (from, to) => {
    if (!from.startsWith("actors/")) return null;
    const doc = featureOf(from);
    const ok = to === "src/runtime/actor.ts" || isShared(to) || isRulesOf(doc, to) ||
      to.startsWith(`actors/${doc}/`);
    return ok ? null : "an actor imports only the actor contract, shared domain, limits, its " +
      "document's rules and actors (and the platform's rules)";
  },
  (from, to) => {
    if (!/^src\/\w+\/rules\//.test(from)) return null;
    const ok = isShared(to) || isRulesOf(featureOf(from), to) || to === "src/runtime/actor.ts" ||
      isPackage(to) && !isHono(to);
    return ok ? null : "rules are pure: they import only shared domain, limits and their " +
      "document's (or the platform's) rules";
  },
  (from, to) =>
    /^src\/\w+\/(flows|reactors|queries)\//.test(from) && (isHono(to) || to.startsWith("src/http/"))
      ? "flows, reactors and queries never import Hono or src/http/"
      : null,
  (from, to) => {
    if (!from.startsWith("routes/") || !to.startsWith("routes/")) return null;
    const doc = featureOf(from);
    return doc !== null && to.startsWith(`routes/${doc}/answers/`)
      ? null
      : "a route file imports no other route file but its document's answers/";
  },
];

/** Every import that breaks a rule, as `from -> to: rule`, sorted. */
export function importRuleBreaks(graph: Graph): string[] {
  const breaks: string[] = [];
  for (const [from, tos] of graph) {
    for (const to of tos) {
      for (const rule of RULES) {
        const broken = rule(from, to);
        if (broken) breaks.push(`${from} -> ${to}: ${broken}`);
      }
    }
  }
  return breaks.sort();
}

/** Each circle of imports among the graph's files (a strongly connected set), sorted. */
export function importCircles(graph: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const circle: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      circle.push(w);
    } while (w !== v);
    if (circle.length > 1) circles.push(circle.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return circles.sort((a, b) => a[0]!.localeCompare(b[0]!));
}
