#!/bin/sh
# Every long option `PROGRAM --help` lists is documented in its man page,
# and the man page renders without warnings when groff is there.
#   manpage-options.sh PROGRAM MANPAGE
set -eu
program=$1
man=$2
name=$(basename "$man")
missing=
for opt in $("$program" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
  escaped=$(printf '%s' "$opt" | sed 's/-/\\\\-/g')
  grep -q -- "$escaped" "$man" || missing="$missing $opt"
done
if [ -n "$missing" ]; then
  echo "$name does not document:$missing" >&2
  exit 1
fi
if command -v groff > /dev/null 2>&1; then
  out=$(groff -man -Tutf8 -ww -z "$man" 2>&1)
  if [ -n "$out" ]; then
    echo "$out" >&2
    exit 1
  fi
fi
echo "$name documents every option of --help"
