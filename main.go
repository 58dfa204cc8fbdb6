// Command polite is a web crawler that fetches from other people's servers
// without hurting them.
package main

import (
	"os"

	"github.com/polite-crawler/polite/cmd"
)

func main() {
	os.Exit(cmd.Execute())
}
