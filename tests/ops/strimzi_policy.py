"""What the chart's Strimzi topics and ACLs must be, stated apart from its
templates, and the check of rendered KafkaTopics and KafkaUsers against it.

vanon's principal may do what vanon does and no more: read the input topic
in its consumer group; write the published topics, the DLQ and the late
topic inside transactions under its transactional id prefix; read back the
releases topic (a release whose commit outcome was unknown); read and write
the state changelog (restore) and the DP partials (aggregation); create
those two only with kafka.create_internal_topics; describe the changelog's
configs (the compaction check at start); and describe the throwaway groups
of its read_committed readers. The consumer principal may read the three
published topics in its own groups, and nothing else: not the input, DLQ or
late topics (as sensitive as the raw input), not the internal topics.
"""

READER_GROUP_PREFIX = "vanon-read-committed-"
PUBLISHED = ("anonymized", "releases", "counts")
ACL_KEYS = {"resource", "operations", "type", "host"}
RESOURCE_KEYS = {"type", "name", "patternType"}


def topics_used(config):
    """role -> topic name, for every topic vanon reads or writes."""
    t = config["kafka"]["topics"]
    roles = {"input": t["input"], "anonymized": t["anonymized"], "releases": t["releases"],
             "dlq": t["dlq"]}
    dp = config.get("dp", {})
    if dp.get("enabled"):
        roles["counts"] = t["counts"]
    if config.get("privacy", {}).get("late_events", "topic") == "topic":
        roles["late"] = t["late"]
    changelog = config.get("state", {}).get("changelog", {})
    if changelog.get("enabled", True):
        roles["changelog"] = changelog.get("topic", "vanon.state.changelog")
    if dp.get("enabled") and dp.get("aggregation", {}).get("topic"):
        roles["dpPartials"] = dp["aggregation"]["topic"]
    return roles


def _rules(kind, name, ops, pattern="literal"):
    return {(kind, name, pattern, op) for op in ops}


def expected_vanon_acls(config):
    k = config["kafka"]
    create = k.get("create_internal_topics", True)
    ops = {"input": ("Describe", "Read"), "releases": ("Describe", "Read", "Write"),
           "changelog": ("Describe", "DescribeConfigs", "Read", "Write") + (("Create",) if create else ()),
           "dpPartials": ("Describe", "Read", "Write") + (("Create",) if create else ())}
    acls = set()
    for role, name in topics_used(config).items():
        acls |= _rules("topic", name, ops.get(role, ("Describe", "Write")))
    acls |= _rules("group", k["group_id"], ("Describe", "Read"))
    acls |= _rules("group", READER_GROUP_PREFIX, ("Describe",), "prefix")
    acls |= _rules("transactionalId", k["transactional_id_prefix"] + "-", ("Describe", "Write"), "prefix")
    return acls


def expected_consumer_acls(config, group_prefix):
    acls = set()
    for role, name in topics_used(config).items():
        if role in PUBLISHED:
            acls |= _rules("topic", name, ("Describe", "Read"))
    return acls | _rules("group", group_prefix, ("Describe", "Read"), "prefix")


def rendered_acls(user):
    """The user's ACLs as a set; unknown keys (which the offline schema
    accepts) are refused here, so a misspelt patternType cannot pass."""
    auth = user["spec"]["authorization"]
    if auth.get("type") != "simple":
        raise ValueError(f"authorization type {auth.get('type')!r}")
    acls = set()
    for acl in auth["acls"]:
        res = acl["resource"]
        if set(acl) - ACL_KEYS or set(res) - RESOURCE_KEYS or acl.get("type", "allow") != "allow":
            raise ValueError(f"unexpected ACL form {acl}")
        if acl.get("host", "*") != "*" or "operation" in acl:
            raise ValueError(f"unexpected ACL form {acl}")
        for op in acl["operations"]:
            acls.add((res["type"], res["name"], res.get("patternType", "literal"), op))
    return acls


def _diff(label, got, want):
    if got == want:
        return []
    return [f"{label}: extra {sorted(got - want)}, missing {sorted(want - got)}"]


def _check_users(values, users, fullname):
    s = values["strimzi"]
    config = values["config"]
    vanon_name = s["user"]["name"] or fullname
    consumer_name = s["consumer"]["name"] or f"{fullname}-consumer"
    names = {u["metadata"]["name"]: u for u in users}
    want = {vanon_name} | ({consumer_name} if s["consumer"]["enabled"] else set())
    if set(names) != want:
        return [f"KafkaUsers {sorted(names)}, expected {sorted(want)}"]
    problems = []
    for name, user in names.items():
        role = "user" if name == vanon_name else "consumer"
        if user["spec"]["authentication"]["type"] != s[role]["authentication"]:
            problems.append(f"KafkaUser {name}: authentication {user['spec']['authentication']}")
    problems += _diff(f"KafkaUser {vanon_name} ACLs", rendered_acls(names[vanon_name]),
                      expected_vanon_acls(config))
    if s["consumer"]["enabled"]:
        got = rendered_acls(names[consumer_name])
        problems += _diff(f"KafkaUser {consumer_name} ACLs", got,
                          expected_consumer_acls(config, s["consumer"]["groupPrefix"] or consumer_name + "-"))
        published = {n for r, n in topics_used(config).items() if r in PUBLISHED}
        for kind, name, _, op in got:
            if op not in ("Describe", "Read") or (kind == "topic" and name not in published):
                problems.append(f"the consumer may {op} {kind} {name}: published topics only")
    for kind, name, _, op in rendered_acls(names[vanon_name]):
        if kind == "cluster" or op == "All" or "*" in name:
            problems.append(f"vanon may {op} on {kind} {name!r}: too broad")
    return problems


def _check_topics(values, topics):
    s = values["strimzi"]
    used = topics_used(values["config"])
    want = {n for r, n in used.items() if r != "input" or s["topics"]["input"]}
    by_name = {t["spec"].get("topicName", t["metadata"]["name"]): t for t in topics}
    if set(by_name) != (want if s["topics"]["enabled"] else set()):
        return [f"KafkaTopics {sorted(by_name)}, expected {sorted(want)}"]
    problems = []
    for role, name in used.items():
        topic = by_name.get(name)
        if topic is None:
            continue
        spec = topic["spec"]
        partitions = 1 if role == "dpPartials" else s["topics"]["partitions"]
        if spec.get("partitions") != partitions or spec.get("replicas") != s["topics"]["replicas"]:
            problems.append(f"KafkaTopic {name}: partitions/replicas {spec.get('partitions')}/{spec.get('replicas')}")
        if topic["metadata"].get("annotations", {}).get("helm.sh/resource-policy") != "keep":
            problems.append(f"KafkaTopic {name} would be deleted with the release")
        want_cfg = dict(s["topics"]["config"], **s["topics"]["overrides"].get(role, {}))
        if role == "changelog":
            want_cfg.update({"cleanup.policy": "compact", "retention.ms": -1, "retention.bytes": -1})
        if spec.get("config", {}) != want_cfg:
            problems.append(f"KafkaTopic {name}: config {spec.get('config')} != {want_cfg}")
    return problems


def check(values, docs, fullname, namespace):
    """Problems of the rendered Strimzi objects, as strings."""
    s = values["strimzi"]
    objs = [d for d in docs if d["kind"] in ("KafkaTopic", "KafkaUser")]
    if not s["enabled"]:
        return [f"strimzi.enabled is false but {d['kind']} {d['metadata']['name']} rendered" for d in objs]
    problems = []
    for d in objs:
        meta = d["metadata"]
        if (d["apiVersion"], meta.get("namespace"), meta.get("labels", {}).get("strimzi.io/cluster")) != \
                (s["apiVersion"], s["namespace"] or namespace, s["cluster"]):
            problems.append(f"{d['kind']} {meta['name']}: apiVersion, namespace or cluster label wrong")
    try:
        problems += _check_users(values, [d for d in objs if d["kind"] == "KafkaUser"], fullname)
    except (ValueError, KeyError) as e:
        problems.append(f"KafkaUser not in the expected form: {e}")
    problems += _check_topics(values, [d for d in objs if d["kind"] == "KafkaTopic"])
    return problems
