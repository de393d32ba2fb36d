package pyexec

import "time"

// rssEvery is how often an executor's resident memory is read again after
// calls that move little data: reading /proc costs about as much as a small
// call, so it is not done after each one.
const (
	rssEvery      = 50 * time.Millisecond
	rssMovedBytes = 1 << 20
)

// chargeMemory records e's resident memory (read now) and reports the sum
// over live executors to Config.Memory.
func (p *Pool) chargeMemory(e *executor, force bool, moved int) {
	if p.cfg.Memory == nil {
		return
	}
	now := time.Now()
	if !force && moved < rssMovedBytes && now.Sub(e.rssAt) < rssEvery {
		return
	}
	rss := e.residentBytes()
	p.mu.Lock()
	e.rss, e.rssAt = rss, now
	p.reportLocked()
	p.mu.Unlock()
}

// reportLocked hands the executors' total to Config.Memory; p.mu is held,
// so reports reach it in order.
func (p *Pool) reportLocked() {
	if p.cfg.Memory == nil {
		return
	}
	var total int64
	for e := range p.all {
		total += e.rss
	}
	p.cfg.Memory(total)
}
