"""Validates the records printed by vanon_release_sample against the schemas
of the two output topics. Usage: validate_records.py SAMPLE_BIN SCHEMA_DIR"""
import json
import subprocess
import sys

import jsonschema

sample, schema_dir = sys.argv[1], sys.argv[2]
validators = {}
for topic, name in (("anonymized", "anonymized-event.v1"), ("releases", "release-record.v2")):
    schema = json.load(open(f"{schema_dir}/{name}.schema.json"))
    jsonschema.Draft202012Validator.check_schema(schema)
    validators[topic] = jsonschema.Draft202012Validator(schema)

out = subprocess.run([sample], check=True, capture_output=True, text=True).stdout
counts = {"anonymized": 0, "group": 0, "summary": 0}
for line in out.splitlines():
    topic, doc = line.split(" ", 1)
    record = json.loads(doc)
    validators[topic].validate(record)
    counts[record.get("type", "anonymized")] += 1
    # A record that breaks the schema must fail: check the validator bites.
    broken = dict(record)
    broken.pop("release")
    if validators[topic].is_valid(broken):
        sys.exit(f"schema accepts a {topic} record without 'release'")
print(counts)
if min(counts.values()) == 0:
    sys.exit("sample produced no record of some kind: " + str(counts))
