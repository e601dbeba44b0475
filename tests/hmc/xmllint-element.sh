#!/bin/sh
# Validate every ELEMENT of an HMC file against a model's XSD with xmllint,
# as a user would by hand.
# usage: xmllint-element.sh XMLLINT MODEL.xsd HMC.xml ELEMENT
set -eu
xmllint=$1 xsd=$2 file=$3 element=$4
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
n=$("$xmllint" --xpath "count(//$element)" "$file")
if [ "$n" -lt 1 ]; then
  echo "$file: no <$element>" >&2
  exit 1
fi
i=1
while [ "$i" -le "$n" ]; do
  "$xmllint" --xpath "(//$element)[$i]" "$file" > "$tmp"
  "$xmllint" --noout --schema "$xsd" "$tmp"
  i=$((i + 1))
done
