package storage_test

import (
	"errors"
	"testing"

	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/storage"
)

// A store charging another (Config.ChargeTo, a worker's lane) counts its
// memory against that one's limit, in steps of ChargeStep: below a step
// nothing is charged yet, past it all of it is, ops that no longer fit
// are refused, and a store that empties (or closes) gives it all back.
func TestChargeTo(t *testing.T) {
	const limit = 4 * storage.ChargeStep
	main := storage.Open(storage.Config{Limit: limit})
	defer main.Close()
	lane := storage.Open(storage.Config{ChargeTo: main})
	small := storage.ChargeStep / unit / 2 // half a step, in units
	lane.Put(key(1), chunk(t, small, 0))
	if got := main.Stats().External; got != 0 {
		t.Fatalf("half a step stored: %d charged, want none yet", got)
	}
	lane.Put(key(2), chunk(t, small, 0))
	charged := int64(storage.ChargeStep)
	if got := main.Stats().External; got != charged {
		t.Fatalf("a step stored: %d charged, want %d", got, charged)
	}
	lane.Put(key(3), chunk(t, small, 0))
	if got := main.Stats().External; got != charged {
		t.Fatalf("a step and a half stored: %d charged, want the first step's %d", got, charged)
	}
	// What is left of the limit fits; a byte more does not.
	r, err := main.Reserve(storage.Request{Op: "fits", Output: limit - charged})
	if err != nil || r == nil {
		t.Fatalf("%d, all that is left of %d: %v %v", limit-charged, limit, r, err)
	}
	r.Close()
	var nr *storage.NoRoomError
	if r, err := main.Reserve(storage.Request{Op: "over", Output: limit - charged + 1}); r != nil || !errors.As(err, &nr) {
		t.Fatalf("a byte more than is left: %v %v, want a NoRoomError", r, err)
	}
	// Half a step left: half a step less than when it was last charged.
	lane.Delete([]protocol.ChunkKey{key(1), key(2)})
	if got := main.Stats().External; got != charged {
		t.Fatalf("half a step less than charged: %d charged, want still %d", got, charged)
	}
	lane.Delete([]protocol.ChunkKey{key(3)})
	if got := main.Stats().External; got != 0 {
		t.Fatalf("the lane emptied: %d still charged", got)
	}
	lane.Put(key(4), chunk(t, 3*small, 0))
	if err := lane.Close(); err != nil {
		t.Fatal(err)
	}
	if got := main.Stats().External; got != 0 {
		t.Fatalf("the lane closed: %d still charged", got)
	}
}
