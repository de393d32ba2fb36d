package rpc

//go:generate sh gen.sh
