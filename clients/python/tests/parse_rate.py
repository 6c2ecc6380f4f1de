#!/usr/bin/python3
"""Records per second the reader parses, with and without schema validation,
over the recorded run (data/recorded-run.jsonl.gz), best of 3 passes:

    /usr/bin/python3 clients/python/tests/parse_rate.py
"""

import time

import recorded
from vanon_reader.records import Parser


def main() -> None:
    lines = recorded.raw_lines() * 5
    for validate in (True, False):
        parser = Parser(validate=validate)
        best = 0.0
        for _ in range(3):
            start = time.perf_counter()
            for line in lines:
                recorded.to_record(parser, line)
            best = max(best, len(lines) / (time.perf_counter() - start))
        print(f"validate={validate}: {best:,.0f} records/s ({len(lines)} records)")


if __name__ == "__main__":
    main()
