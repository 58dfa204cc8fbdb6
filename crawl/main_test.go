package crawl_test

import (
	"testing"

	"github.com/polite-crawler/polite/crawl/crawltest"
)

// TestMain runs the tests with their scratch folders in RAM when the
// machine has room (crawltest.ScratchInRAM).
func TestMain(m *testing.M) { crawltest.Main(m) }
