// validate-manifests.mjs NODE_MODULES FILE...: checks every object of every YAML file against
// Kubernetes' own OpenAPI schema, as the npm package kubernetes-models carries it (its validate():
// types, required fields, enums, formats), and then field by field as the API server's strict
// field validation does (kubectl's default since 1.27): the OpenAPI schema lets unknown fields
// through, so a misspelled `nodeSelectr` would pass validate() and be dropped by the cluster in
// silence. The known fields come from the package's type declarations (.d.ts) of each kind.
// Prints one line per object ("ok" or "FAIL", file, kind/name, why) and exits 1 on any failure
// or when no object was checked.
//   --yaml-only KIND   objects of KIND (a CRD kubernetes-models has no schema for) are parsed
//                      only, and say so
import { readFileSync, existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const yamlOnly = new Set();
while (args[0] === "--yaml-only") { yamlOnly.add(args[1]); args.splice(0, 2); }
const [modules, ...files] = args;
if (!modules || files.length === 0) {
  console.error("usage: validate-manifests.mjs [--yaml-only KIND]... NODE_MODULES FILE...");
  process.exit(2);
}
const yaml = (await import(pathToFileURL(join(modules, "js-yaml", "index.js")).href)).default;
const models = join(modules, "kubernetes-models");

// "apps/v1" -> kubernetes-models/apps/v1, "v1" -> kubernetes-models/v1
function kindDir(apiVersion) {
  if (typeof apiVersion !== "string" || !/^([a-z0-9.-]+\/)?v[0-9a-z]+$/.test(apiVersion)) return null;
  const dir = join(models, apiVersion);
  return existsSync(dir) ? dir : null;
}

// The interface a .d.ts declares: field -> {ref: file of the field's type} | {map} | {scalar}.
const interfaces = new Map();
function resolveImport(fromFile, spec) {
  const base = spec.startsWith(".") ? resolve(dirname(fromFile), spec) : join(modules, spec);
  return base + ".d.ts";
}
function loadInterface(file) {
  if (interfaces.has(file)) return interfaces.get(file);
  const text = readFileSync(file, "utf8");
  const imports = new Map();
  for (const m of text.matchAll(/^import \{ (\w+) \} from "([^"]+)";$/gm)) imports.set(m[1], resolveImport(file, m[2]));
  const body = text.match(/^export interface \w+(?: extends [\w, ]+)? \{\n([\s\S]*?)^\}/m);
  let fields = null; // a type alias (Quantity, Time, IntOrString): a scalar, nothing inside
  if (body) {
    fields = new Map();
    for (const m of body[1].matchAll(/^ {4}"([^"]+)"\??: (.*)$/gm)) {
      const t = m[2].replace(/;$/, "");
      const inner = t.match(/^Array<(\w+)>$/)?.[1] ?? t;
      if (t === "{") fields.set(m[1], { map: true }); // { [key: string]: ... }: free-form keys
      else if (imports.has(inner)) fields.set(m[1], { ref: imports.get(inner) });
      else fields.set(m[1], { scalar: true });
    }
  }
  interfaces.set(file, fields);
  return fields;
}
function unknownFields(value, file, path, out) {
  if (value === null || typeof value !== "object") return;
  if (Array.isArray(value)) { value.forEach((v, i) => unknownFields(v, file, `${path}[${i}]`, out)); return; }
  const fields = loadInterface(file);
  if (!fields) return;
  for (const [k, v] of Object.entries(value)) {
    const f = fields.get(k);
    if (!f) out.push(`${path}.${k}: unknown field (not in the schema; the API server refuses it or drops it)`);
    else if (f.ref) unknownFields(v, f.ref, `${path}.${k}`, out);
  }
}

let checked = 0, failed = 0;
for (const file of files) {
  let docs;
  try {
    docs = yaml.loadAll(readFileSync(file, "utf8")).filter((d) => d !== null && d !== undefined);
  } catch (e) {
    console.log(`FAIL ${file}: not YAML: ${e.message.split("\n")[0]}`);
    failed++;
    continue;
  }
  if (docs.length === 0) { console.log(`FAIL ${file}: no object in it`); failed++; continue; }
  for (const obj of docs) {
    const what = `${obj?.kind}/${obj?.metadata?.name}`;
    checked++;
    if (yamlOnly.has(obj?.kind)) {
      console.log(`ok ${file}: ${what}: YAML only (no schema for ${obj.apiVersion} ${obj.kind} in kubernetes-models)`);
      continue;
    }
    const dir = kindDir(obj?.apiVersion);
    const decl = dir && join(dir, `${obj.kind}.d.ts`);
    if (!decl || !existsSync(decl)) {
      console.log(`FAIL ${file}: ${what}: no schema for apiVersion ${obj?.apiVersion} kind ${obj?.kind}`);
      failed++;
      continue;
    }
    const Model = (await import(pathToFileURL(join(dir, "index.mjs")).href))[obj.kind];
    const problems = [];
    try {
      new Model(obj).validate();
    } catch (e) {
      problems.push(e.message);
    }
    // Without the kind's own fields the strict check would pass anything: a failure, not a pass.
    if (!loadInterface(decl)?.size) problems.push(`cannot read the fields of ${obj.kind} from ${decl}`);
    else unknownFields(obj, decl, "", problems);
    if (problems.length) {
      console.log(`FAIL ${file}: ${what}: ${problems.join("; ")}`);
      failed++;
    } else {
      console.log(`ok ${file}: ${what}: schema and fields`);
    }
  }
}
console.log(`${checked} objects checked, ${failed} failed`);
process.exit(failed || checked === 0 ? 1 : 0);
