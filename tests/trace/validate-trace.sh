#!/bin/sh
# usage: validate-trace.sh TRACE...
# Validates pti output traces against trace.xsd in $PTI_SCHEMA_DIR (set by
# the test environment).  Exit status 0 when every trace is valid.
set -eu
if [ -z "${PTI_SCHEMA_DIR:-}" ]; then
  echo "validate-trace.sh: PTI_SCHEMA_DIR is not set" >&2
  exit 2
fi
if [ "$#" -eq 0 ]; then
  echo "usage: validate-trace.sh TRACE..." >&2
  exit 2
fi
exec xmllint --noout --nonet --stream --schema "$PTI_SCHEMA_DIR/trace.xsd" "$@"
