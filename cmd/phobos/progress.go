package main

import (
	"io"
	"os"
	"sync"
	"time"

	"github.com/phobos-tensor/phobos"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progressView draws one progress bar per execution on stderr from the
// session's progress reports. It exists only when stderr is a terminal, so
// logs and pipes (CI, bench_anchor.py --wrap) get no control characters. A
// nil view is valid and draws nothing.
type progressView struct {
	w     io.Writer
	mu    sync.Mutex
	label string
	bar   *progressbar.ProgressBar
}

func newProgressView(w io.Writer) *progressView {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return &progressView{w: w}
}

// start begins a new execution; its bar appears with the first report,
// when the number of chunk ops is known.
func (v *progressView) start(label string) {
	if v == nil {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.label, v.bar = label, nil
}

// update is the session's WithProgress callback.
func (v *progressView) update(p phobos.Progress) {
	if v == nil || p.Total == 0 {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.bar == nil {
		v.bar = progressbar.NewOptions(p.Total,
			progressbar.OptionSetWriter(v.w),
			progressbar.OptionSetDescription(v.label),
			progressbar.OptionShowCount(),
			progressbar.OptionSetItsString("ops"),
			progressbar.OptionShowIts(),
			progressbar.OptionSetWidth(30),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	if v.bar.GetMax() != p.Total {
		v.bar.ChangeMax(p.Total)
	}
	_ = v.bar.Set(p.Finished)
}

// done removes the bar so the summary line starts on a clean line.
func (v *progressView) done() {
	if v == nil {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.bar != nil {
		_ = v.bar.Clear()
		v.bar = nil
	}
}
