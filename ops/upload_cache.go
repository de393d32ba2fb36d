package ops

import (
	"strings"
	"sync"

	"github.com/phobos-tensor/phobos/ndarray"
)

// A graph over an uploaded array reads every uploaded chunk from its file
// each time it runs; for small chunks the open and read cost more than
// what the graph then does with them. The upload store keeps such chunks
// in memory too, by file path, and hands out copies (the worker's store
// takes ownership of what a kernel returns).
const (
	// maxCachedUpload is the largest chunk kept in memory, in bytes.
	maxCachedUpload = 4 << 10
	// maxUploadCache bounds the bytes kept in memory per worker.
	maxUploadCache = 16 << 20
)

type uploadCache struct {
	mu    sync.Mutex
	m     map[string]*ndarray.Array
	bytes int64
	// gen counts drops: a chunk read before one (perhaps the file it
	// replaced) is not kept.
	gen uint64
}

// generation is taken before a chunk's file is read, for add.
func (c *uploadCache) generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// get returns a copy of the chunk kept for path, if any.
func (c *uploadCache) get(path string) (*ndarray.Array, bool) {
	c.mu.Lock()
	a, ok := c.m[path]
	c.mu.Unlock()
	if !ok {
		return nil, false
	}
	return a.Copy(), true
}

// add keeps a copy of a small chunk read from path, while there is room,
// unless a drop came since gen.
func (c *uploadCache) add(path string, a *ndarray.Array, gen uint64) {
	n := int64(a.Nbytes())
	if n > maxCachedUpload {
		return
	}
	a = a.Copy()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen || c.bytes+n > maxUploadCache {
		return
	}
	if c.m == nil {
		c.m = make(map[string]*ndarray.Array)
	}
	if old, ok := c.m[path]; ok {
		c.bytes -= int64(old.Nbytes())
	}
	c.m[path] = a
	c.bytes += n
}

// drop forgets the chunk kept for path, or every chunk under path + "/"
// when prefix is set.
func (c *uploadCache) drop(path string, prefix bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	for p, a := range c.m {
		if p == path || (prefix && strings.HasPrefix(p, path+"/")) {
			c.bytes -= int64(a.Nbytes())
			delete(c.m, p)
		}
	}
}
