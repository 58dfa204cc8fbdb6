package crawltest

import "time"

// Request is one request as the origin saw it, kept in Stats.Log when
// Config.Log is set: the evidence for figures that depend on order or
// latency (the first N answers of a run, a median latency).
type Request struct {
	At      time.Time     // arrival
	Path    string        // path with query
	Status  int           // status sent; 0 when the client went away first
	Latency time.Duration // from arrival until the handler was done answering
}

// logArrival records a request arriving at now and returns its index in
// Stats.Log, or -1 when the origin keeps no log. o.mu is held.
func (o *Origin) logArrival(now time.Time, uri string) int {
	if !o.cfg.Log {
		return -1
	}
	o.stats.Log = append(o.stats.Log, Request{At: now, Path: uri})
	return len(o.stats.Log) - 1
}

// logAnswer completes the record at index i with the status the writer
// sent and the time taken. A Reset in between has dropped the record.
func (o *Origin) logAnswer(i int, at time.Time, w *countingWriter) {
	end := o.now()
	o.mu.Lock()
	defer o.mu.Unlock()
	if i >= len(o.stats.Log) || !o.stats.Log[i].At.Equal(at) {
		return
	}
	o.stats.Log[i].Status = w.status
	o.stats.Log[i].Latency = end.Sub(at)
}
