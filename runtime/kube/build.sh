#!/usr/bin/env bash
# Builds kube-apiserver and kubectl from the Go module proxy into $W/bin (the
# method of shared/recipes/kube-apiserver.sh): `go install ...@v1.37.2` is
# refused because k8s.io/kubernetes replaces its staging modules with local
# paths, so a small module requires k8s.io/kubernetes and maps each
# `k8s.io/X => ./staging/src/k8s.io/X` to the published `k8s.io/X v0.<minor>.<patch>`.
# Binaries are written under a temporary name and renamed: a killed build
# leaves no half-written binary behind. Cold: ~10 s of module downloads
# (740 MB) and 5-6 min of compiling on 2 cores (2.4 GB peak RSS); warm: seconds.
# Each version has its own module directory ($W/mod-<version>); SUFFIX names
# the binaries (kube-apiserver$SUFFIX) so other versions sit beside the default.
#
#   K8S_VERSION=v1.37.2 W=<repo>/.tools/k8s bash runtime/kube/build.sh kube-apiserver kubectl
#   K8S_VERSION=v1.36.3 SUFFIX=-v1.36.3 W=<repo>/.tools/k8s bash runtime/kube/build.sh kube-apiserver
set -euo pipefail

K8S_VERSION=${K8S_VERSION:-v1.37.2}
W=${W:?W (the tools directory) must be set}
command -v go >/dev/null || { echo "go is not on PATH: a Go toolchain >= the 'go' line of k8s.io/kubernetes $K8S_VERSION's go.mod is needed" >&2; exit 1; }
export GOFLAGS=${GOFLAGS:--buildvcs=false}
STAGING_VERSION=v0.${K8S_VERSION#v1.}
MINOR=$(echo "$K8S_VERSION" | cut -d. -f2)
SUFFIX=${SUFFIX:-}
M=$W/mod-$K8S_VERSION BIN=$W/bin LOGS=$W/logs/$K8S_VERSION
mkdir -p "$M" "$BIN" "$LOGS"
cd "$M"
log() { echo "[$(date +%H:%M:%S)] $*"; }

log "go $(go env GOVERSION): module k8s.io/kubernetes@$K8S_VERSION (its go.mod lists the staging replaces)"
gomod=$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
[ -n "$gomod" ] || { echo "could not download k8s.io/kubernetes@$K8S_VERSION from the module proxy" >&2; exit 1; }
{
  echo "module example.com/kubetoolchain"; echo
  echo "go $(sed -n 's/^go \([0-9.]*\)$/\1/p' "$gomod")"; echo
  echo "require k8s.io/kubernetes $K8S_VERSION"; echo
  echo "replace ("
  grep -E '^\s+k8s.io/[A-Za-z0-9._-]+ => \./staging/' "$gomod" | awk -v v="$STAGING_VERSION" '{printf "\t%s => %s %s\n", $1, $1, v}'
  echo ")"
} > go.mod
printf '//go:build tools\n\npackage tools\n\nimport (\n\t_ "k8s.io/kubernetes/cmd/kube-apiserver"\n\t_ "k8s.io/kubernetes/cmd/kubectl"\n)\n' > tools.go
log "go mod tidy (downloads the dependencies, ~740 MB cold)"
nice -n 19 go mod tidy > "$LOGS/tidy.log" 2>&1 || { tail -30 "$LOGS/tidy.log" >&2; exit 1; }

V="-X k8s.io/component-base/version.gitVersion=$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$MINOR"
V="$V -X k8s.io/component-base/version.gitTreeState=clean -X k8s.io/component-base/version.gitCommit=module-$K8S_VERSION"
V="$V -X k8s.io/component-base/version.buildDate=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
V="$V -X k8s.io/client-go/pkg/version.gitVersion=$K8S_VERSION -X k8s.io/client-go/pkg/version.gitMajor=1 -X k8s.io/client-go/pkg/version.gitMinor=$MINOR"
for cmd in "$@"; do
  t0=$(date +%s)
  log "go build $cmd (CGO_ENABLED=0, static, stripped; cold: kube-apiserver about 5 min on 2 cores, kubectl +25 s)"
  CGO_ENABLED=0 nice -n 19 go build -trimpath -ldflags "-s -w $V" -o "$BIN/.$cmd$SUFFIX.tmp" "k8s.io/kubernetes/cmd/$cmd" \
    > "$LOGS/build-$cmd.log" 2>&1 || { tail -40 "$LOGS/build-$cmd.log" >&2; rm -f "$BIN/.$cmd$SUFFIX.tmp"; exit 1; }
  mv -f "$BIN/.$cmd$SUFFIX.tmp" "$BIN/$cmd$SUFFIX"
  log "$cmd $K8S_VERSION built in $(( $(date +%s) - t0 )) s ($(du -m "$BIN/$cmd$SUFFIX" | cut -f1) MB)"
done
