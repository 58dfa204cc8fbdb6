package cmd

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// contactFile is the file, under $XDG_CONFIG_HOME/polite/, whose first
// line that is not blank or a # comment is the contact.
const contactFile = "contact"

// resolveContact returns the contact for the User-Agent and where it came
// from: --contact, else $POLITE_CONTACT, else the contact file; "" and the
// project's address when none is set.
func resolveContact(flag string, getenv func(string) string) (contact, from string, err error) {
	if flag != "" {
		return checkContact(flag, "--contact")
	}
	if env := getenv("POLITE_CONTACT"); env != "" {
		return checkContact(env, "POLITE_CONTACT")
	}
	path := contactPath(getenv)
	if path == "" {
		return ProjectURL, "", nil
	}
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return ProjectURL, "", nil
	}
	if err != nil {
		return "", "", fmt.Errorf("%w: contact file: %v", errUsage, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line != "" && !strings.HasPrefix(line, "#") {
			return checkContact(line, path)
		}
	}
	if err := sc.Err(); err != nil {
		return "", "", fmt.Errorf("%w: contact file %s: %v", errUsage, path, err)
	}
	return "", "", fmt.Errorf("%w: contact file %s holds no contact: write your page or mail address on a line", errUsage, path)
}

// contactPath is $XDG_CONFIG_HOME/polite/contact, or under ~/.config.
func contactPath(getenv func(string) string) string {
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home := getenv("HOME")
		if home == "" {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "polite", contactFile)
}

// checkContact refuses a contact that cannot stand in a header.
func checkContact(c, from string) (string, string, error) {
	c = strings.TrimSpace(c)
	switch {
	case c == "":
		return "", "", fmt.Errorf("%w: %s: the contact is empty", errUsage, from)
	case len(c) > 200:
		return "", "", fmt.Errorf("%w: %s: the contact is longer than 200 bytes", errUsage, from)
	case strings.ContainsFunc(c, func(r rune) bool { return unicode.IsControl(r) || r > unicode.MaxASCII || r == '(' || r == ')' }):
		return "", "", fmt.Errorf("%w: %s: the contact %q holds a control, non-ASCII or bracket character", errUsage, from, c)
	}
	return c, from, nil
}

// defaultUserAgent is "polite/VERSION (+CONTACT)" with the contact set in
// the environment or the contact file, without a warning when none is.
func defaultUserAgent(getenv func(string) string) (string, error) {
	contact, _, err := resolveContact("", getenv)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("polite/%s (+%s)", Version, contact), nil
}
