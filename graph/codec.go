package graph

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/phobos-tensor/phobos/ops"
)

// TileableVersion is the version of the TileableGraph JSON this code writes
// and reads (docs/rest-api.md documents the schema). A reader refuses other
// versions rather than guess at them.
const TileableVersion = 1

// tileableJSON is the wire form of a TileableGraph:
//
//	{"version": 1, "nodes": [{"op": {"type": ..., "params": {...}}, "inputs": [0, 1], "meta": {"shape": [..], "dtype": ".."}}, ...]}
//
// Nodes are in topological order; inputs index earlier nodes.
type tileableJSON struct {
	Version int            `json:"version"`
	Nodes   []tensorNodeJS `json:"nodes"`
}

type tensorNodeJS struct {
	Op     json.RawMessage `json:"op"`
	Inputs []int           `json:"inputs"`
	Meta   *ops.Meta       `json:"meta,omitempty"`
}

// EncodeTileable writes g as versioned JSON.
func EncodeTileable(g *TileableGraph) ([]byte, error) {
	doc := tileableJSON{Version: TileableVersion, Nodes: make([]tensorNodeJS, len(g.Nodes))}
	for i, nd := range g.Nodes {
		op, err := ops.MarshalOp(nd.Op)
		if err != nil {
			return nil, fmt.Errorf("graph: tensor %d (%s): %w", i, nd.Op.Type(), err)
		}
		m := nd.Meta
		doc.Nodes[i] = tensorNodeJS{Op: op, Inputs: nd.Inputs, Meta: &m}
		if doc.Nodes[i].Inputs == nil {
			doc.Nodes[i].Inputs = []int{}
		}
	}
	return json.Marshal(doc)
}

// DecodeTileable reads a graph written by EncodeTileable (or by hand, per
// docs/rest-api.md) and checks it as tensor.New would: every op is known,
// inputs precede their consumers, and each op's Infer accepts its inputs'
// shapes and dtypes. A node's meta is optional; when given it must equal
// what Infer computes, so a client and server that disagree fail loudly.
func DecodeTileable(data []byte) (*TileableGraph, error) {
	return DecodeTileableFrom(bytes.NewReader(data))
}

// DecodeTileableFrom is DecodeTileable reading from r.
func DecodeTileableFrom(r io.Reader) (*TileableGraph, error) {
	d := json.NewDecoder(r)
	d.DisallowUnknownFields()
	var doc tileableJSON
	if err := d.Decode(&doc); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("graph: malformed JSON at byte %d: %w", se.Offset, err)
		}
		return nil, fmt.Errorf("graph: malformed graph JSON: %w", err)
	}
	if d.More() {
		return nil, fmt.Errorf("graph: trailing data after the graph")
	}
	if doc.Version != TileableVersion {
		return nil, fmt.Errorf("graph: unsupported graph version %d (this server reads version %d)", doc.Version, TileableVersion)
	}
	if len(doc.Nodes) == 0 {
		return nil, fmt.Errorf("graph: no nodes")
	}
	g := &TileableGraph{Nodes: make([]TensorNode, 0, len(doc.Nodes))}
	for i, nj := range doc.Nodes {
		if len(nj.Op) == 0 {
			return nil, fmt.Errorf("graph: tensor %d has no op", i)
		}
		op, err := ops.UnmarshalTensorOp(nj.Op)
		if err != nil {
			return nil, fmt.Errorf("graph: tensor %d: %w", i, err)
		}
		metas := make([]ops.Meta, len(nj.Inputs))
		for k, in := range nj.Inputs {
			if in < 0 || in >= i {
				return nil, fmt.Errorf("graph: tensor %d (%s): input %d is %d, which is not an earlier tensor", i, op.Type(), k, in)
			}
			metas[k] = g.Nodes[in].Meta
		}
		m, err := inferSafely(op, metas)
		if err != nil {
			return nil, fmt.Errorf("graph: tensor %d (%s) with inputs %v: %w", i, op.Type(), metas, err)
		}
		if nj.Meta != nil && (nj.Meta.DType != m.DType || !slices.Equal(nj.Meta.Shape, m.Shape) || nj.Meta.Unknown != m.Unknown) {
			return nil, fmt.Errorf("graph: tensor %d (%s): declared %v but its inputs give %v", i, op.Type(), *nj.Meta, m)
		}
		g.Add(op, slices.Clone(nj.Inputs), m)
	}
	return g, nil
}

// inferSafely runs Infer, turning a panic on hostile parameters into an error.
func inferSafely(op ops.TensorOp, in []ops.Meta) (m ops.Meta, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("invalid parameters: %v", p)
		}
	}()
	return ops.InferChecked(op, in)
}
