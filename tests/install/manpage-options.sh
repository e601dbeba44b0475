#!/bin/sh
# Every long option `ptieval --help` lists is documented in ptieval.1, and
# the man page renders without warnings when groff is there.
#   manpage-options.sh PTIEVAL MANPAGE
set -eu
ptieval=$1
man=$2
missing=
for opt in $("$ptieval" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
  escaped=$(printf '%s' "$opt" | sed 's/-/\\\\-/g')
  grep -q -- "$escaped" "$man" || missing="$missing $opt"
done
if [ -n "$missing" ]; then
  echo "ptieval.1 does not document:$missing" >&2
  exit 1
fi
if command -v groff > /dev/null 2>&1; then
  out=$(groff -man -Tutf8 -ww -z "$man" 2>&1)
  if [ -n "$out" ]; then
    echo "$out" >&2
    exit 1
  fi
fi
echo "ptieval.1 documents every option of --help"
