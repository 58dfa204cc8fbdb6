package cmd

import (
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"
)

// Size units: KB, MB, GB, TB are powers of 1000; KiB, MiB, GiB, TiB and
// the single letters k, M, G, T (as rclone and curl read them) powers of
// 1024. Units are matched without regard to case; B is bytes.
var sizeUnits = map[string]int64{
	"": 1, "b": 1,
	"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
	"k": 1 << 10, "kib": 1 << 10,
	"m": 1 << 20, "mib": 1 << 20,
	"g": 1 << 30, "gib": 1 << 30,
	"t": 1 << 40, "tib": 1 << 40,
}

// ParseSize reads a byte count: a plain number of bytes ("1048576") or a
// number with a unit ("10MB", "512KiB", "1.5 GiB"). A fraction of a byte
// is dropped. Negative sizes, sizes over the largest int64 and text that
// is no size are errors.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	if strings.HasPrefix(t, "-") {
		return 0, errors.New("a size must not be negative")
	}
	if num == "" || strings.Count(num, ".") > 1 || num == "." {
		return 0, fmt.Errorf("%q is not a size: want bytes or a number with a unit, e.g. 10MB, 512KiB, 2GiB", s)
	}
	mult, ok := sizeUnits[unit]
	if !ok {
		return 0, fmt.Errorf("%q: unknown unit %q (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)", s, t[i:])
	}
	r, ok := new(big.Rat).SetString(num)
	if !ok {
		return 0, fmt.Errorf("%q is not a size", s)
	}
	r.Mul(r, new(big.Rat).SetInt64(mult))
	n := new(big.Int).Quo(r.Num(), r.Denom())
	if !n.IsInt64() {
		return 0, fmt.Errorf("%q is too large: at most %s", s, HumanSize(1<<63-1))
	}
	return n.Int64(), nil
}

// HumanSize prints a byte count the shortest exact way: "10MiB", "512KiB",
// "1500B", "0".
func HumanSize(n int64) string {
	if n == 0 {
		return "0"
	}
	for _, u := range []struct {
		name string
		mult int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}} {
		if n%u.mult == 0 {
			return fmt.Sprintf("%d%s", n/u.mult, u.name)
		}
	}
	return fmt.Sprintf("%dB", n)
}

// sizeValue is a --flag that takes a size with a unit and refuses one
// outside [min, max].
type sizeValue struct {
	p        *int64
	min, max int64
}

func newSizeValue(p *int64, min, max int64) *sizeValue { return &sizeValue{p, min, max} }

func (v *sizeValue) String() string { return HumanSize(*v.p) }
func (v *sizeValue) Type() string   { return "size" }

func (v *sizeValue) Set(s string) error {
	n, err := ParseSize(s)
	if err != nil {
		return err
	}
	if n < v.min || n > v.max {
		return fmt.Errorf("must be between %s and %s", HumanSize(v.min), HumanSize(v.max))
	}
	*v.p = n
	return nil
}

// durationValue is a --flag that takes a duration and refuses one outside
// its range: at least min (above 0 when positive) and at most max.
type durationValue struct {
	p        *time.Duration
	min, max time.Duration
	positive bool
}

func (v *durationValue) String() string { return shortDuration(*v.p) }
func (v *durationValue) Type() string   { return "duration" }

func (v *durationValue) Set(s string) error {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("%q is not a duration: want e.g. 500ms, 3s, 10m, 1h30m", s)
	}
	if d < v.min || d > v.max || (v.positive && d <= 0) {
		return fmt.Errorf("must be %s", v.rangeText())
	}
	*v.p = d
	return nil
}

func (v *durationValue) rangeText() string {
	if v.positive {
		return fmt.Sprintf("above 0 and at most %s", shortDuration(v.max))
	}
	return fmt.Sprintf("between %s and %s", shortDuration(v.min), shortDuration(v.max))
}

// enumValue is a --flag that takes one of a few words.
type enumValue struct {
	p    *string
	vals []string
}

func newEnumValue(p *string, vals ...string) *enumValue { return &enumValue{p, vals} }

func (v *enumValue) String() string { return *v.p }
func (v *enumValue) Type() string   { return "string" }

func (v *enumValue) Set(s string) error {
	for _, ok := range v.vals {
		if s == ok {
			*v.p = s
			return nil
		}
	}
	return fmt.Errorf("must be %s", orList(v.vals))
}

// orList is "a, b or c".
func orList(vals []string) string {
	if len(vals) == 1 {
		return vals[0]
	}
	return strings.Join(vals[:len(vals)-1], ", ") + " or " + vals[len(vals)-1]
}
