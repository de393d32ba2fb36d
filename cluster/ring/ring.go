// Package ring is the consistent-hash ring that spreads sessions over the
// schedulers of a cluster. It is a pure value: every scheduler and web
// service that sees the same membership builds the same ring and so
// agrees, without talking, on which scheduler owns a key.
//
// Each member is hashed to Replicas points (virtual nodes) on a 64-bit
// circle with xxhash; a key belongs to the member of the first point at or
// after the key's hash. Many virtual nodes keep the members' shares even
// (within 10% of the mean for 3 to 16 members, TestBalance), and a member
// joining or leaving moves only the keys it takes or gives up.
package ring

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/cespare/xxhash/v2"
)

// DefaultReplicas is the number of virtual nodes per member. 1024 points a
// member keep the largest share within 10% of the mean up to 16 members;
// a lookup is a binary search over Replicas × members points.
const DefaultReplicas = 1024

// Ring maps keys to members. The zero Ring has no members.
type Ring struct {
	members []string // sorted
	points  []point  // sorted by hash
}

type point struct {
	hash   uint64
	member int32 // index into members
}

// New builds the ring of members (their order does not matter) with
// replicas virtual nodes each (0: DefaultReplicas). Member ids must be
// distinct and not empty.
func New(members []string, replicas int) (*Ring, error) {
	if replicas <= 0 {
		replicas = DefaultReplicas
	}
	ms := slices.Clone(members)
	slices.Sort(ms)
	for i, m := range ms {
		if m == "" {
			return nil, errors.New("ring: a member with an empty id")
		}
		if i > 0 && ms[i-1] == m {
			return nil, fmt.Errorf("ring: member %q given twice", m)
		}
	}
	r := &Ring{members: ms, points: make([]point, 0, len(ms)*replicas)}
	var buf []byte
	for i, m := range ms {
		for v := range replicas {
			buf = append(append(append(buf[:0], m...), '#'), strconv.Itoa(v)...)
			r.points = append(r.points, point{hash: xxhash.Sum64(buf), member: int32(i)})
		}
	}
	// Ties between points (a 64-bit collision) break by member, so every
	// process orders them alike.
	slices.SortFunc(r.points, func(a, b point) int {
		if a.hash != b.hash {
			if a.hash < b.hash {
				return -1
			}
			return 1
		}
		return int(a.member - b.member)
	})
	return r, nil
}

// Members are the ring's member ids, sorted.
func (r *Ring) Members() []string {
	if r == nil {
		return nil
	}
	return slices.Clone(r.members)
}

// Len is the number of members.
func (r *Ring) Len() int {
	if r == nil {
		return 0
	}
	return len(r.members)
}

// Has reports whether id is a member.
func (r *Ring) Has(id string) bool {
	if r == nil {
		return false
	}
	_, ok := slices.BinarySearch(r.members, id)
	return ok
}

// Owner is the member that owns key, or "" when the ring is empty.
func (r *Ring) Owner(key string) string {
	if r == nil || len(r.points) == 0 {
		return ""
	}
	return r.members[r.points[r.search(xxhash.Sum64String(key))].member]
}

// search is the index of the first point at or after h, wrapping around.
func (r *Ring) search(h uint64) int {
	i, _ := slices.BinarySearchFunc(r.points, h, func(p point, h uint64) int {
		switch {
		case p.hash < h:
			return -1
		case p.hash > h:
			return 1
		}
		return 0
	})
	if i == len(r.points) {
		i = 0
	}
	return i
}

// Shares is the fraction of the hash circle each member owns, by member
// id: the exact balance of the ring, which keys drawn at random approach.
func (r *Ring) Shares() map[string]float64 {
	out := make(map[string]float64, r.Len())
	if r.Len() == 0 {
		return out
	}
	const circle float64 = 1 << 64
	prev := r.points[len(r.points)-1].hash
	for _, p := range r.points {
		// The arc (prev, p.hash] belongs to p's member; unsigned
		// subtraction wraps around the circle for the first point.
		out[r.members[p.member]] += float64(p.hash-prev) / circle
		prev = p.hash
	}
	if len(r.points) == 1 {
		out[r.members[0]] = 1
	}
	return out
}
