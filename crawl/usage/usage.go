// Package usage decides what a site says about the use of its content
// and whether that refuses the purpose a crawl declares: IETF aipref's
// Content-Usage (draft-ietf-aipref-attach-05 and draft-ietf-aipref-vocab-08:
// a response header and robots.txt lines) and TDMRep (the W3C Community
// Group's final report, 2024: tdm-reservation and tdm-policy headers,
// /.well-known/tdmrep.json, HTML meta). It parses and decides; it makes
// no request.
package usage

import (
	"fmt"
	"slices"
	"strings"
)

// The drafts and report this package implements, pinned.
const (
	VocabDraft  = "draft-ietf-aipref-vocab-08"
	AttachDraft = "draft-ietf-aipref-attach-05"
	TDMRep      = "TDMRep, W3C Community Group final report (2024)"
)

// Purpose is what a crawl declares it is for: one of the vocabulary's
// categories, or archive or research.
type Purpose string

// The purposes a crawl may declare.
const (
	TrainAI  Purpose = "train-ai" // aipref: AI training
	AIUse    Purpose = "ai-use"   // aipref: AI use (input to a generative model)
	Search   Purpose = "search"   // aipref: search
	Archive  Purpose = "archive"  // preservation: refused by no usage signal
	Research Purpose = "research" // text and data mining for research: refused by a TDM reservation
)

// Purposes are the purposes in the order help lists them.
var Purposes = []Purpose{TrainAI, AIUse, Search, Archive, Research}

// Categories are the vocabulary's usage categories (draft-ietf-aipref-vocab-08
// section 4), the labels a Content-Usage dictionary assigns y or n. The
// draft defines no nesting between them: each is decided by its own label
// alone.
var Categories = []string{string(TrainAI), string(AIUse), string(Search)}

// broader maps a category to the categories it falls under, whose n
// refuses it too. The pinned draft nests none (earlier drafts had an
// "automated processing" category over all): the table is empty, and a
// test keeps it so until a draft adds nesting back.
var broader = map[string][]string{}

// tdmRefused are the purposes a TDM reservation refuses: text and data
// mining (DSM Directive art. 4) covers training a model and research
// mining; answering from content, search and archiving are not mining.
var tdmRefused = []Purpose{TrainAI, Research}

// ParsePurposes reads a comma-separated list of purposes ("" is none).
func ParsePurposes(list string) ([]Purpose, error) {
	var out []Purpose
	for _, f := range strings.Split(list, ",") {
		p := Purpose(strings.TrimSpace(f))
		if p == "" {
			continue
		}
		if !slices.Contains(Purposes, p) {
			return nil, fmt.Errorf("unknown purpose %q (known: %s)", p, Join(Purposes))
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// Join writes purposes comma-separated, as --purpose takes them.
func Join(ps []Purpose) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = string(p)
	}
	return strings.Join(s, ",")
}

// Refuses reports the first signal among signals that refuses purpose p,
// and whether there is one. Statements combine as the vocabulary says
// (section 5.1): a single n refuses, whatever another says. A category's
// n refuses p when p is that category or falls under it; a TDM
// reservation refuses the purposes tdmRefused names.
func Refuses(signals []Signal, p Purpose) (Signal, bool) {
	labels := append([]string{string(p)}, broader[string(p)]...)
	for _, s := range signals {
		if s.TDM != nil {
			if *s.TDM == 1 && slices.Contains(tdmRefused, p) {
				return s, true
			}
			continue
		}
		for _, l := range labels {
			if s.Statement.Get(l) == Disallow {
				return s, true
			}
		}
	}
	return Signal{}, false
}

// RefusesAny is Refuses for the first of purposes that signals refuse.
func RefusesAny(signals []Signal, purposes []Purpose) (Purpose, Signal, bool) {
	for _, p := range purposes {
		if s, ok := Refuses(signals, p); ok {
			return p, s, true
		}
	}
	return "", Signal{}, false
}
