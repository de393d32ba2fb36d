#!/bin/sh
# Regenerates rpc/phobosv1 from rpc/proto with `go generate ./rpc/`. The
# protoc plugins are built from the versions go.mod pins; protoc itself comes
# from the system (Debian: apt-get install protobuf-compiler).
set -eu
cd "$(dirname "$0")"
command -v protoc >/dev/null || { echo "gen.sh: protoc not found (apt-get install -y protobuf-compiler)" >&2; exit 1; }
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/protoc-gen-go" google.golang.org/protobuf/cmd/protoc-gen-go
go build -o "$bin/protoc-gen-connect-go" connectrpc.com/connect/cmd/protoc-gen-connect-go
protoc -I proto \
	--plugin=protoc-gen-go="$bin/protoc-gen-go" \
	--plugin=protoc-gen-connect-go="$bin/protoc-gen-connect-go" \
	--go_out=. --go_opt=module=github.com/phobos-tensor/phobos/rpc \
	--connect-go_out=. --connect-go_opt=module=github.com/phobos-tensor/phobos/rpc \
	phobos/v1/phobos.proto phobos/v1/dashboard.proto
