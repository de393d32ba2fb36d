package rpc

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/phobos-tensor/phobos/ops"
)

// A dispatch message carries each distinct payload of its SharedPayload
// ops (users' pickled functions) once: the ops travel without it, naming
// it by digest, and the payloads follow the ops in the message's op list
// as entries of their own, raw bytes behind payloadMagic and the digest.
// An op's encoding always begins with '{', so the two cannot be confused.
var payloadMagic = []byte("\x00phobos-payload\x00")

// digestLen is the length of ops.PayloadDigest's hex.
const digestLen = 32

// sharedPayload is op's payload to send apart from it, if it has one.
func sharedPayload(op ops.ChunkOp) (digest string, payload []byte, ok bool) {
	if p, is := op.(PreEncoded); is {
		op = p.ChunkOp
	}
	sp, is := op.(ops.SharedPayload)
	if !is {
		return "", nil, false
	}
	digest, payload = sp.PayloadDigest(), sp.PayloadBytes()
	if digest == "" || len(payload) == 0 {
		return "", nil, false
	}
	return digest, payload, true
}

// marshalStripped encodes op, without its shared payload if it has one.
func marshalStripped(op ops.ChunkOp) ([]byte, error) {
	if _, _, ok := sharedPayload(op); ok {
		op = op.(ops.SharedPayload).WithPayload(nil)
	}
	return ops.MarshalOp(op)
}

func payloadEntry(digest string, payload []byte) []byte {
	b := make([]byte, 0, len(payloadMagic)+len(digest)+len(payload))
	b = append(b, payloadMagic...)
	b = append(b, digest...)
	return append(b, payload...)
}

// parsePayloadEntry reads a payload entry; ok is false for an op.
func parsePayloadEntry(raw []byte) (digest string, payload []byte, ok bool, err error) {
	if !bytes.HasPrefix(raw, payloadMagic) {
		return "", nil, false, nil
	}
	rest := raw[len(payloadMagic):]
	if len(rest) < digestLen {
		return "", nil, true, errors.New("payload entry too short")
	}
	digest, payload = string(rest[:digestLen]), rest[digestLen:]
	if len(payload) == 0 {
		return "", nil, true, errors.New("empty payload entry")
	}
	if len(payload) > ops.MaxUserPayload {
		return "", nil, true, fmt.Errorf("payload of %d bytes, over the limit of %d", len(payload), ops.MaxUserPayload)
	}
	if got := ops.PayloadDigest(payload); got != digest {
		return "", nil, true, fmt.Errorf("payload named %s has digest %s", digest, got)
	}
	return digest, payload, true, nil
}

// restorePayloads gives the decoded ops that travelled without their
// payload the message's copy of it.
func restorePayloads(decoded []ops.ChunkOp, table map[string][]byte) error {
	for i, op := range decoded {
		sp, ok := op.(ops.SharedPayload)
		if !ok || sp.PayloadDigest() == "" || len(sp.PayloadBytes()) > 0 {
			continue
		}
		p, ok := table[sp.PayloadDigest()]
		if !ok {
			return fmt.Errorf("rpc: op %d of the batch names payload %s, which the batch does not carry", i, sp.PayloadDigest())
		}
		decoded[i] = sp.WithPayload(p)
	}
	return nil
}
