#!/usr/bin/env bash
# The old binary of the cluster suite's upgrade test (docs/cluster.md,
# "Upgrading instance by instance"): prints the path of `guichet` built
# from an older commit, building it only when the cache lacks it.
#   GUICHET_UPGRADE_FROM   the commit to upgrade from (default: main's state
#                          just before HEAD's newest migration landed, the
#                          first parent of the first-parent commit that
#                          brought it: the upgrade crosses at least that
#                          migration)
#   GUICHET_UPGRADE_CACHE  where the binaries are kept, one per commit
#                          (default ~/.cache/guichet-upgrade): a machine
#                          builds each old commit once
# The old tree comes from `git archive` (no worktree to clean up); its SPA
# is built with its own sources (the old instances serve the old pages, as
# in a real rollout), with HEAD's node_modules when the lock file is the
# same, else `npm ci`.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

from=${GUICHET_UPGRADE_FROM:-}
if [ -z "$from" ]; then
	newest=$(git ls-tree --name-only HEAD internal/store/migrations/ | grep -E '/[0-9]{4}_[^/]*\.sql$' | sort | tail -n1)
	landed=$(git rev-list -1 --first-parent HEAD -- "$newest")
	from=$landed^1
fi
commit=$(git rev-parse --verify "$from^{commit}")
cache=${GUICHET_UPGRADE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/guichet-upgrade}/$commit
if [ -x "$cache/guichet" ]; then
	echo "$cache/guichet"
	exit 0
fi

tree=$(mktemp -d "${TMPDIR:-/tmp}/guichet-upgrade.XXXXXX")
trap 'rm -rf "$tree"' EXIT
git archive "$commit" | tar -x -C "$tree"
if cmp -s web/package-lock.json "$tree/web/package-lock.json" && [ -d web/node_modules ]; then
	ln -s "$root/web/node_modules" "$tree/web/node_modules"
else
	(cd "$tree/web" && npm ci --no-audit --no-fund >&2)
fi
(cd "$tree/web" && npm run build >&2)
mkdir -p "$cache"
(cd "$tree" && CGO_ENABLED=0 go build -buildvcs=false -trimpath \
	-ldflags "-s -w -X main.version=upgrade-from-${commit:0:12}" -o "$cache/guichet.$$" ./cmd/guichet)
mv "$cache/guichet.$$" "$cache/guichet" # a rename: two runs may build at once
echo "$cache/guichet"
