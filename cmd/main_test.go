package cmd

import (
	"os"
	"testing"

	"github.com/polite-crawler/polite/crawl/crawltest"
)

func TestMain(m *testing.M) {
	crawltest.ScratchInRAM()
	os.Exit(m.Run())
}
