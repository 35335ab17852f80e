#!/usr/bin/env bash
# Builds the local control plane (etcd and kube-apiserver) that `make run`, `make demo` and
# the envtest suites start, from Go modules, because release binaries cannot be downloaded
# on our build machines (setup-envtest fails there).
#
#   hack/build-testbin.sh DEST ETCD_VERSION KUBE_VERSION [etcd|kube-apiserver]...
#
# Binaries already in DEST are kept, and then nothing is printed. A build takes minutes,
# so the script says what it builds, why, and about how long, how many packages it has
# compiled of the total while the compiler runs (hack/go-build-progress.sh), a line every
# 10 seconds while modules download, and one line per finished binary.
#
# Each binary is written to a temporary name and moved into place only when the build
# succeeded, so an interrupted build never leaves a half-written binary behind.
set -euo pipefail

hack=$(cd "$(dirname "$0")" && pwd)
dest=$1 etcd_version=$2 kube_version=$3
shift 3
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(etcd kube-apiserver)

mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
export GOFLAGS=-mod=mod GOWORK=off CGO_ENABLED=0

missing=()
for target in "${targets[@]}"; do
	case "$target" in
	etcd | kube-apiserver) [ -x "$dest/$target" ] || missing+=("$target") ;;
	*) echo "unknown target $target" >&2; exit 2 ;;
	esac
done
[ ${#missing[@]} -gt 0 ] || exit 0

# Rough times on 2 cores with nothing in the Go build cache; a warm cache takes a fraction.
declare -A minutes=([etcd]=1 [kube-apiserver]=9)
total=0
for target in "${missing[@]}"; do
	total=$((total + ${minutes[$target]:-0}))
done
cat <<EOF
Building the local control plane into $dest: ${missing[*]}.
make run, make demo and make test start a real kube-apiserver and etcd. They are built
from Go modules (the Go module proxy is all it takes), once: about $total min on 2 cores
with an empty Go build cache, less with a warm one.
EOF

# elapsed writes the seconds since $1 (a value of $SECONDS) as 1m05s.
elapsed() {
	local seconds=$((SECONDS - $1))
	printf '%dm%02ds' $((seconds / 60)) $((seconds % 60))
}

# step runs a command and, while it runs, says every 10 seconds that it still does, so
# that a download that prints nothing for minutes is seen to be alive. The command's own
# output (go get lists every module it adds) is shown only when it fails.
step() {
	local what=$1 start=$SECONDS ticker status=0 log
	shift
	echo "  $what"
	log=$(mktemp)
	(while sleep 10; do echo "  ... still $what ($(elapsed "$start"))"; done) &
	ticker=$!
	"$@" >"$log" 2>&1 || status=$?
	kill "$ticker" 2>/dev/null || true
	wait "$ticker" 2>/dev/null || true
	[ "$status" -eq 0 ] || cat "$log" >&2
	rm -f "$log"
	return "$status"
}

# in_dir runs a command in a folder.
in_dir() {
	local dir=$1
	shift
	(cd "$dir" && "$@")
}

scratch() {
	local dir
	dir=$(mktemp -d)
	(cd "$dir" && go mod init testbin.local/"$1" >/dev/null 2>&1)
	echo "$dir"
}

build_etcd() {
	local dir
	dir=$(scratch etcd)
	step "downloading the modules of etcd v$etcd_version" in_dir "$dir" go get go.etcd.io/etcd/server/v3@v"$etcd_version"
	in_dir "$dir" "$hack/go-build-progress.sh" etcd build -o "$dest/etcd.tmp" go.etcd.io/etcd/server/v3
	mv "$dest/etcd.tmp" "$dest/etcd"
	rm -rf "$dir"
}

build_kube_apiserver() {
	local dir gomod staging
	dir=$(scratch kube-apiserver)
	echo "  pinning the staging modules of Kubernetes v$kube_version"
	gomod=$(cd "$dir" && go mod download -json k8s.io/kubernetes@v"$kube_version" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')
	# k8s.io/kubernetes points its staging modules at ./staging; pin them to the
	# published module of the same release instead.
	staging=$(sed -n 's#^[[:space:]]*\(k8s.io/[a-z0-9-]*\) => ./staging/.*#\1#p' "$gomod")
	for mod in $staging; do
		(cd "$dir" && go mod edit -replace "$mod=$mod@v0.${kube_version#1.}")
	done
	step "downloading the modules of kube-apiserver v$kube_version" in_dir "$dir" go get k8s.io/kubernetes/cmd/kube-apiserver@v"$kube_version"
	in_dir "$dir" "$hack/go-build-progress.sh" kube-apiserver build -o "$dest/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver
	mv "$dest/kube-apiserver.tmp" "$dest/kube-apiserver"
	rm -rf "$dir"
}

for target in "${missing[@]}"; do
	start=$SECONDS
	echo "Building $target (about ${minutes[$target]:-?} min cold):"
	case "$target" in
	etcd) build_etcd ;;
	kube-apiserver) build_kube_apiserver ;;
	esac
	echo "Built $dest/$target in $(elapsed "$start")."
done
