package browsertest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// browser is one headless Chromium for the whole test binary, driven
// over the DevTools protocol (CDP) through a pipe (--remote-debugging-pipe:
// commands on its fd 3, answers on its fd 4, each a JSON message ended by
// a NUL byte), so no port is opened and no file waited for.
type browser struct {
	cmd    *exec.Cmd
	w      io.WriteCloser
	stderr bytes.Buffer

	mu      sync.Mutex
	next    int
	waiting map[int]chan cdpAnswer
	err     error // the pipe's end
}

type cdpAnswer struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

var (
	sharedOnce    sync.Once
	sharedBrowser *browser
	sharedErr     error
)

// TestMain closes the shared browser, if a test started it.
func TestMain(m *testing.M) {
	code := m.Run()
	if sharedBrowser != nil {
		sharedBrowser.close()
	}
	os.Exit(code)
}

// sharedChromium returns the test binary's one Chromium, started on first
// use, or skips the test when there is none.
func sharedChromium(t *testing.T) *browser {
	t.Helper()
	path := chromium()
	if path == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("chromium is not installed (apt-get install chromium); .ci/run installs it")
		}
		t.Skip("chromium is not installed (apt-get install chromium)")
	}
	sharedOnce.Do(func() {
		dir, err := os.MkdirTemp("", "polite-chromium-")
		if err != nil {
			sharedErr = err
			return
		}
		sharedBrowser, sharedErr = startBrowser(path, dir)
	})
	if sharedErr != nil {
		t.Fatalf("start chromium: %v", sharedErr)
	}
	return sharedBrowser
}

func startBrowser(path, profile string) (*browser, error) {
	cmdR, cmdW, err := os.Pipe() // commands: we write, Chromium reads on fd 3
	if err != nil {
		return nil, err
	}
	ansR, ansW, err := os.Pipe() // answers: Chromium writes on fd 4
	if err != nil {
		return nil, err
	}
	b := &browser{w: cmdW, waiting: map[int]chan cdpAnswer{}}
	b.cmd = exec.Command(path, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-extensions", "--no-first-run", "--user-data-dir="+filepath.Join(profile, "profile"), "about:blank")
	b.cmd.ExtraFiles = []*os.File{cmdR, ansW}
	b.cmd.Stderr = &b.stderr
	if err := b.cmd.Start(); err != nil {
		return nil, err
	}
	cmdR.Close()
	ansW.Close()
	go b.read(ansR, profile)
	return b, nil
}

// read hands each answer to the call waiting for its id; events are
// dropped.
func (b *browser) read(r io.ReadCloser, profile string) {
	defer os.RemoveAll(profile)
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		msg, err := br.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			b.err = fmt.Errorf("chromium's pipe closed: %v", err)
			for id, ch := range b.waiting {
				close(ch)
				delete(b.waiting, id)
			}
			b.mu.Unlock()
			r.Close()
			return
		}
		var m struct {
			ID int `json:"id"`
			cdpAnswer
		}
		if json.Unmarshal(bytes.TrimSuffix(msg, []byte{0}), &m) != nil || m.ID == 0 {
			continue
		}
		b.mu.Lock()
		ch := b.waiting[m.ID]
		delete(b.waiting, m.ID)
		b.mu.Unlock()
		if ch != nil {
			ch <- m.cdpAnswer
		}
	}
}

// call sends a CDP command (to session, or to the browser when "") and
// decodes its result into out (unless nil).
func (b *browser) call(ctx context.Context, session, method string, params, out any) error {
	b.mu.Lock()
	if b.err != nil {
		b.mu.Unlock()
		return fmt.Errorf("%s: %v\n%s", method, b.err, b.stderr.String())
	}
	b.next++
	id := b.next
	ch := make(chan cdpAnswer, 1)
	b.waiting[id] = ch
	msg := map[string]any{"id": id, "method": method, "params": params}
	if session != "" {
		msg["sessionId"] = session
	}
	data, _ := json.Marshal(msg)
	_, err := b.w.Write(append(data, 0))
	b.mu.Unlock()
	if err != nil {
		return fmt.Errorf("%s: %v", method, err)
	}
	select {
	case a, ok := <-ch:
		if !ok {
			return fmt.Errorf("%s: chromium went away\n%s", method, b.stderr.String())
		}
		if a.Error != nil {
			return fmt.Errorf("%s: %s", method, a.Error.Message)
		}
		if out != nil {
			return json.Unmarshal(a.Result, out)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// tab is a page of the browser, with its own CDP session.
type tab struct {
	b       *browser
	target  string
	session string
}

// newTab opens a blank page, closed when the test ends.
func (b *browser) newTab(ctx context.Context, t *testing.T) *tab {
	t.Helper()
	var created struct {
		TargetID string `json:"targetId"`
	}
	if err := b.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &created); err != nil {
		t.Fatal(err)
	}
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": created.TargetID, "flatten": true}, &attached); err != nil {
		t.Fatal(err)
	}
	tb := &tab{b: b, target: created.TargetID, session: attached.SessionID}
	t.Cleanup(func() {
		b.call(context.Background(), "", "Target.closeTarget", map[string]any{"targetId": tb.target}, nil)
	})
	return tb
}

// navigate loads url in the tab.
func (tb *tab) navigate(ctx context.Context, url string) error {
	return tb.b.call(ctx, tb.session, "Page.navigate", map[string]any{"url": url}, nil)
}

// eval runs a JavaScript expression (a promise is awaited) and decodes its
// value into out.
func (tb *tab) eval(ctx context.Context, expr string, out any) error {
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	err := tb.b.call(ctx, tb.session, "Runtime.evaluate", map[string]any{
		"expression": expr, "awaitPromise": true, "returnByValue": true}, &r)
	if err != nil {
		return err
	}
	if r.Exception != nil {
		return fmt.Errorf("script: %s %s", r.Exception.Text, r.Exception.Exception.Description)
	}
	return json.Unmarshal(r.Result.Value, out)
}

// close ends the browser: asked to close, then killed if it has not.
func (b *browser) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	b.call(ctx, "", "Browser.close", map[string]any{}, nil)
	b.w.Close()
	b.cmd.Process.Kill()
	b.cmd.Wait()
}
