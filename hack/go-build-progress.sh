#!/usr/bin/env bash
# Runs `go build` or `go install` and says how far it got: the packages compiled of those
# it has to compile, counted from `go build -v`, on one line updated every second on a
# terminal, else a line every 10 seconds. A first build of Gatewright compiles the
# Kubernetes libraries, several minutes on 2 cores in which the go command prints nothing
# by itself.
#
#   hack/go-build-progress.sh WHAT build|install [BUILD FLAGS...] PACKAGE
#
# WHAT names what is built in the messages ("bin/gatewright"). The exit status is go's;
# its errors are printed as they come.
set -uo pipefail

what=$1 verb=$2
shift 2
# The packages the build compiles: those not up to date in the build cache, for the same
# build flags (-o aside, which go list does not take).
list=()
skip=false
for arg in "$@"; do
	if $skip; then
		skip=false
		continue
	fi
	case $arg in
	-o) skip=true ;;
	-o=*) ;;
	*) list+=("$arg") ;;
	esac
done
# On a fresh machine go list downloads the modules first, which takes minutes too: say so
# past a few seconds.
stale=$(mktemp)
go list -e -deps -f '{{if .Stale}}{{.ImportPath}}{{end}}' "${list[@]}" >"$stale" 2>/dev/null &
lister=$!
ticks=0 # of 0.2 s
while kill -0 "$lister" 2>/dev/null; do
	sleep 0.2
	ticks=$((ticks + 1))
	if [ $((ticks % 50)) -eq 15 ]; then
		echo "building $what: finding the packages to compile, downloading modules the first time ($((ticks / 5))s)"
	fi
done
wait "$lister"
total=$(grep -c . "$stale")
rm -f "$stale"
# A command is stale until linked, even when all it needs is in the cache: then the
# build takes seconds, and there is nothing to count.
if [ "$total" -le 1 ]; then
	go "$verb" "$@"
	exit
fi

tty=false
[ -t 1 ] && tty=true
interval=10
$tty && interval=1
start=$SECONDS

elapsed() {
	local seconds=$((SECONDS - start))
	printf '%dm%02ds' $((seconds / 60)) $((seconds % 60))
}

compiled=0
progress() {
	local line
	if [ "$compiled" -lt "$total" ]; then
		line="building $what: $compiled/$total packages compiled ($(elapsed))"
	else
		line="building $what: $total/$total packages compiled, linking ($(elapsed))"
	fi
	if $tty; then
		printf '\r\033[K%s' "$line"
	else
		echo "$line"
	fi
}

echo "building $what: $total packages to compile"
status=0
last=$SECONDS
exec 3< <(go "$verb" -v "$@" 2>&1; echo "go-build-progress-exit $?")
while :; do
	if IFS= read -r -t 1 line <&3; then
		case $line in
		"go-build-progress-exit "*)
			status=${line#go-build-progress-exit }
			break
			;;
		esac
		# -v prints the import path of each package it compiles; anything else is go
		# telling something, such as a compile error.
		if [[ $line =~ ^[A-Za-z0-9._~+/-]+$ ]]; then
			compiled=$((compiled + 1))
		else
			$tty && printf '\r\033[K'
			echo "$line" >&2
		fi
	elif [ $? -le 128 ]; then
		status=1 # end of output without a status: go was killed
		break
	fi
	if [ $((SECONDS - last)) -ge "$interval" ]; then
		progress
		last=$SECONDS
	fi
done
$tty && printf '\r\033[K'
if [ "$status" -eq 0 ]; then
	echo "built $what: $compiled packages compiled in $(elapsed)"
fi
exit "$status"
