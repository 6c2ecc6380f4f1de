"""Validates the records printed by vanon_dp_service_sample against
schemas/dp-count.v1.schema.json. Usage: validate_dp_records.py SAMPLE_BIN SCHEMA_DIR"""
import json
import subprocess
import sys

import jsonschema

sample, schema_dir = sys.argv[1], sys.argv[2]
schema = json.load(open(f"{schema_dir}/dp-count.v1.schema.json"))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)

out = subprocess.run([sample], check=True, capture_output=True, text=True).stdout
seen = {}
for line in out.splitlines():
    record = json.loads(line)
    validator.validate(record)
    key = (record["kind"], record["mechanism"])
    seen[key] = seen.get(key, 0) + 1
    # A record that breaks the schema must fail: check the validator bites.
    broken = dict(record)
    broken.pop("release")
    if validator.is_valid(broken):
        sys.exit("schema accepts a record without 'release'")
print(seen)
wanted = {("count", "discrete_laplace"), ("ratio", "discrete_laplace"),
          ("count", "binary_tree_discrete_laplace"), ("count", "cumulative_sum")}
if not wanted <= set(seen):
    sys.exit("sample produced no record of some kind: " + str(seen))
