// Validates Kubernetes manifests (a JSON array on stdin) against the API
// schemas shipped by the kubernetes-models packages, offline: the core API,
// the Prometheus Operator's CRDs and Strimzi's (KafkaTopic, KafkaUser, from
// Strimzi's published CRD schemas, v1beta2 and v1). Usage:
//   node validate_k8s.mjs NODE_MODULES_DIR < manifests.json
// Checks types, required fields, enums and formats of every field the
// schema describes. A kind without a schema is an error, never skipped. Not
// checked: unknown fields (the compiled schemas allow them) and anything
// only an API server knows (admission, quotas, whether the CRDs are
// installed).
import { pathToFileURL } from "node:url";
import { readFileSync } from "node:fs";

const modules = process.argv[2];
const docs = JSON.parse(readFileSync(0, "utf8"));

// apiVersion -> where its models live.
function modelPath(apiVersion, kind) {
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
  if (group === "monitoring.coreos.com") {
    return `${modules}/@kubernetes-models/prometheus-operator/${group}/${version}/${kind}.js`;
  }
  if (group === "kafka.strimzi.io") {
    return `${modules}/@kubernetes-models/strimzi-kafka-operator/${group}/${version}/${kind}.js`;
  }
  const dir = group === "" ? version : `${group}/${version}`;
  return `${modules}/kubernetes-models/${dir}/${kind}.js`;
}

let failures = 0;
for (const doc of docs) {
  const name = `${doc.kind}/${doc.metadata?.name}`;
  let Model;
  try {
    Model = (await import(pathToFileURL(modelPath(doc.apiVersion, doc.kind)).href))[doc.kind];
  } catch (e) {
    console.error(`${name}: no schema for ${doc.apiVersion} ${doc.kind}`);
    failures++;
    continue;
  }
  try {
    new Model(doc).validate();
    console.log(`ok ${doc.apiVersion} ${name}`);
  } catch (e) {
    console.error(`${name}: ${e.message}`);
    failures++;
  }
}
console.log(`${docs.length} manifests, ${failures} invalid`);
process.exit(failures === 0 && docs.length > 0 ? 0 : 1);
