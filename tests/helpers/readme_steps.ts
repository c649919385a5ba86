/**
 * The README's walkthrough as steps a test can run: each ```sh block read as the small part of
 * sh it uses (variables, quoting, `\` continuations, heredocs, `>` into a file), so no shell and
 * no curl is needed. A curl command is followed by its answer line, `#=> 201 BIZ=data.id`: the
 * status it answers and the answer's values the next steps use.
 */

/** One thing the reader does: set a variable, write a file, or call the API. */
export type Step =
  | { readonly kind: "set"; readonly name: string; readonly value: Word }
  | { readonly kind: "file"; readonly name: string; readonly text: Word }
  | {
    readonly kind: "curl";
    readonly line: string;
    readonly args: readonly Word[];
    /** The heredoc given as standard input (`-d @-`). */
    readonly stdin: Word | null;
    /** `> name`: the answer's body is kept as this file. */
    readonly output: string | null;
    readonly status: number;
    /** Variable name to the path of its value in the JSON answer (`data.id`). */
    readonly keep: Readonly<Record<string, string>>;
  };

/** A word as written: its parts, each literal or a variable to expand when the step runs. */
export type Word = readonly ({ readonly text: string } | { readonly variable: string })[];

/** The text of every ```sh block of `markdown`, in order. */
export function shBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

/** The steps of one block; throws on a line it cannot read, so the README stays runnable. */
export function stepsOf(block: string): Step[] {
  const lines = block.replace(/\\\n\s*/g, "").split("\n");
  const steps: Step[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === "" || (line.startsWith("#") && !line.startsWith("#=>"))) continue;
    let stdin: Word | null = null;
    let command = line;
    const heredoc = /\s<<'?(\w+)'?\s*$/.exec(line);
    if (heredoc) {
      const end = lines.indexOf(heredoc[1]!, i + 1);
      if (end < 0) throw new Error(`heredoc without its end: ${line}`);
      const quoted = heredoc[0].includes("'");
      const body = lines.slice(i + 1, end).join("\n") + "\n";
      stdin = quoted ? [{ text: body }] : expandable(body);
      command = line.slice(0, heredoc.index);
      i = end;
    }
    const words = wordsOf(command);
    const first = words[0]?.[0];
    const assignment = first && "text" in first ? /^([A-Z_]+)=/.exec(first.text) : null;
    if (assignment && words.length === 1) {
      const rest = first && "text" in first ? first.text.slice(assignment[0].length) : "";
      steps.push({
        kind: "set",
        name: assignment[1]!,
        value: [{ text: rest }, ...words[0]!.slice(1)],
      });
    } else if (literal(words[0]) === "cat" && literal(words[1]) === ">" && stdin) {
      steps.push({ kind: "file", name: literal(words[2]) ?? "", text: stdin });
    } else if (literal(words[0]) === "curl") {
      const answer = (lines[i + 1] ?? "").trim();
      const m = /^#=> (\d{3})((?: [A-Z_]+=[\w.]+)*)$/.exec(answer);
      if (!m) throw new Error(`a curl command without its answer line (#=> status): ${line}`);
      const keep = Object.fromEntries(
        m[2]!.trim().split(" ").filter(Boolean).map((k) => k.split("=") as [string, string]),
      );
      const at = words.findIndex((w) => literal(w) === ">");
      const output = at < 0 ? null : literal(words[at + 1]) ?? null;
      const args = at < 0 ? words.slice(1) : words.slice(1, at);
      steps.push({ kind: "curl", line, args, stdin, output, status: Number(m[1]), keep });
      i++;
    } else {
      throw new Error(`not a step the walkthrough test can run: ${line}`);
    }
  }
  return steps;
}

function literal(w: Word | undefined): string | undefined {
  if (!w) return undefined;
  return w.every((p) => "text" in p) ? w.map((p) => ("text" in p ? p.text : "")).join("") : "";
}

/** Text in which `$NAME` and `${NAME}` expand (double quotes, unquoted words, heredocs). */
function expandable(s: string): Word {
  const parts: ({ text: string } | { variable: string })[] = [];
  let last = 0;
  for (const m of s.matchAll(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g)) {
    if (m.index > last) parts.push({ text: s.slice(last, m.index) });
    parts.push({ variable: m[1]! });
    last = m.index + m[0].length;
  }
  if (last < s.length) parts.push({ text: s.slice(last) });
  return parts;
}

/** Splits a command into words as sh does for quotes and spaces (no globs, no pipes). */
function wordsOf(command: string): Word[] {
  const words: Word[] = [];
  let word: ({ text: string } | { variable: string })[] | null = null;
  const re = /'([^']*)'|"((?:[^"\\]|\\.)*)"|(\s+)|([|;&`])|([^\s'"|;&`]+)/g;
  for (const m of command.matchAll(re)) {
    if (m[3] !== undefined) {
      if (word) words.push(word);
      word = null;
      continue;
    }
    // A comment runs to the end of the line.
    if (word === null && m[5]?.startsWith("#")) break;
    if (m[4] !== undefined) throw new Error(`not a step the walkthrough test can run: ${command}`);
    word ??= [];
    if (m[1] !== undefined) word.push({ text: m[1] });
    else if (m[2] !== undefined) word.push(...expandable(m[2].replace(/\\(.)/g, "$1")));
    else word.push(...expandable(m[5]!));
  }
  if (word) words.push(word);
  return words;
}

/** A word with its variables' values; an unset variable is an error (the README forgot it). */
export function expand(w: Word, vars: ReadonlyMap<string, string>): string {
  return w.map((p) => {
    if ("text" in p) return p.text;
    const v = vars.get(p.variable);
    if (v === undefined) throw new Error(`$${p.variable} is used before the walkthrough sets it`);
    return v;
  }).join("");
}

/** What running a curl step answered. */
export interface Ran {
  readonly line: string;
  readonly status: number;
  readonly expected: number;
  readonly body: string;
}

/** How a step's request is sent: `fetch`, or an app's own `request` in process. */
export type Send = (address: string, init: RequestInit) => Promise<Response>;

/**
 * Runs the steps as the reader would against `base` (for `localhost:8080`), keeping variables
 * and files between them; stops at the first step answering another status than its line says.
 */
export async function runSteps(
  steps: readonly Step[],
  base: string,
  vars: Map<string, string>,
  files: Map<string, Uint8Array<ArrayBuffer>>,
  send: Send = fetch,
): Promise<Ran[]> {
  const ran: Ran[] = [];
  for (const step of steps) {
    if (step.kind === "set") vars.set(step.name, expand(step.value, vars));
    else if (step.kind === "file") {
      files.set(step.name, new TextEncoder().encode(expand(step.text, vars)));
    } else {
      const r = await curl(step, base, vars, files, send);
      const body = new Uint8Array(await r.arrayBuffer());
      const text = new TextDecoder().decode(body);
      ran.push({ line: step.line, status: r.status, expected: step.status, body: text });
      if (r.status !== step.status) return ran;
      if (step.output) files.set(step.output, body);
      for (const [name, path] of Object.entries(step.keep)) {
        const value = path.split(".").reduce<unknown>(
          (v, k) => (v as Record<string, unknown> | undefined)?.[k],
          JSON.parse(text),
        );
        if (typeof value !== "string") throw new Error(`${step.line}: no ${path} in ${text}`);
        vars.set(name, value);
      }
    }
  }
  return ran;
}

/** The curl options the walkthrough uses, as one fetch. */
function curl(
  step: Extract<Step, { kind: "curl" }>,
  base: string,
  vars: ReadonlyMap<string, string>,
  files: ReadonlyMap<string, Uint8Array<ArrayBuffer>>,
  send: Send,
): Promise<Response> {
  const args = step.args.map((w) => expand(w, vars));
  const headers = new Headers();
  let method: string | null = null;
  let url: string | null = null;
  let body: BodyInit | null = null;
  const fileOf = (name: string) => {
    const f = files.get(name);
    if (!f) throw new Error(`${step.line}: no file ${name} written before`);
    return f;
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const next = () => {
      const v = args[++i];
      if (v === undefined) throw new Error(`${step.line}: ${a} without its value`);
      return v;
    };
    if (a === "-s") continue;
    if (a === "-X") method = next();
    else if (a === "-H") {
      const h = next();
      const colon = h.indexOf(":");
      headers.set(h.slice(0, colon).trim(), h.slice(colon + 1).trim());
    } else if (a === "-d") {
      const d = next();
      body = d === "@-"
        ? expand(step.stdin ?? [], vars).replace(/\n/g, "")
        : d.startsWith("@")
        ? fileOf(d.slice(1))
        : d;
      // curl's default for -d.
      if (!headers.has("Content-Type")) {
        headers.set("Content-Type", "application/x-www-form-urlencoded");
      }
    } else if (a === "-F") {
      const [field, value] = next().split("=", 2) as [string, string];
      const form: FormData = body instanceof FormData ? body : new FormData();
      if (value.startsWith("@")) {
        form.append(field, new Blob([fileOf(value.slice(1))]), value.slice(1));
      } else form.append(field, value);
      body = form;
    } else if (a.startsWith("-")) throw new Error(`${step.line}: curl option ${a} not supported`);
    else url = a;
  }
  if (!url) throw new Error(`${step.line}: no address`);
  const address = url.replace(/^(http:\/\/)?localhost:8080/, base);
  return send(address, { method: method ?? (body ? "POST" : "GET"), headers, body });
}
