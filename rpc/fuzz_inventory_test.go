package rpc_test

import (
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/rpc"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
)

// FuzzDecodeChunkPage decodes arbitrary bytes as a ListChunks request and
// as a worker's answer to one: an error, or values whose every field
// passed its checks (bounded, increasing keys of the graphs asked), never
// a panic.
func FuzzDecodeChunkPage(f *testing.F) {
	q := &pb.ListChunksRequest{Graphs: []uint64{7, 9}, HasAfter: true, AfterGraph: 7, AfterNode: 2, MaxChunks: 3, FenceScope: "s", Fence: 4}
	qb, err := proto.Marshal(q)
	if err != nil {
		f.Fatal(err)
	}
	resp := rpc.EncodeChunkPage(rpc.ChunkQuery{Graphs: []protocol.GraphID{7, 9}, Max: 3}, []rpc.HeldChunk{
		{Key: protocol.ChunkKey{Graph: 7, Node: 3}, Nbytes: 8}, {Key: protocol.ChunkKey{Graph: 9, Node: 0}, Nbytes: 0},
	})
	rb, err := proto.Marshal(resp)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(qb, rb)
	f.Fuzz(func(t *testing.T, reqBytes, respBytes []byte) {
		var m pb.ListChunksRequest
		if proto.Unmarshal(reqBytes, &m) != nil {
			return
		}
		q, err := rpc.DecodeChunkQuery(&m)
		if err != nil {
			return
		}
		if len(q.Graphs) == 0 || len(q.Graphs) > rpc.MaxListGraphs || q.Max <= 0 || q.Max > rpc.MaxListChunks || len(q.Fence.Scope) > rpc.MaxFenceScopeBytes {
			t.Fatalf("decoded a query that should have been refused: %+v", q)
		}
		var r pb.ListChunksResponse
		if proto.Unmarshal(respBytes, &r) != nil {
			return
		}
		held, err := rpc.DecodeChunkPage(q, &r)
		if err != nil {
			return
		}
		if len(held) > q.Max {
			t.Fatalf("%d chunks in a page of at most %d", len(held), q.Max)
		}
		for i, h := range held {
			if h.Key.Node < 0 || h.Nbytes < 0 || (i > 0 && !(held[i-1].Key.Graph < h.Key.Graph || held[i-1].Key.Graph == h.Key.Graph && held[i-1].Key.Node < h.Key.Node)) {
				t.Fatalf("decoded a page that should have been refused: %+v", held)
			}
		}
	})
}
