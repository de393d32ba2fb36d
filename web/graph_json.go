package web

import (
	"encoding/json"
	"slices"
	"strconv"
)

// The answer to a graph's submission or status is written by hand, byte
// for byte what encoding/json writes for it (graph_json_test.go holds the
// two side by side): it is on the path of every small graph, where the
// reflection over its fields and the sorted map cost more than the rest
// of writing the answer.

// jsonAppender is a value that appends its own JSON encoding, as
// encoding/json's Encoder writes it (without the newline).
type jsonAppender interface {
	appendJSON(b []byte) []byte
}

func (g *GraphJSON) appendJSON(b []byte) []byte {
	b = append(b, `{"session_id":`...)
	b = appendJSONString(b, g.SessionID)
	b = append(b, `,"graph_id":`...)
	b = appendJSONString(b, g.GraphID)
	b = append(b, `,"url":`...)
	b = appendJSONString(b, g.URL)
	b = append(b, `,"state":`...)
	b = appendJSONString(b, g.State)
	b = append(b, `,"progress":`...)
	if g.Progress == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '{')
		keys := make([]string, 0, len(g.Progress))
		for k := range g.Progress {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = append(b, ':')
			b = strconv.AppendInt(b, g.Progress[k], 10)
		}
		b = append(b, '}')
	}
	b = append(b, `,"chunk_ops":`...)
	b = strconv.AppendInt(b, g.ChunkOps, 10)
	b = append(b, `,"moved_bytes":`...)
	b = strconv.AppendInt(b, g.MovedBytes, 10)
	b = append(b, `,"recomputed":`...)
	b = strconv.AppendInt(b, g.Recomputed, 10)
	if g.Error != "" {
		b = append(b, `,"error":`...)
		b = appendJSONString(b, g.Error)
	}
	b = append(b, `,"prepare_ms":`...)
	b = strconv.AppendInt(b, g.PrepareMs, 10)
	b = append(b, `,"run_ms":`...)
	b = strconv.AppendInt(b, g.RunMs, 10)
	b = append(b, `,"results":`...)
	if g.Results == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range g.Results {
			if i > 0 {
				b = append(b, ',')
			}
			b = g.Results[i].appendJSON(b)
		}
		b = append(b, ']')
	}
	if g.Released {
		b = append(b, `,"released":true`...)
	}
	return append(b, '}')
}

func (r *ResultJSON) appendJSON(b []byte) []byte {
	b = append(b, `{"index":`...)
	b = strconv.AppendInt(b, int64(r.Index), 10)
	b = append(b, `,"shape":`...)
	if r.Shape == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, d := range r.Shape {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, d, 10)
		}
		b = append(b, ']')
	}
	b = append(b, `,"dtype":`...)
	b = appendJSONString(b, r.DType)
	b = append(b, `,"chunks":`...)
	b = strconv.AppendInt(b, int64(r.Chunks), 10)
	b = append(b, `,"url":`...)
	b = appendJSONString(b, r.URL)
	if r.Data != "" {
		b = append(b, `,"data":`...)
		b = appendJSONString(b, r.Data)
	}
	return append(b, '}')
}

// appendJSONString appends s quoted as encoding/json quotes it: a string
// of printable ASCII that needs no escape (ids, URLs, base64) as it is,
// any other through encoding/json itself.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, err := json.Marshal(s)
			if err != nil {
				// A string always encodes; kept total all the same.
				return append(b, `""`...)
			}
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
