#!/usr/bin/env bash
# Builds the envtest control plane (etcd and kube-apiserver) from Go modules, because
# release binaries cannot be downloaded on our build machines (setup-envtest fails there).
#
#   hack/build-testbin.sh DEST ETCD_VERSION KUBE_VERSION [etcd|kube-apiserver]...
#
# Each binary is written to a temporary name and moved into place only when the build
# succeeded, so an interrupted build never leaves a half-written binary behind.
set -euo pipefail

dest=$1 etcd_version=$2 kube_version=$3
shift 3
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(etcd kube-apiserver)

mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
export GOFLAGS=-mod=mod GOWORK=off CGO_ENABLED=0

scratch() {
	local dir
	dir=$(mktemp -d)
	(cd "$dir" && go mod init testbin.local/"$1" >/dev/null 2>&1)
	echo "$dir"
}

build_etcd() {
	local dir
	dir=$(scratch etcd)
	echo "building etcd v$etcd_version into $dest"
	(cd "$dir" &&
		go get go.etcd.io/etcd/server/v3@v"$etcd_version" &&
		go build -o "$dest/etcd.tmp" go.etcd.io/etcd/server/v3)
	mv "$dest/etcd.tmp" "$dest/etcd"
	rm -rf "$dir"
}

build_kube_apiserver() {
	local dir gomod staging
	dir=$(scratch kube-apiserver)
	echo "building kube-apiserver v$kube_version into $dest (about 9 minutes on 2 cores when nothing is cached)"
	gomod=$(cd "$dir" && go mod download -json k8s.io/kubernetes@v"$kube_version" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')
	# k8s.io/kubernetes points its staging modules at ./staging; pin them to the
	# published module of the same release instead.
	staging=$(sed -n 's#^[[:space:]]*\(k8s.io/[a-z0-9-]*\) => ./staging/.*#\1#p' "$gomod")
	for mod in $staging; do
		(cd "$dir" && go mod edit -replace "$mod=$mod@v0.${kube_version#1.}")
	done
	(cd "$dir" &&
		go get k8s.io/kubernetes/cmd/kube-apiserver@v"$kube_version" &&
		go build -o "$dest/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver)
	mv "$dest/kube-apiserver.tmp" "$dest/kube-apiserver"
	rm -rf "$dir"
}

for target in "${targets[@]}"; do
	case "$target" in
	etcd) build_etcd ;;
	kube-apiserver) build_kube_apiserver ;;
	*) echo "unknown target $target" >&2; exit 2 ;;
	esac
done
