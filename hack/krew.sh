#!/usr/bin/env bash
# Builds the archives of the krew manifest plugins/gatewright.yaml into DEST, one per
# platform it lists, and writes the manifest to DEST/gatewright.yaml with VERSION and each
# archive's sha256 filled in.
#
#   hack/krew.sh DEST VERSION LDFLAGS
set -euo pipefail

dest=$1 version=$2 ldflags=$3
root=$(cd "$(dirname "$0")/.." && pwd)
manifest=$root/plugins/gatewright.yaml
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)

cp "$manifest" "$dest/gatewright.yaml.tmp"
sed -i "s|{{VERSION}}|$version|g" "$dest/gatewright.yaml.tmp"
for platform in $(sed -n 's/.*{{SHA256_\([a-z0-9]*_[a-z0-9]*\)}}.*/\1/p' "$manifest"); do
	os=${platform%_*} arch=${platform#*_}
	bin=kubectl-gatewright
	[ "$os" = windows ] && bin=kubectl-gatewright.exe
	dir=$dest/$platform
	mkdir -p "$dir"
	(cd "$root" && CGO_ENABLED=0 GOOS=$os GOARCH=$arch "$root/hack/go-build-progress.sh" "$bin for $os/$arch" \
		build -trimpath -ldflags "-s -w $ldflags" -o "$dir/$bin" ./cmd/gatewright)
	archive=$dest/kubectl-gatewright_$platform.tar.gz
	tar -C "$dir" -czf "$archive" "$bin"
	sum=$(sha256sum "$archive" | cut -d' ' -f1)
	sed -i "s|{{SHA256_$platform}}|$sum|" "$dest/gatewright.yaml.tmp"
	echo "$archive sha256 $sum"
done
mv "$dest/gatewright.yaml.tmp" "$dest/gatewright.yaml"
echo "Wrote $dest/gatewright.yaml."
