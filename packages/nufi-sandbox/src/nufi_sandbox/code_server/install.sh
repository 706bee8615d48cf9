#!/usr/bin/env bash
# Install the pinned code-server and the Node 24 it needs, once per machine, from the npm registry only.
#
# The pins are package.json and package-lock.json beside this script (versions and integrity). They are
# installed into a cache directory outside the clone, named by code-server's version and a hash of the
# lock, so a second `make setup` (or a second clone) finds them and takes seconds. The stamp file
# `.installed` is written last: a directory without it is half an install, removed and redone.
#
# code-server's install scripts build native addons against Node 24 and refuse any other Node, while the
# machine's own npm may run on an older one: `npm ci --ignore-scripts` fetches everything the lock names,
# then `npm rebuild` runs the install scripts with Node 24 first on PATH and its headers as nodedir.
#
# Exit codes: 0 installed (or already there); 2 a tool is missing; 3 the registry could not be reached
# or refused a package; 4 a build step failed. The message names what to do.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
version="$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["dependencies"]["code-server"])' "$here/package.json")"
lock_hash="$(sha256sum "$here/package-lock.json" | cut -c1-12)"
cache="${NUFI_CODE_SERVER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nufi}"
dest="$cache/code-server-$version-$lock_hash"
log="$cache/code-server-$version-$lock_hash.log"
logging=0

fail() {  # fail CODE MESSAGE: say what went wrong and what to do, with the end of the log if there is one
  echo "code-server: $2" >&2
  if [ "$logging" = 1 ] && [ -s "$log" ]; then
    echo "--- last lines of $log ---" >&2
    tail -n 25 "$log" >&2
  fi
  exit "$1"
}

if [ -f "$dest/.installed" ]; then
  echo "code-server $version is installed in $dest"
  exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing Debian's npm (code-server comes from the npm registry)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends npm >/dev/null
  else
    fail 2 "npm is not installed: install it (Debian: 'sudo apt-get install npm'), then run 'make setup' again"
  fi
fi
for tool in krb5-config make g++ python3; do
  command -v "$tool" >/dev/null 2>&1 || fail 2 "'$tool' is missing, and code-server's native addons are \
built with it: run 'sudo make setup' (it installs the Debian packages libkrb5-dev and build-essential), \
then 'make setup' again"
done

case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64) arch=arm64 ;;
  *) fail 2 "no Node 24 is pinned for this machine's architecture ($(uname -m)); set NUFI_CODE_SERVER to a code-server you installed yourself" ;;
esac

mkdir -p "$cache"
# Two clones running `make setup` at once: the second waits for the first and then finds its install.
exec 9>"$cache/code-server.lock"
flock 9
if [ -f "$dest/.installed" ]; then
  echo "code-server $version is installed in $dest"
  exit 0
fi

echo "installing code-server $version and Node 24 into $dest (a few minutes, about 0.8 GB; once per machine)"
started=$SECONDS
rm -rf "$dest"
mkdir -p "$dest"
cp "$here/package.json" "$here/package-lock.json" "$dest/"
: >"$log"
logging=1
cd "$dest"

registry="$(npm config get registry 2>/dev/null || echo 'the npm registry')"
npm ci --ignore-scripts --no-audit --no-fund --loglevel=warn >>"$log" 2>&1 ||
  fail 3 "could not fetch the pinned packages from $registry: check the network and npm's registry \
setting ('npm config get registry'), then run 'make setup' again"

node_dir="$dest/node_modules/node-linux-$arch"
[ -x "$node_dir/bin/node" ] && [ -d "$node_dir/include/node" ] ||
  fail 4 "the node-linux-$arch package has no bin/node or include/node; remove $dest and run 'make setup' again"

# code-server's own postinstall runs `npm install --omit=dev` in its bundled VS Code, which has its own lock.
PATH="$node_dir/bin:$PATH" npm_config_nodedir="$node_dir" npm rebuild --foreground-scripts >>"$log" 2>&1 ||
  fail 4 "building code-server's native addons failed (they need g++, make, python3 and libkrb5-dev); \
fix what the log says, then run 'make setup' again"

# The one command the sandbox and the tests run: Node 24 with code-server's entry point, whatever node
# comes first on PATH.
mkdir -p "$dest/bin"
cat >"$dest/bin/code-server" <<WRAPPER
#!/bin/sh
exec "$node_dir/bin/node" "$dest/node_modules/code-server/out/node/entry.js" "\$@"
WRAPPER
chmod 755 "$dest/bin/code-server"
# Even `--version` writes a config file and logs under HOME: a scratch one, not the user's.
scratch="$(mktemp -d)"
HOME="$scratch" XDG_CONFIG_HOME="$scratch" XDG_DATA_HOME="$scratch" "$dest/bin/code-server" --version >>"$log" 2>&1 ||
  { rm -rf "$scratch"; fail 4 "the installed code-server does not start; fix what the log says, then run 'make setup' again"; }
rm -rf "$scratch"

touch "$dest/.installed"
echo "code-server $version installed in $((SECONDS - started)) s: $dest/bin/code-server"
