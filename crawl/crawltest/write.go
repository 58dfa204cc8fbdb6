package crawltest

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
)

// ETag returns the quoted ETag the origin sends with a 200 body: a hash
// of the body. Streamed bodies (/big/N, /trickle/N), which are too long
// to hash up front, use a hash of their path instead.
func ETag(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:8]) + `"`
}

// write sends rep. A 200 carries ETag and Last-Modified and becomes a
// 304 when the request's validators match. It returns the error of a
// stream cut short by the client.
func (o *Origin) write(w *countingWriter, r *http.Request, rep reply) error {
	h := w.Header()
	for k, v := range rep.header {
		h[k] = v
	}
	if rep.status == http.StatusOK {
		etag := ETag(rep.body)
		if rep.stream != fixed {
			etag = ETag([]byte("stream " + r.URL.Path))
		}
		h.Set("ETag", etag)
		h.Set("Last-Modified", LastModified.Format(http.TimeFormat))
		if notModified(r, etag) {
			h.Del("Content-Type")
			h.Del("Content-Encoding")
			w.WriteHeader(http.StatusNotModified)
			return nil
		}
	}
	if w.head {
		if rep.stream == fixed && rep.status != http.StatusNoContent {
			h.Set("Content-Length", strconv.Itoa(len(rep.body)))
		} else if rep.stream != fixed {
			h.Set("Content-Length", strconv.FormatInt(rep.n, 10))
		}
		w.WriteHeader(rep.status)
		return nil
	}
	switch rep.stream {
	case big:
		h.Set("Content-Length", strconv.FormatInt(rep.n, 10))
		w.WriteHeader(rep.status)
		return writeBig(w, rep.n)
	case trickle:
		h.Set("Content-Length", strconv.FormatInt(rep.n, 10))
		w.WriteHeader(rep.status)
		return o.writeTrickle(w, r, rep.n)
	}
	if rep.status != http.StatusNoContent && rep.status != http.StatusNotModified {
		h.Set("Content-Length", strconv.Itoa(len(rep.body)))
	}
	w.WriteHeader(rep.status)
	if len(rep.body) > 0 {
		_, err := w.Write(rep.body)
		return err
	}
	return nil
}

// notModified applies If-None-Match, or when it is absent
// If-Modified-Since, against the fixed LastModified.
func notModified(r *http.Request, etag string) bool {
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		for tag := range strings.SplitSeq(inm, ",") {
			tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
			if tag == "*" || tag == etag {
				return true
			}
		}
		return false
	}
	if ims := r.Header.Get("If-Modified-Since"); ims != "" {
		t, err := http.ParseTime(ims)
		return err == nil && !t.Before(LastModified)
	}
	return false
}

func writeBig(w *countingWriter, n int64) error {
	chunk := bigBytes(int64(len(bigPattern) * 512))
	for n > 0 {
		k := min(n, int64(len(chunk)))
		if _, err := w.Write(chunk[:k]); err != nil {
			return err
		}
		n -= k
	}
	return nil
}

// writeTrickle sends n bytes one at a time, flushing each, with
// trickleEvery between them; it stops when the client goes away.
func (o *Origin) writeTrickle(w *countingWriter, r *http.Request, n int64) error {
	for i := int64(0); i < n; i++ {
		if i > 0 {
			if err := o.sleep(r.Context(), o.trickleEvery); err != nil {
				return err
			}
		}
		if _, err := w.Write([]byte{'x'}); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	return nil
}
