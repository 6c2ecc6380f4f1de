#!/usr/bin/env python3
"""The chart through a real helm, as an operator installs it.

For each scenario values file: `helm lint --strict`, `helm template`, then
checks of the rendered manifests - offline Kubernetes schema validation
(validate_k8s.mjs) and what the scenario promises (replica count, monitoring
objects only when enabled, the SASL password only from a Secret).

kubectl is not used: every kubectl validation (`apply/create --dry-run=client`,
`--validate`) asks an API server for discovery or OpenAPI first, and there is
no cluster here. Unchecked therefore: unknown fields, admission and defaulting,
and whether the Prometheus Operator CRDs exist in the target cluster.

Usage: check_helm.py CHART VALUES... [--expect-failure STAGE [--expect-message TEXT]]
With --expect-failure the run passes only if that stage (lint, template,
schema, scenario) fails, and with --expect-message only if its output says
TEXT (self-tests on broken charts and refused values). Tools: $VANON_TOOLS_DIR (default /opt/vanon-tools, filled by
scripts/install-deps.sh); a missing tool fails the check, never skips it.
"""
import json
import os
import subprocess
import sys

import yaml

import strimzi_policy

KUBE_VERSION = "1.29.0"
RELEASE = NAMESPACE = "vanon"
TOOLS = os.environ.get("VANON_TOOLS_DIR", "/opt/vanon-tools")
HELM = os.path.join(TOOLS, "bin", "helm")
NODE_MODULES = os.path.join(TOOLS, "node", "node_modules")
VALIDATOR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "validate_k8s.mjs")


class StageFailed(Exception):
    def __init__(self, stage, message):
        super().__init__(f"{stage}: {message}")
        self.stage = stage


def run(stage, argv, stdin=None):
    p = subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        raise StageFailed(stage, f"{' '.join(argv[:3])} ... exited {p.returncode}\n{p.stdout}{p.stderr}")
    return p.stdout


def merged_values(chart, values_file):
    with open(os.path.join(chart, "values.yaml")) as f:
        base = yaml.safe_load(f) or {}
    with open(values_file) as f:
        over = yaml.safe_load(f) or {}

    def merge(a, b):
        for k, v in b.items():
            a[k] = merge(a.get(k, {}), v) if isinstance(v, dict) and isinstance(a.get(k), dict) else v
        return a
    return merge(base, over)


def scenario_checks(values, docs):
    """What the values promise, on a chart that renders a StatefulSet (vanon)."""
    by_kind = {}
    for d in docs:
        by_kind.setdefault(d["kind"], []).append(d)
    if "StatefulSet" not in by_kind:
        return
    sts = by_kind["StatefulSet"][0]
    if sts["spec"]["replicas"] != values["replicaCount"]:
        raise StageFailed("scenario", f"replicas {sts['spec']['replicas']} != {values['replicaCount']}")
    for key, kind in (("serviceMonitor", "ServiceMonitor"), ("prometheusRule", "PrometheusRule")):
        if bool(values[key]["enabled"]) != (kind in by_kind):
            raise StageFailed("scenario", f"{key}.enabled={values[key]['enabled']} but {kind} "
                                          f"{'rendered' if kind in by_kind else 'absent'}")
    if "PrometheusRule" in by_kind and not by_kind["PrometheusRule"][0]["spec"].get("groups"):
        raise StageFailed("scenario", "PrometheusRule without rule groups")
    claims = [c["metadata"]["name"] for c in sts["spec"].get("volumeClaimTemplates", [])]
    empty_dirs = [v["name"] for v in sts["spec"]["template"]["spec"]["volumes"] if "emptyDir" in v]
    if values["persistence"].get("enabled", True) != ("state" in claims):
        raise StageFailed("scenario", f"persistence.enabled={values['persistence'].get('enabled')} but claims {claims}")
    if ("state" in empty_dirs) == ("state" in claims):
        raise StageFailed("scenario", "the state volume must be either a claim or an emptyDir")
    if "state" in empty_dirs and not values["config"]["state"]["changelog"]["enabled"]:
        raise StageFailed("scenario", "state on an emptyDir without the state changelog")
    container = sts["spec"]["template"]["spec"]["containers"][0]
    env = {e["name"]: e for e in container.get("env", [])}
    sasl = values["kafka"]["sasl"]
    from_secret = [e for e in env.values()
                   if e.get("valueFrom", {}).get("secretKeyRef", {}).get("name") == sasl["existingSecret"]]
    if sasl["enabled"] and not from_secret:
        raise StageFailed("scenario", "SASL enabled but no env var reads kafka.sasl.existingSecret")
    if sasl["enabled"] and "sasl.username" not in json.dumps(container.get("args", [])):
        raise StageFailed("scenario", "SASL enabled but the username is not passed to vanon")
    for cm in by_kind.get("ConfigMap", []):
        if "sasl.password" in json.dumps(cm.get("data", {})):
            raise StageFailed("scenario", f"ConfigMap {cm['metadata']['name']} holds a SASL password")
    secret_env_checks(values, env, by_kind)
    problems = strimzi_policy.check(values, docs, fullname(values), NAMESPACE)
    if problems:
        raise StageFailed("scenario", "; ".join(problems))


def fullname(values):
    """The chart's vanon.fullname for RELEASE."""
    if values.get("fullnameOverride"):
        return values["fullnameOverride"][:63].rstrip("-")
    name = values.get("nameOverride") or "vanon"
    return (RELEASE if name in RELEASE else f"{RELEASE}-{name}")[:63].rstrip("-")


def writes_internal_topics(config):
    """vanon's rule (config::WritesInternalTopics): the changelog (on unless
    switched off) or the DP partials need the state key ring."""
    changelog = config.get("state", {}).get("changelog", {}).get("enabled", True)
    dp = config.get("dp", {})
    return bool(changelog or (dp.get("enabled") and dp.get("aggregation", {}).get("topic")))


def secret_env_checks(values, env, by_kind):
    """The HMAC key and the state key ring reach vanon only from Secrets, under
    the variable names the rendered config tells vanon to read."""
    security = values["config"]["security"]
    wanted = [(security["hmac_key_env"], values["hmacKey"])]
    if writes_internal_topics(values["config"]):
        wanted.append((security["state_keys_env"], values["stateKeys"]))
    for name, ref in wanted:
        got = env.get(name, {}).get("valueFrom", {}).get("secretKeyRef", {})
        if (got.get("name"), got.get("key")) != (ref["existingSecret"], ref["secretKey"]):
            raise StageFailed("scenario", f"env {name} does not read Secret {ref['existingSecret']} "
                                          f"key {ref['secretKey']}: {env.get(name)}")
    cm = next(c for c in by_kind["ConfigMap"] if "vanon.yaml" in c.get("data", {}))
    rendered = yaml.safe_load(cm["data"]["vanon.yaml"])["security"]
    if rendered != security:
        raise StageFailed("scenario", f"vanon.yaml security {rendered} != values {security}")


def check(chart, values_file):
    for tool in (HELM, NODE_MODULES):
        if not os.path.exists(tool):
            raise StageFailed("tools", f"{tool} missing: run scripts/install-deps.sh")
    run("lint", [HELM, "lint", "--strict", "--kube-version", KUBE_VERSION, chart, "-f", values_file])
    out = run("template", [HELM, "template", RELEASE, chart, "-n", NAMESPACE, "-f", values_file,
                           "--kube-version", KUBE_VERSION, "--api-versions", "monitoring.coreos.com/v1"])
    docs = [d for d in yaml.safe_load_all(out) if d]
    for d in docs:
        if not d.get("apiVersion") or not d.get("kind") or not d.get("metadata", {}).get("name"):
            raise StageFailed("schema", f"manifest without apiVersion, kind or name: {d}")
    run("schema", ["node", VALIDATOR, NODE_MODULES], stdin=json.dumps(docs))
    scenario_checks(merged_values(chart, values_file), docs)
    return docs


def main():
    args = sys.argv[1:]
    expect = message = None
    if "--expect-failure" in args:
        i = args.index("--expect-failure")
        expect = args[i + 1]
        del args[i:i + 2]
    if "--expect-message" in args:
        i = args.index("--expect-message")
        message = args[i + 1]
        del args[i:i + 2]
    chart, scenarios = args[0], args[1:]
    failed = 0
    for s in scenarios:
        name = os.path.basename(s)
        try:
            docs = check(chart, s)
            if expect:
                print(f"FAIL {name}: expected the {expect} stage to fail, all passed")
                failed += 1
            else:
                print(f"ok {name}: {len(docs)} manifests ({', '.join(sorted({d['kind'] for d in docs}))})")
        except StageFailed as e:
            if expect == e.stage and message is not None and message not in str(e):
                print(f"FAIL {name}: {e.stage} failed, but not saying {message!r}: {e}")
                failed += 1
            elif expect == e.stage:
                print(f"ok {name}: {e.stage} failed as expected" + (f" ({message})" if message else ""))
            else:
                print(f"FAIL {name}: {e}")
                failed += 1
    print(f"{len(scenarios) - failed} passed, {failed} failed")
    return 1 if failed or not scenarios else 0


if __name__ == "__main__":
    sys.exit(main())
