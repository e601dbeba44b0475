#!/bin/sh
# static-link.sh PTIEVAL: with -Dstatic_deps=true, ptieval needs no shared
# library but the C library's (libc, libm, libgcc_s, the dynamic loader;
# and the sanitizers' runtimes in a sanitized build):
# a missing static archive must not quietly bring back its shared object,
# whose loading is what the option saves.
set -u
ptieval=$1
needed=$(readelf -d "$ptieval" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p') || exit 1
[ -n "$needed" ] || { echo "static-link: readelf found no NEEDED entry in $ptieval" >&2; exit 1; }
bad=""
for lib in $needed; do
  case $lib in
    libc.so.*|libm.so.*|libgcc_s.so.*|ld-linux*.so.*) ;;
    libasan.so.*|libubsan.so.*) ;;   # -Db_sanitize: the sanitizers' runtimes come first
    *) bad="$bad $lib" ;;
  esac
done
if [ -n "$bad" ]; then
  echo "static-link: $ptieval still needs:$bad (its static archive is missing?)" >&2
  exit 1
fi
echo "static-link: ptieval needs only:" $needed
