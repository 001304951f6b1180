// ./build.sh deploy-check: every manifest in deploy/ checked against the Kubernetes schemas, by
// validators not written here, exiting 1 with one line per problem naming the file, the object and
// the field.
//   - built-in kinds: kubernetes-models' schemas (types, required fields, formats; 5.1.0 is Kubernetes
//     1.34's API), and every field name against the official client's models (@kubernetes/client-node
//     2.0.1, Kubernetes 1.35's): the schemas let unknown fields through, where the API server's strict
//     field validation would refuse a typo; a type whose model does not load fails, never passes unchecked;
//   - RabbitmqCluster and the kustomization: JSON schemas of their own here (schemas/), strict, run by ajv.
import { readFileSync, readdirSync, existsSync } from "node:fs";
import path from "node:path";
import { parseAllDocuments } from "yaml";
import Ajv from "ajv";

const dir = process.argv[2] ?? "deploy";
const here = path.dirname(new URL(import.meta.url).pathname);
const ajv = new Ajv({ allErrors: true, strict: true });
const schema = name => ajv.compile(JSON.parse(readFileSync(path.join(here, "schemas", name), "utf8")));
const ownSchemas = {
  "rabbitmq.com/v1beta1/RabbitmqCluster": schema("rabbitmqcluster.schema.json"),
  "kustomize.config.k8s.io/v1beta1/Kustomization": schema("kustomization.schema.json"),
};
// The client's attribute types that are values, not models (every other type it names has a model).
const scalars = new Set(["string", "number", "boolean", "Date", "any", "IntOrString", "V1MicroTime"]);

const problems = [];
let documents = 0;

const files = readdirSync(dir).filter(f => /\.ya?ml$/.test(f)).sort();
for (const file of files) {
  const where = path.join(dir, file);
  for (const doc of parseAllDocuments(readFileSync(where, "utf8"))) {
    if (doc.errors.length > 0) { doc.errors.forEach(e => problems.push(`${where}: ${e.message.split("\n")[0]}`)); continue; }
    const object = doc.toJS();
    if (object === null) continue;
    documents++;
    const label = `${where}: ${object.kind ?? "?"} ${object.metadata?.name ?? ""}`.trimEnd();
    const own = ownSchemas[`${object.apiVersion}/${object.kind}`];
    if (own) {
      if (!own(object)) own.errors.forEach(e => problems.push(`${label}: ${field(e.instancePath, e.params?.additionalProperty)} ${e.keyword === "additionalProperties" ? `is not a field of ${object.kind}` : e.message}`));
      if (object.kind === "Kustomization") checkResources(where, object, files);
      continue;
    }
    const model = await builtIn(object.apiVersion, object.kind);
    if (!model) { problems.push(`${label}: apiVersion ${object.apiVersion} kind ${object.kind} is not a Kubernetes kind`); continue; }
    try {
      new model.Model(object).validate();
    } catch (e) {
      for (const error of e.errors ?? [{ instancePath: "", message: e.message }]) problems.push(`${label}: ${field(error.instancePath)} ${error.message}`);
    }
    await unknownFields(object, model.type, "", label);
  }
}

for (const problem of problems) console.error(`deploy-check: ${problem}`);
console.log(problems.length === 0
  ? `deploy-check: ${documents} documents in ${files.length} files valid`
  : `deploy-check: ${problems.length} problem${problems.length === 1 ? "" : "s"} in ${dir}/`);
process.exit(problems.length === 0 ? 0 : 1);

function field(instancePath, extra) {
  const parts = instancePath.split("/").filter(p => p !== "");
  if (extra) parts.push(extra);
  return parts.length === 0 ? "(the object)" : parts.map((p, i) => /^\d+$/.test(p) ? `[${p}]` : (i === 0 ? p : `.${p}`)).join("");
}

// kubernetes-models keeps a module per kind (kubernetes-models/apps/v1/Deployment); the client's model
// for it is named after the version (V1Deployment).
async function builtIn(apiVersion, kind) {
  if (typeof apiVersion !== "string" || typeof kind !== "string" || !/^[A-Za-z]+$/.test(kind)) return null;
  const version = apiVersion.split("/").pop();
  try {
    const module = await import(`kubernetes-models/${apiVersion}/${kind}`);
    return { Model: module[kind], type: version[0].toUpperCase() + version.slice(1) + kind };
  } catch {
    return null;
  }
}

async function clientModel(type) {
  try {
    return (await import(`@kubernetes/client-node/dist/gen/models/${type}.js`))[type];
  } catch {
    return null;
  }
}

async function unknownFields(value, type, at, label) {
  if (value === null || typeof value !== "object") return;
  const array = /^Array<(.+)>$/.exec(type);
  if (array) { for (const [i, item] of (Array.isArray(value) ? value : []).entries()) await unknownFields(item, array[1], `${at}[${i}]`, label); return; }
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) { for (const [key, item] of Object.entries(value)) await unknownFields(item, map[1], `${at}.${key}`, label); return; }
  if (scalars.has(type)) return;
  const model = await clientModel(type);
  // A type the client names but no model of it loads: the check would see nothing below it, so it fails.
  if (!model?.getAttributeTypeMap) { problems.push(`${label}: ${at === "" ? "(the object)" : at}: no model of ${type} in @kubernetes/client-node to check its fields against`); return; }
  const known = new Map(model.getAttributeTypeMap().map(a => [a.baseName, a.type]));
  for (const [key, item] of Object.entries(value)) {
    const path = at === "" ? key : `${at}.${key}`;
    if (!known.has(key)) problems.push(`${label}: ${path} is not a field of ${type}`);
    else await unknownFields(item, known.get(key), path, label);
  }
}

// Every file the kustomization names exists, and every manifest here is named (a file left out is
// never applied).
function checkResources(where, kustomization, files) {
  const named = new Set(kustomization.resources ?? []);
  for (const resource of named) if (!existsSync(path.join(path.dirname(where), resource))) problems.push(`${where}: resources names ${resource}, which does not exist`);
  for (const file of files) if (file !== path.basename(where) && !named.has(file)) problems.push(`${where}: ${file} is not in resources, so it is never applied`);
}
