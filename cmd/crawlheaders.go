package cmd

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/polite-crawler/polite/crawl/fetch"
)

// headerEnv is the environment form of the request headers: header lines
// as a header file has them, secret like them, so that a crontab line
// never holds a token (a systemd unit's EnvironmentFile= can set it).
const headerEnv = "POLITE_HEADERS"

// maxHeaderFile bounds a header file: a few headers, not a body.
const maxHeaderFile = 64 << 10

// headers reads the request headers of --header, --header-host,
// --header-file and $POLITE_HEADERS; every error is a usage error (exit 2)
// that names the flag, file and line, never a secret value.
func (o *crawlOptions) headers() (fetch.Headers, error) {
	var hs fetch.Headers
	for _, arg := range o.Headers {
		h, err := fetch.ParseHeader(arg, false)
		if err != nil {
			return nil, fmt.Errorf("%w: --header: %v", errUsage, err)
		}
		hs = append(hs, h)
	}
	for _, arg := range o.HostHeaders {
		h, err := fetch.ParseHostHeader(arg)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errUsage, err)
		}
		hs = append(hs, h)
	}
	if o.HeaderFile != "" {
		data, err := readHeaderFile(o.HeaderFile)
		if err != nil {
			return nil, fmt.Errorf("%w: --header-file %v", errUsage, err)
		}
		fhs, err := parseHeaderLines(o.HeaderFile, data)
		if err != nil {
			return nil, err
		}
		hs = append(hs, fhs...)
	}
	if env := o.Getenv(headerEnv); env != "" {
		ehs, err := parseHeaderLines("$"+headerEnv, []byte(env))
		if err != nil {
			return nil, err
		}
		hs = append(hs, ehs...)
	}
	return hs, nil
}

// parseHeaderLines reads a header file's lines ("Name: value"; blank
// lines and # comments skipped), every one secret.
func parseHeaderLines(name string, data []byte) (fetch.Headers, error) {
	var hs fetch.Headers
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, maxHeaderFile)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		h, err := fetch.ParseHeader(line, true)
		if err != nil {
			return nil, fmt.Errorf("%w: %s:%d: %v", errUsage, name, n, err)
		}
		hs = append(hs, h)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", errUsage, name, err)
	}
	return hs, nil
}

// readHeaderFile reads a header file, refused unless it is a regular file
// of at most maxHeaderFile bytes, owned by the user and granting nothing
// to group or others (as ssh does with keys).
func readHeaderFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	if err := privateFile(fi); err != nil {
		return nil, fmt.Errorf("%s: %v: it holds secrets (chmod 600 %s)", path, err, path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxHeaderFile+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("%s: %v", path, err)
	case len(data) > maxHeaderFile:
		return nil, fmt.Errorf("%s: over %d bytes", path, maxHeaderFile)
	}
	return data, nil
}
