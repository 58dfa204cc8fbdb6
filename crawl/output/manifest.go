package output

import "github.com/polite-crawler/polite/crawl/frontier"

// ManifestLine is one line of manifest.jsonl: a URL's final fetch.
type ManifestLine struct {
	Job         string          `json:"job"`
	Run         int64           `json:"run"`
	URL         string          `json:"url"`
	Status      int             `json:"status"`
	File        string          `json:"file,omitempty"`
	SHA256      string          `json:"sha256,omitempty"`
	Bytes       int64           `json:"bytes"`
	ContentType string          `json:"content_type,omitempty"`
	FetchedAt   string          `json:"fetched_at"`
	LatencyMS   float64         `json:"latency_ms"`
	Attempts    int             `json:"attempts"`
	Location    string          `json:"location,omitempty"`
	Reason      frontier.Reason `json:"reason,omitempty"`
	Change      frontier.Change `json:"change,omitempty"`
	Usage       []string        `json:"usage,omitempty"` // the usage preferences that applied to the answer, as shown
}
