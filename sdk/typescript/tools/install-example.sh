#!/usr/bin/env bash
# Packs the TypeScript SDK as a shop ships it (npm pack: built to JavaScript with declarations) and
# installs the tarball into an empty project in <folder>, with the README's first example saved as
# check-licence.mjs exactly as written there.
#
#   sdk/typescript/tools/install-example.sh <folder>
set -euo pipefail
# npm's own output goes to stderr: stdout is the example's path alone.
exec 3>&1 1>&2
sdk="$(cd "$(dirname "$0")/.." && pwd)"
folder="$(mkdir -p "$1" && cd "$1" && pwd)"
tarball="$(cd "$sdk" && npm pack --pack-destination "$folder" --json | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s)[0].filename))')"
cd "$folder"
[ -f package.json ] || printf '{ "name": "licence-example", "private": true, "type": "module" }\n' >package.json
npm install --no-audit --no-fund --loglevel=error "./$tarball"
awk '/^```js$/ { inside = 1; next } inside && /^```$/ { exit } inside' "$sdk/README.md" >check-licence.mjs
echo "$folder/check-licence.mjs" >&3
