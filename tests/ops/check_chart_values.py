#!/usr/bin/env python3
"""Checks the chart's values.yaml:
  1. it validates against values.schema.json (as `helm install` would);
  2. its defaults are safe: no plaintext secret anywhere, m (and k) >= 5,
     a finite, positive DP budget that one release cannot exceed, and the
     non-root, read-only, no-capabilities security context;
  3. the schema keeps those properties under user overrides: each unsafe
     variant below must be rejected, each safe one accepted.

usage: check_chart_values.py CHART_DIR"""

import copy
import json
import math
import os
import re
import sys

import jsonschema
import yaml

# Leaf keys that would hold a credential in clear. References to Secrets
# (existingSecret, passwordKey, secretKey) do not match.
SECRET_LEAF = re.compile(
    r"(^|[._])(password|passwd|token|secret|api_?key|hmac_?key|private_?key|ssl_key|key\.pem)$",
    re.I)


def leaves(node, path=()):
    if isinstance(node, dict):
        for k, v in node.items():
            yield from leaves(v, path + (str(k),))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from leaves(v, path + (str(i),))
    else:
        yield path, node


def safety_problems(values):
    problems = []
    for path, value in leaves(values):
        if SECRET_LEAF.search(path[-1]) and value not in (None, ""):
            problems.append(f"plaintext secret at {'.'.join(path)}")
    for key in ("hmacKey", "stateKeys"):
        if set(values.get(key, {})) - {"existingSecret", "secretKey"}:
            problems.append(f"{key} must only reference a Secret")
    privacy = values["config"]["privacy"]
    for key in ("m", "k"):
        if key in privacy and not (isinstance(privacy[key], int) and privacy[key] >= 5):
            problems.append(f"config.privacy.{key} = {privacy[key]!r}, must be >= 5")
    if "m" not in privacy:
        problems.append("config.privacy.m is not set")
    dp = values["config"]["dp"]
    budget = dp.get("budget", {}).get("epsilon")
    if not isinstance(budget, (int, float)) or not math.isfinite(budget) or budget <= 0:
        problems.append(f"config.dp.budget.epsilon = {budget!r}, must be finite and > 0")
    elif dp.get("epsilon_per_release", 0) > budget:
        problems.append("config.dp.epsilon_per_release exceeds the whole budget")
    period = dp.get("budget", {}).get("period_days")
    if not isinstance(period, int) or period < 1:
        problems.append(f"config.dp.budget.period_days = {period!r}")
    sc = values["securityContext"]
    if sc.get("readOnlyRootFilesystem") is not True:
        problems.append("securityContext.readOnlyRootFilesystem must be true")
    if sc.get("allowPrivilegeEscalation") is not False:
        problems.append("securityContext.allowPrivilegeEscalation must be false")
    if "ALL" not in sc.get("capabilities", {}).get("drop", []):
        problems.append("securityContext.capabilities.drop must contain ALL")
    if values["podSecurityContext"].get("runAsNonRoot") is not True:
        problems.append("podSecurityContext.runAsNonRoot must be true")
    if not values["config"]["http"]["listen"].startswith(("0.0.0.0:", "[::]:")):
        problems.append("config.http.listen must bind all interfaces in a pod")
    return problems


def set_path(values, dotted, value):
    keys = dotted.split("/")
    node = values
    for k in keys[:-1]:
        node = node[k]
    if value is DELETE:
        del node[keys[-1]]
    else:
        node[keys[-1]] = value


DELETE = object()
# Paths use "/" because librdkafka property names contain dots.
UNSAFE = [
    ("config/privacy/m", 4),
    ("config/privacy/m", "5"),
    ("config/privacy/k", 2),
    ("config/dp/budget/epsilon", float("inf")),
    ("config/dp/budget/epsilon", 0),
    ("config/dp/budget", DELETE),
    ("config/kafka/properties", {"sasl.password": "hunter2"}),
    ("config/kafka/producer_properties", {"ssl.key.password": "hunter2"}),
    ("config/kafka/consumer_properties", {"session.timeout.ms": 120000}),
    ("config/kafka/consumer_properties", {"group.instance.id": "fixed"}),
    ("config/http/listen", "127.0.0.1:9464"),
    ("hmacKey/value", "c2VjcmV0"),
    ("stateKeys/value", "k1:" + "00" * 32),
    ("stateKeys", DELETE),
    ("config/security/state_keys_env", "vanon state keys"),
    ("securityContext/readOnlyRootFilesystem", False),
    ("securityContext/allowPrivilegeEscalation", True),
    ("securityContext/capabilities", {"drop": []}),
    ("securityContext/capabilities", {"drop": ["ALL"], "add": ["NET_ADMIN"]}),
    ("podSecurityContext/runAsNonRoot", False),
    ("replicas", 3),
    ("strimzi/topics/overrides", {"changelog": {"cleanup.policy": "delete"}}),
    ("strimzi/topics/overrides", {"changelog": {"retention.ms": 604800000}}),
    ("strimzi/topics/overrides", {"vanon.state.changelog": {"min.insync.replicas": 1}}),
    ("strimzi/user/authentication", "plain"),
    ("strimzi/apiVersion", "kafka.strimzi.io/v1beta1"),
    ("strimzi/consumer/groupPrefix", "*"),
]
SAFE = [
    ("kafka/tls", {"enabled": True, "existingSecret": "vanon-kafka-tls", "caKey": "ca.crt",
                   "certKey": "user.crt", "keyKey": "user.key"}),
    ("kafka/sasl", {"enabled": True, "mechanism": "SCRAM-SHA-512", "username": "vanon",
                    "existingSecret": "vanon-kafka-user", "passwordKey": "password"}),
    ("hmacKey/existingSecret", "vanon-hmac"),
    ("stateKeys/existingSecret", "vanon-state-keys"),
    ("config/security/state_keys_env", "VANON_STATE_KEYS_V2"),
    ("config/privacy/m", 10),
    ("extraConfigFiles", {"engine.csv": "EV;Electrified;*\n"}),
    ("strimzi", {"enabled": True, "apiVersion": "kafka.strimzi.io/v1", "cluster": "my-cluster",
                 "namespace": "kafka",
                 "topics": {"enabled": True, "input": True, "partitions": 12, "replicas": 3,
                            "config": {"min.insync.replicas": 2, "compression.type": "zstd"},
                            "overrides": {"dlq": {"retention.ms": 604800000},
                                          "changelog": {"min.compaction.lag.ms": 0}}},
                 "user": {"name": "vanon", "authentication": "scram-sha-512"},
                 "consumer": {"enabled": True, "name": "analytics", "authentication": "tls",
                              "groupPrefix": "analytics-"}}),
]


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    chart = argv[1]
    with open(os.path.join(chart, "values.schema.json"), encoding="utf-8") as f:
        schema = json.load(f)
    with open(os.path.join(chart, "values.yaml"), encoding="utf-8") as f:
        values = yaml.safe_load(f)
    jsonschema.Draft7Validator.check_schema(schema)
    validator = jsonschema.Draft7Validator(schema)
    failures = []
    for err in validator.iter_errors(values):
        failures.append(f"values.yaml does not match the schema: {'.'.join(map(str, err.path))}: {err.message}")
    failures += [f"unsafe default: {p}" for p in safety_problems(values)]
    for path, value in UNSAFE:
        variant = copy.deepcopy(values)
        set_path(variant, path, value)
        if validator.is_valid(variant):
            failures.append(f"schema accepts the unsafe override {path} = {value!r}")
    for path, value in SAFE:
        variant = copy.deepcopy(values)
        set_path(variant, path, value)
        errors = [e.message for e in validator.iter_errors(variant)]
        if errors:
            failures.append(f"schema rejects the safe override {path} = {value!r}: {errors[0]}")
    if failures:
        print("\n".join(failures))
        return 1
    print(f"ok: values.yaml valid and safe; schema rejects {len(UNSAFE)} unsafe and "
          f"accepts {len(SAFE)} safe overrides")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
