package ops

import (
	"crypto/sha256"
	"encoding/hex"
)

// SharedPayload is a chunk op whose large part (a user function's pickled
// payload) is the same across many chunk ops of a graph. A dispatch
// message carries each distinct payload once, in a table by digest, and
// the ops without it (rpc.EncodeDispatch); the receiver puts it back
// before the op runs.
type SharedPayload interface {
	ChunkOp
	// PayloadDigest names the payload; "" for an op that has none to share.
	PayloadDigest() string
	// PayloadBytes is the payload, nil once stripped.
	PayloadBytes() []byte
	// WithPayload is the op carrying p (nil: stripped for the wire).
	WithPayload(p []byte) ChunkOp
}

// PayloadDigest is the digest a payload is named by: the hex of the first
// 16 bytes of its SHA-256.
func PayloadDigest(p []byte) string {
	h := sha256.Sum256(p)
	return hex.EncodeToString(h[:16])
}

// PayloadDigest implements SharedPayload.
func (op UserBlock) PayloadDigest() string { return op.Digest }

// PayloadBytes implements SharedPayload.
func (op UserBlock) PayloadBytes() []byte { return op.Payload }

// WithPayload implements SharedPayload.
func (op UserBlock) WithPayload(p []byte) ChunkOp {
	op.Payload = p
	return op
}
