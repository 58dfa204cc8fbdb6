package main

import (
	"bytes"
	"os"
	"path/filepath"

	"github.com/polite-crawler/polite/cmd"
)

// completionFiles are the scripts -completions writes, by file name, each
// where its shell looks for it once installed: bash-completion's
// completions/polite (named polite.bash here), zsh's $fpath/_polite,
// fish's completions/polite.fish.
var completionFiles = []struct {
	name  string
	write func(b *bytes.Buffer) error
}{
	{"polite.bash", func(b *bytes.Buffer) error { return cmd.Tree().GenBashCompletionV2(b, true) }},
	{"_polite", func(b *bytes.Buffer) error { return cmd.Tree().GenZshCompletion(b) }},
	{"polite.fish", func(b *bytes.Buffer) error { return cmd.Tree().GenFishCompletion(b, true) }},
}

// writeCompletions writes the completion scripts into dir.
func writeCompletions(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range completionFiles {
		var b bytes.Buffer
		if err := f.write(&b); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, f.name), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
