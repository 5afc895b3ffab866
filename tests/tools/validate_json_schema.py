# SPDX-License-Identifier: MIT
"""Validates a JSON file against a JSON Schema with the jsonschema library.

Usage: validate_json_schema.py SCHEMA FILE
Exit status 0 when valid, 1 with the first errors on standard error otherwise, 2 when
jsonschema is missing (Debian: python3-jsonschema).
"""
import json
import sys

try:
    import jsonschema
except ImportError:
    sys.stderr.write("validate_json_schema: the jsonschema module is missing "
                     "(apt-get install python3-jsonschema)\n")
    sys.exit(2)


def main():
    if len(sys.argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    with open(sys.argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    with open(sys.argv[2], encoding="utf-8") as f:
        document = json.load(f)
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    errors = sorted(validator_class(schema).iter_errors(document), key=lambda e: list(e.path))
    for error in errors[:10]:
        where = "/".join(str(p) for p in error.absolute_path) or "(top)"
        sys.stderr.write(f"{sys.argv[2]}: {where}: {error.message[:300]}\n")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
